"""A survey written up: ``mcpdelta study SERVERS --out DIR``.

Every server and version of a servers file is captured twice: pass A as
the crawler (each package version installed as it resolved on its publish
date), pass B offline from A's package cache under a second client
identity, so output that changes between two captures is told apart from a
release change. Pass A's contracts go into a lake, both passes' attempts
into its ``attempts`` table. The lake is surveyed over consecutive release
steps; a second lake holding the same captures is surveyed from each release
to the latest (kept apart so the ledger of release steps, which the
notebooks read, holds nothing else). Judges add advisory notes if the
config names any. ``mcpdelta.survey.writeup`` then writes DIR/README.md,
every number in it the answer of a query under ``sql/``.
"""

import asyncio
import datetime as dt
import json
import pathlib
import resource
import socket
import tempfile
import time
import uuid

from mcpdelta import progress
from mcpdelta.errors import InputError
from mcpdelta.survey.passes import SECOND_PASS


def capture_passes(servers_file, work, cache=None, offline=False, allow_destructive_probes=False) -> list:
    """Pass A then pass B into ``work/pass-a`` and ``work/pass-b`` (each a
    crawl folder with its ``crawl-log.jsonl``); return the two folders."""
    from mcpdelta.crawl.model import ClientIdentity
    from mcpdelta.crawl.packages import PackageCache, default_cache
    from mcpdelta.crawl.probes import ProbePolicy
    from mcpdelta.crawl.runner import crawl
    from mcpdelta.crawl.servers import load

    targets, limits = load(servers_file)
    cache = pathlib.Path(cache) if cache else default_cache()
    folders = []
    for name, identity, pass_offline in (("pass-a", ClientIdentity(), offline),
                                         ("pass-b", ClientIdentity(**SECOND_PASS), True)):
        folder = pathlib.Path(work) / name
        packages = PackageCache(cache, limits.install_timeout_s, offline=pass_offline)
        progress.stage(name, "captures")
        asyncio.run(crawl(targets, limits, folder, cache=packages, client=identity,
                          probe_policy=ProbePolicy(allow_destructive=allow_destructive_probes),
                          **progress.crawl_callbacks()))
        folders.append(folder)
    return folders


def read_passes(folders) -> tuple:
    """(manifest rows, attempt rows): the first folder's captures, and the
    attempts of every folder (a contract is stored once; who saw it is what
    the other passes add)."""
    from mcpdelta.lake.ingest import rows_from_folder

    rows, attempts = rows_from_folder(str(folders[0]))
    for folder in folders[1:]:
        attempts = attempts + rows_from_folder(str(folder))[1]
    return rows, attempts


def check_folders(work, out) -> None:
    """--work and --out name folders (or nothing yet): said before any lake is touched."""
    for folder, flag in ((work, "--work"), (out, "--out")):
        if is_remote(folder):
            continue
        folder = pathlib.Path(folder)
        if folder.exists() and not folder.is_dir():
            raise InputError(str(folder), f"is a file; {flag} names a folder")


