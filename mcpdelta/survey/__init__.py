"""The survey: crawl -> lake -> batch diff -> (judges) -> report.

Each stage is a plain function over the lake, so any stage re-runs alone and
a second run over the same captures does no diff work. ``mcpdelta/flows/`` wraps the
same stages in Prefect for scheduled runs.
"""

import contextlib
import datetime as dt
import json
import os
import pathlib
import time

from mcpdelta import progress
from mcpdelta.errors import InputError
from mcpdelta.resources import DEMO_SERVERS


def crawl_stage(servers_file, lake, offline=True, cache=None, recapture=False, only=None,
                release_installs=False, allow_destructive_probes=False) -> dict:
    """Capture every server of ``servers_file`` (those whose ids ``only``
    lists, when given) and store what is new; ``release_installs`` frees
    each package install once captured (a cluster worker's disk holds
    installs in flight, not every release it ever captured).

    Published releases do not change, so a version sweep skips every
    (server, version) the lake already holds a stored capture of, unless
    ``recapture``; servers run from a command or a URL are captured every
    time. ``skipped`` counts the releases skipped as already held. Probes never
    call a tool annotated destructive unless ``allow_destructive_probes``."""
    import asyncio
    import tempfile

    from mcpdelta.crawl.packages import PackageCache, default_cache
    from mcpdelta.crawl.probes import ProbePolicy
    from mcpdelta.crawl.runner import crawl
    from mcpdelta.crawl.servers import load
    from mcpdelta.lake.ingest import rows_from_records, store

    targets, limits = load(servers_file)
    if only is not None:
        targets = [t for t in targets if t.id in set(only)]
    packages = PackageCache(pathlib.Path(cache) if cache else default_cache(),
                            limits.install_timeout_s, offline=offline)
    held = () if recapture else held_releases(lake, only)
    skipped: list = []
    with tempfile.TemporaryDirectory(prefix="mcpdelta-crawl-") as out:
        records = asyncio.run(crawl(targets, limits, out, cache=packages, recapture=recapture,
                                    captured=held, skipped=skipped, release_installs=release_installs,
                                    probe_policy=ProbePolicy(allow_destructive=allow_destructive_probes),
                                    **progress.crawl_callbacks()))
    counts = store(lake, *rows_from_records(records))
    counts["failed"] = [(r.id, r.version, r.error_kind, r.error) for r in records if not r.ok]
    counts["skipped"] = len(skipped)
    return counts


def held_releases(lake, servers=None) -> set:
    """(server id, version) of every release the lake holds a good capture
    of: an ``ok`` row of ``manifests`` (a stored contract), whoever stored it.
    Given ``servers``, of those servers only (read from their partitions)."""
    if servers is not None:
        rows = lake.read_servers("manifests", servers, ["server_id", "version", "ok"]).to_pylist()
        return {(r["server_id"], r["version"]) for r in rows if r["ok"]}
    rows = lake.connect().execute("SELECT DISTINCT server_id, version FROM manifests WHERE ok").fetchall()
    return set(rows)


def judge_stage(lake, config, engine_version=None, policy_hash=None, environ=None) -> dict:
    """Advisory notes on this engine and policy's prose changes, appended to
    the lake's ``notes`` table (which is also the cache: what was judged is
    never asked again). Never touches a ``changes`` row or a severity.

    Returns ``{"judged", "cached", "errors", "configured", ...}``
    (``mcpdelta.judge.lakestage.judge_lake``). Without an engine version or
    policy hash, the current engine's and the config's policy are used."""
    from mcpdelta.judge import offline
    from mcpdelta.judge.lakestage import empty_counts, judge_lake

    if not (config.judges or offline.available()):
        return empty_counts(False)
    if engine_version is None or policy_hash is None:
        from mcpdelta.engine.policy import Policy
        from mcpdelta.survey import diffstage

        engine_version = engine_version or diffstage.engine_version()
        policy_hash = policy_hash or diffstage.policy_hash(
            Policy(config.profile, config.fail_on, config.overrides, config.ignores))
    return judge_lake(lake, config, engine_version, policy_hash, environ)