def run_study(servers_file, out, *, work, policy, config, cache=None, offline=False,
              captures=None, workers=None, command="mcpdelta study", population=None, sdk_check=None,
              title=None, recount=None, allow_destructive_probes=False) -> dict:
    """The whole study; ``captures`` (pass folders) skips the capture passes.
    ``population`` and ``sdk_check`` name the files the write-up's population
    sections read (``mcpdelta.survey.population``), ``recount`` the second
    reader's figures (``mcpdelta.survey.recount``); ``title`` ends "How
    often ... broke their callers"."""
    from mcpdelta.lake import Lake, new_batch_id
    from mcpdelta.survey import judge_stage
    from mcpdelta.survey.diffstage import engine_version, policy_hash, run_diff_stage
    from mcpdelta.survey.writeup import write

    from mcpdelta.survey.population import load_population, load_sdk_check
    from mcpdelta.survey.recount import load_recount

    check_folders(work, out)
    # the lakes live in --work; with --work s3://BUCKET/PREFIX they go to the
    # bucket, and the capture passes to a local temporary folder
    lakes_root = str(work).rstrip("/")
    if is_remote(work):
        work = None if captures else pathlib.Path(tempfile.mkdtemp(prefix="mcpdelta-study-passes-"))
    else:
        work = pathlib.Path(work)
    out = pathlib.Path(out)
    # the write-up's own inputs are read first: a mistake in one costs no capture
    population = load_population(population, servers_file) if population else None
    sdk_check = load_sdk_check(sdk_check) if sdk_check else None
    recount = load_recount(recount) if recount else None
    # a --work folder used before is resumed: the lakes keep what they hold,
    # and the diff stage only diffs pairs not in its ledger yet
    if config.judges:  # a judge mistake fails before any install
        from mcpdelta.judge import load_judges

        load_judges(config)
    started, clock = dt.datetime.now(dt.timezone.utc), time.perf_counter()
    timings = {}
    t = time.perf_counter()
    if captures:
        folders = [pathlib.Path(c) for c in captures]
        for folder in folders:
            if not (folder / "crawl-log.jsonl").is_file():
                raise InputError(str(folder), "is not a crawl folder (no crawl-log.jsonl)")
    else:
        if not pathlib.Path(servers_file).is_file():
            raise InputError(str(servers_file), "no such servers file")
        from mcpdelta.survey.fixtures import exported

        with exported(work / "fixtures"):  # what the probes of data/servers/reference.yaml read
            folders = capture_passes(servers_file, work, cache, offline, allow_destructive_probes)
    timings["capture_s"] = time.perf_counter() - t

    t = time.perf_counter()
    from mcpdelta.lake.ingest import store

    lakes = {"steps": Lake(f"{lakes_root}/lake"), "latest": Lake(f"{lakes_root}/lake-latest")}
    progress.stage("store", f"{len(folders)} capture passes")
    rows, attempts = read_passes(folders)  # parsed once, stored in both lakes
    for lake in lakes.values():
        store(lake, rows, attempts)
    progress.finish(f"{len(rows)} captures, {len(attempts)} attempts")
    stats = {}
    for key, mode in (("steps", "consecutive"), ("latest", "latest")):
        progress.stage(f"diff {key}", "pending version pairs")
        stats[key] = run_diff_stage(lakes[key], policy, mode=mode, workers=workers,
                                    on_batch=progress.on_diff_batch)
        progress.finish(f"{stats[key]['pairs']} pairs, {stats[key]['errors']} errors")
    timings["diff_s"] = time.perf_counter() - t
    t = time.perf_counter()
    if config.judges:
        progress.stage("judge", "prose changes")
    judged = judge_stage(lakes["steps"], config, engine_version(), policy_hash(policy))
    timings["judge_s"] = time.perf_counter() - t
    timings["total_s"] = time.perf_counter() - clock

    engine, policy_id = engine_version(), policy_hash(policy)
    summary = {"timings": {k: round(v, 1) for k, v in timings.items()},
               "peak_rss_mib": _peak_mib(resource.RUSAGE_SELF),
               "child_peak_rss_mib": _peak_mib(resource.RUSAGE_CHILDREN),
               "engine": engine, "policy": policy_id, "command": command,
               "pairs": {k: v["pairs"] for k, v in stats.items()},
               "errors": {k: v["errors"] for k, v in stats.items()},
               "judged": judged.get("judged", 0)}
    lakes["steps"].append("runs", [{
        "run_id": uuid.uuid4().hex, "started_at": started,
        "finished_at": dt.datetime.now(dt.timezone.utc), "user": None,
        "host": socket.gethostname(), "command": "study", "servers": None, "captures": None,
        "pairs": stats["steps"]["pairs"], "pairs_diffed": stats["steps"]["pairs_diffed"],
        "pairs_cached": stats["steps"]["pairs_cached"], "errors": stats["steps"]["errors"],
        "summary_json": json.dumps(summary, sort_keys=True)}], new_batch_id())

    progress.stage("write-up", str(out / "README.md"))
    facts = write(lakes["steps"].connect(engine, policy_id), lakes["latest"].connect(engine, policy_id),
                  out, servers_file=servers_file, population=population, sdk_check=sdk_check,
                  title=title, captures=captures, recount=recount)
    summary["readme"] = str(facts["readme"])
    return summary


def is_remote(place) -> bool:
    return str(place).lower().startswith("s3://")


def _peak_mib(who) -> int:
    return round(resource.getrusage(who).ru_maxrss / 1024)  # KiB on Linux