def run_survey(lake, policy, config, *, servers_file=None, crawl=True, pairs="consecutive",
               since=None, report_dir=None, workers=None, offline=True, recapture=False,
               allow_destructive_probes=False) -> dict:
    """The whole pipeline; returns the summary object CONTRACT.md defines."""
    from mcpdelta.survey.diffstage import engine_version, policy_hash, run_diff_stage

    if config.judges:  # a judge mistake (an unset key variable) fails before any work
        from mcpdelta.judge import load_judges

        load_judges(config)
    started = dt.datetime.now(dt.timezone.utc)
    clock = time.perf_counter()
    timings = {"crawl_s": 0.0, "diff_s": 0.0, "judge_s": 0.0, "report_s": 0.0}
    capture_errors = skipped = 0
    if crawl:
        servers_file = servers_file or DEMO_SERVERS
        if not os.path.exists(servers_file):
            raise InputError(str(servers_file), "no such servers file")
        t = time.perf_counter()
        progress.stage("crawl", str(servers_file))
        crawled = crawl_stage(servers_file, lake, offline=offline, recapture=recapture,
                              allow_destructive_probes=allow_destructive_probes)
        capture_errors, skipped = len(crawled["failed"]), crawled["skipped"]
        progress.finish(f"{crawled['rows']} captures, {crawled['added']} new, {capture_errors} failed, "
                        f"{skipped} releases already held (skipped)")
        timings["crawl_s"] = time.perf_counter() - t
    t = time.perf_counter()
    progress.stage("diff", "pending version pairs")
    stats = run_diff_stage(lake, policy, mode=pairs, since=since, workers=workers,
                           on_batch=progress.on_diff_batch)
    progress.finish(f"{stats['pairs']} pairs: {stats['pairs_diffed']} diffed, "
                    f"{stats['pairs_cached']} cached, {stats['errors']} errors")
    timings["diff_s"] = time.perf_counter() - t
    t = time.perf_counter()
    if config.judges:
        progress.stage("judge", "prose changes")
    judged = judge_stage(lake, config, engine_version(), policy_hash(policy))
    timings["judge_s"] = time.perf_counter() - t
    t = time.perf_counter()
    progress.stage("report", "queries and plots")
    engine, policy_id = engine_version(), policy_hash(policy)
    con = lake.connect(engine, policy_id)  # report what this engine and policy found
    facts = write_report_at(con, report_dir or default_report_dir(lake), engine, policy_id)
    timings["report_s"] = time.perf_counter() - t
    progress.finish(str(facts["html"]))
    timings["total_s"] = time.perf_counter() - clock
    summary = survey_summary(con, stats, facts, stats["errors"] + capture_errors, timings, judged, skipped)
    record_run(lake, started, summary)
    summary["facts"] = facts
    return summary


def survey_summary(con, stats, facts, errors, timings, judged, skipped=0) -> dict:
    """The survey's summary object (CONTRACT.md) from the diff stage's counts
    and the report's facts; ``skipped``: releases the crawl did not capture
    again because the lake held them."""
    servers, captures = con.execute(
        "SELECT count(DISTINCT server_id), count(*) FROM manifests").fetchall()[0]
    return {
        "servers": servers,
        "captures": captures,
        "pairs": stats["pairs"],
        "pairs_diffed": stats["pairs_diffed"],
        "pairs_cached": stats["pairs_cached"],
        "changes": facts["changes"],
        "errors": errors,
        "skipped": skipped,
        "report": str(facts["html"]),
        "timings": {k: round(v, 3) for k, v in timings.items()},
        "judges": {k: judged.get(k, 0) for k in ("judged", "cached", "errors")},
    }


def record_run(lake, started, summary, command="survey") -> None:
    """The run's row in the lake's ``runs`` table: the CLI and the Prefect
    flow write the same one."""
    import socket
    import uuid

    from mcpdelta.lake import new_batch_id

    lake.append("runs", [{
        "run_id": uuid.uuid4().hex, "started_at": started,
        "finished_at": dt.datetime.now(dt.timezone.utc), "user": _user(),
        "host": socket.gethostname(), "command": command,
        "servers": summary["servers"], "captures": summary["captures"], "pairs": summary["pairs"],
        "pairs_diffed": summary["pairs_diffed"], "pairs_cached": summary["pairs_cached"],
        "errors": summary["errors"], "summary_json": json.dumps(summary, sort_keys=True),
    }], new_batch_id())


def default_report_dir(lake):
    """Next to the lake: ``<lake>-report`` (a folder; for a lake on object
    storage, an ``s3://`` location beside it)."""
    if lake.remote:
        return lake.report_uri()
    return pathlib.Path(lake.base + "-report")


@contextlib.contextmanager
def report_folder(target):
    """A local folder to write report files into: ``target`` itself, or for
    an ``s3://`` target a temporary folder uploaded there when the block
    ends without error. Yields (folder, how to name a file in it)."""
    target = str(target)
    if not target.lower().startswith("s3://"):
        yield pathlib.Path(target), lambda path: path
        return
    import tempfile

    from mcpdelta.lake.objectstore import put_folder

    with tempfile.TemporaryDirectory(prefix="mcpdelta-report-") as folder:
        yield pathlib.Path(folder), lambda p: target.rstrip("/") + "/" + pathlib.Path(p).relative_to(folder).as_posix()
        put_folder(target, folder)


def write_report_at(con, target, engine, policy_id, **options) -> dict:
    """``write_report`` into a folder or an ``s3://`` location; the facts
    name the page where it ends up."""
    from mcpdelta.survey.documents import write_report

    with report_folder(target) as (folder, named):
        facts = write_report(con, folder, engine, policy_id, **options)
        for key in ("html", "markdown"):
            if key in facts:
                facts[key] = named(facts[key])
    return facts


def _user() -> str:
    import getpass

    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"
