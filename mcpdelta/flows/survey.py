"""Prefect 3 flows: ``crawl``, ``diff``, ``judge`` and ``survey`` composing them.

Every stage is a plain function in ``mcpdelta/``; these flows only
orchestrate them, add retries where a retry can help (a crawl meets flaky
networks; a diff is deterministic and is not retried) and choose where tasks
run:

    python -m mcpdelta.flows.survey --lake lake                        # this machine
    python -m mcpdelta.flows.survey --lake /shared/lake --task-runner dask --address tcp://scheduler:8786
    python -m mcpdelta.flows.survey --task-runner ray --address ray://head:10001
    python -m mcpdelta.flows.survey --servers FILE --captures OUT   # both capture passes into a folder

With ``--captures`` the flow crawls the servers file's sweeps into a capture
folder instead of a lake: both passes, server by server, resumable
(``mcpdelta/survey/passes.py``); ``mcpdelta ingest`` reads the folder later.

On a cluster the crawl and the diff fan out, one task per group of servers
(``--crawl-group``, ``--diff-group``): each worker installs into its own
package cache, captures its group and writes it to the lake; a worker that
dies has its group run again on another (its captures were not stored: a
group is stored whole when it is done). Workers share no disk: the lake is
``s3://BUCKET/PREFIX`` (or a folder every worker reaches), the flow holds
its lease and every task writes under it. The servers file and the scripts
it runs must be at the same path on every worker (the embedded demo is
inside the package). ``mcpdelta/flows/nightly.py`` serves the nightly deployment.
"""

import json
import sys

from mcpdelta.cli import Parser, missing_extra

try:
    from prefect import flow, task
    from prefect.cache_policies import NO_CACHE
except ModuleNotFoundError as _exc:  # run as a script on an install without the extra
    if __name__ != "__main__":
        raise
    print(missing_extra("python -m mcpdelta.flows.survey", _exc) or _exc, file=sys.stderr)
    sys.exit(2)

from mcpdelta.config import find_default, load_config
from mcpdelta.engine.policy import Policy
from mcpdelta.errors import InputError
from mcpdelta.lake import Lake
from mcpdelta.survey.diffstage import PAIR_MODES


def _policy(config_file):
    config = load_config(config_file or find_default())
    return config, Policy(config.profile, config.fail_on, config.overrides, config.ignores)


@task(name="crawl-servers", retries=2, retry_delay_seconds=30)
def crawl_task(servers_file, lake_root, offline, recapture=False, servers=None, writer=None, run=None):
    """Capture the servers (``servers``: those ids only) and store them in
    one go at the end. A sweep captures only the releases the lake holds no
    capture of (all of them with ``recapture``), so a retry skips what an
    earlier try stored. On a cluster worker, packages install into that
    worker's own cache, each freed once captured. Given the flow's ``run`` id, the group's counts are
    kept in the lake once stored: the same task run again returns them
    without capturing anything (Dask runs a task again when the worker
    holding its finished result dies)."""
    from mcpdelta.survey import crawl_stage

    lake = Lake(lake_root, writer=writer)
    record = GroupRecord(lake, run, servers) if run and servers else None
    if record is not None and (done := record.read()) is not None:
        return done
    cache = worker_cache()
    counts = crawl_stage(servers_file, lake, offline=offline, recapture=recapture, only=servers,
                         cache=cache, release_installs=cache is not None)
    counts = {k: v for k, v in counts.items() if k != "failed"} | {"failed": len(counts["failed"])}
    if record is not None:
        record.write(counts)
    return counts


class GroupRecord:
    """What one crawl task of a flow run stored, kept beside the lake's
    tables (``LAKE/.flow-runs/<run>/crawl-<group>.json``; readers read only
    the tables): written once, after the group's captures are stored."""

    def __init__(self, lake, run, servers):
        import hashlib

        group = hashlib.sha256(json.dumps(sorted(servers)).encode()).hexdigest()[:24]
        self.lake, self.name = lake, f".flow-runs/{run}/crawl-{group}.json"

    def read(self):
        if self.lake.remote:
            data = self.lake.get(self.name)
        else:
            try:
                with open(f"{self.lake.base}/{self.name}", "rb") as handle:
                    data = handle.read()
            except FileNotFoundError:
                data = None
        return None if data is None else json.loads(data)

    def write(self, counts) -> None:
        data = json.dumps(counts, sort_keys=True).encode()
        if self.lake.remote:
            self.lake.put(self.name, data, new=True)
            return
        import os
        import tempfile

        path = f"{self.lake.base}/{self.name}"
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temporary, path)


def worker_cache():
    """The package cache of the Dask worker running this task (a folder of
    its own under the default cache), or None off a cluster: two workers
    never install into one folder."""
    import re

    try:
        from distributed import get_worker

        name = get_worker().name
    except (ImportError, ValueError):
        return None
    from mcpdelta.crawl.packages import default_cache

    return default_cache() / "workers" / re.sub(r"[^A-Za-z0-9._-]", "_", str(name))


@task(name="diff-pairs")
def diff_task(lake_root, policy, pairs, since, servers=None, workers=None, writer=None):
    from mcpdelta.survey.diffstage import run_diff_stage

    return run_diff_stage(Lake(lake_root, writer=writer), policy, mode=pairs, since=since,
                          servers=servers, workers=workers)


@task(name="judge-changes")
def judge_task(lake_root, config_file, writer=None):
    """Advisory notes on prose changes from the configured judges (none
    configured: nothing judged, and no note is ever made up)."""
    from mcpdelta.survey import judge_stage

    config, _ = _policy(config_file)
    return judge_stage(Lake(lake_root, writer=writer), config)


@task(name="write-report")
def report_task(lake_root, policy, report_dir):
    from mcpdelta.survey import default_report_dir, write_report_at
    from mcpdelta.survey.diffstage import engine_version, policy_hash

    lake = Lake(lake_root)
    facts = write_report_at(lake.connect(engine_version(), policy_hash(policy)),
                            report_dir or default_report_dir(lake), engine_version(), policy_hash(policy))
    return {"report": str(facts["html"]), "changes": facts["changes"],
            "breaking": len(facts["breaking"])}


@task(name="write-drift-report")
def drift_task(lake_root, policy, report_dir):
    """The description-drift report (Markdown and HTML) beside the survey's."""
    from mcpdelta.commands import drift
    from mcpdelta.survey import default_report_dir, report_folder
    from mcpdelta.survey.diffstage import engine_version, policy_hash

    lake = Lake(lake_root)
    engine, policy_id = engine_version(), policy_hash(policy)
    con = lake.connect(engine, policy_id)
    report = drift.build(drift.drift_rows(con), engine, policy_id)
    with report_folder(report_dir or default_report_dir(lake)) as (folder, named):
        folder.mkdir(parents=True, exist_ok=True)
        from mcpdelta.files import write_file

        write_file(folder / "drift.md", drift.markdown(report))
        write_file(folder / "drift.html", drift.page(report))
        return str(named(folder / "drift.html"))


def _writer(held):
    """The token tasks write under: an object-store lake's lease (a folder
    lake's lock needs none)."""
    return getattr(held, "token", None)


def _crawl(servers_file, lake, offline, recapture, fan_out, writer, group_size=1):
    """Capture every server. ``fan_out`` submits one task per group of
    ``group_size`` servers (all the releases of a server stay in one task:
    two releases with one contract never store its tools twice); otherwise
    one task captures them all."""
    if not fan_out:
        return crawl_task(servers_file, lake, offline, recapture, writer=writer)
    from mcpdelta.crawl.servers import load

    from prefect.runtime import flow_run

    ids = list(dict.fromkeys(t.id for t in load(servers_file)[0]))
    groups = [ids[i:i + group_size] for i in range(0, len(ids), group_size)]
    futures = [crawl_task.submit(servers_file, lake, offline, recapture, servers=g, writer=writer,
                                 run=flow_run.id) for g in groups]
    totals = {}
    for future in futures:
        for key, value in future.result().items():
            totals[key] = totals.get(key, 0) + value
    return totals


@flow(name="mcpdelta-crawl")
def crawl_flow(servers_file: str, lake: str = "lake", offline: bool = False, recapture: bool = False,
               fan_out: bool = False, crawl_group: int = 1):
    with Lake(lake).writing() as held:  # one writer per lake; the flow holds it for its tasks
        return _crawl(servers_file, lake, offline, recapture, fan_out, _writer(held), crawl_group)


def _diff(lake, policy, pairs, since, fan_out, writer=None, group_size=50):
    """Diff every pending pair. ``fan_out`` submits one task per group of
    servers to the running flow's task runner (a cluster); otherwise one task
    uses this machine's cores."""
    from mcpdelta.survey.diffstage import servers_with_pending_pairs

    if not fan_out:
        return diff_task(lake, policy, pairs, since, writer=writer)
    Lake(lake).remove_orphans()
    servers = servers_with_pending_pairs(Lake(lake), policy, pairs, since)
    groups = [servers[i:i + group_size] for i in range(0, len(servers), group_size)]
    futures = [diff_task.submit(lake, policy, pairs, since, servers=g, workers=1, writer=writer)
               for g in groups]
    totals = {"pairs": 0, "pairs_cached": 0, "pairs_diffed": 0, "errors": 0}
    for future in futures:
        for key, value in future.result().items():
            totals[key] += value
    return totals


@flow(name="mcpdelta-diff")
def diff_flow(lake: str = "lake", config_file: str | None = None, pairs: str = "consecutive",
              since: str | None = None, fan_out: bool = False, diff_group: int = 50):
    _, policy = _policy(config_file)
    with Lake(lake).writing() as held:
        return _diff(lake, policy, pairs, since, fan_out, _writer(held), diff_group)


@flow(name="mcpdelta-judge")
def judge_flow(lake: str = "lake", config_file: str | None = None):
    with Lake(lake).writing() as held:
        return judge_task(lake, config_file, _writer(held))


@flow(name="mcpdelta-survey")
def survey_flow(servers_file: str | None = None, lake: str = "lake", config_file: str | None = None,
                pairs: str = "consecutive", since: str | None = None, crawl: bool = True,
                offline: bool = False, report_dir: str | None = None, fan_out: bool = False,
                recapture: bool = False, crawl_group: int = 1, diff_group: int = 50, wait: bool = False):
    """The survey as ``mcpdelta survey`` runs it: the same stages, the same
    summary in the run's log, the same ``runs`` row in the lake. A sweep
    captures only the releases the lake does not hold yet, unless
    ``recapture``. ``fan_out`` spreads the crawl (``crawl_group`` servers a
    task) and the diff (``diff_group`` servers a task) over the task
    runner's workers. ``wait``: if another writer holds the lake, wait for
    it (else fail at once)."""
    import datetime as dt
    import time

    from prefect import get_run_logger

    from mcpdelta.commands.survey import text
    from mcpdelta.survey import DEMO_SERVERS, record_run, survey_summary

    started, clock = dt.datetime.now(dt.timezone.utc), time.perf_counter()
    timings = {"crawl_s": 0.0, "diff_s": 0.0, "judge_s": 0.0, "report_s": 0.0}
    _, policy = _policy(config_file)
    with Lake(lake).writing(wait) as held:  # one writer per lake; the flow holds it for its tasks
        writer = _writer(held)
        t = time.perf_counter()
        crawled = _crawl(str(servers_file or DEMO_SERVERS), lake, offline, recapture, fan_out, writer,
                         crawl_group) if crawl else None
        timings["crawl_s"] = time.perf_counter() - t
        t = time.perf_counter()
        diffed = _diff(lake, policy, pairs, since, fan_out, writer, diff_group)
        timings["diff_s"] = time.perf_counter() - t
        t = time.perf_counter()
        judged = judge_task(lake, config_file, writer)
        timings["judge_s"] = time.perf_counter() - t
        t = time.perf_counter()
        reported = report_task(lake, policy, report_dir)
        drift = drift_task(lake, policy, report_dir)
        timings["report_s"] = time.perf_counter() - t
        timings["total_s"] = time.perf_counter() - clock
        errors = diffed["errors"] + (crawled["failed"] if crawled else 0)
        summary = survey_summary(Lake(lake).connect(), diffed, {"changes": reported["changes"],
                                                                 "html": reported["report"]},
                                 errors, timings, judged, crawled["skipped"] if crawled else 0)
        record_run(Lake(lake), started, summary)
    logger = get_run_logger()
    for line in text(summary, {"breaking": [], "rules": []}).splitlines():
        logger.info(line)  # the CLI's summary: counts, timings, and last the report path
    return {"crawl": crawled, "diff": diffed, "judge": judged, "drift": drift, **reported,
            "summary": summary}


@task(name="capture-server", cache_policy=NO_CACHE)
def capture_task(runner, server_id):
    """Both capture passes of one server (its done marker at the end);
    False when the run was stopped first (a stop is no task failure)."""
    from mcpdelta.survey.passes import Stopped

    try:
        runner.capture(server_id)
    except Stopped:
        return False
    return True


@flow(name="mcpdelta-capture")
def capture_flow(servers_file: str, out: str, concurrency: int = 2, sdk_check: str | None = None):
    """Both capture passes of every server not yet done into ``out``, one
    server at a time (``concurrency`` of its releases at once), until none
    is left or the run is stopped. A server whose crawl ends in error is
    left not done (a later run tries it again) and the run goes on."""
    from prefect import get_run_logger

    import signal
    import threading

    from mcpdelta.survey.passes import Runner, stop_all

    logger = get_run_logger()
    runner = Runner(servers_file, out, concurrency, sdk_check)
    if threading.current_thread() is threading.main_thread():
        # in place of the flow engine's handler, which would end the run at
        # once and leave the running crawl to finish on its own
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, stop_all)
    done, errors = [], []
    while not runner.stopped:
        todo = [i for i in runner.pending() if i not in errors]
        if not todo:
            break
        try:
            if not capture_task(runner, todo[0]):
                break
            done.append(todo[0])
        except InputError as exc:
            logger.error(str(exc))
            errors.append(todo[0])
    left = len(runner.pending())
    logger.info(f"{len(done)} server(s) captured, {len(errors)} in error, {left} left"
                + (" (stopped: run the same command again to go on)" if runner.stopped else ""))
    return {"servers": len(done), "errors": errors, "left": left, "stopped": runner.stopped}


def task_runner(kind: str, address: str | None):
    """The task runner for ``--task-runner``: local threads by default, or an
    existing Dask / Ray cluster (prefect-dask / prefect-ray must be installed)."""
    if kind == "local":
        from prefect.task_runners import ThreadPoolTaskRunner

        return ThreadPoolTaskRunner()
    if kind == "dask":
        from prefect_dask import DaskTaskRunner

        return DaskTaskRunner(address=address) if address else DaskTaskRunner(
            cluster_kwargs={"dashboard_address": ":0"})
    if kind == "ray":
        from prefect_ray import RayTaskRunner

        return RayTaskRunner(address=address)
    raise ValueError(f"unknown task runner {kind!r}")


def main(argv=None):
    parser = Parser(prog="python -m mcpdelta.flows.survey", description=__doc__.splitlines()[0])
    parser.add_argument("--servers")
    parser.add_argument("--lake", default="lake")
    parser.add_argument("--config")
    parser.add_argument("--pairs", choices=PAIR_MODES, default="consecutive")
    parser.add_argument("--since")
    parser.add_argument("--no-crawl", action="store_true")
    parser.add_argument("--offline", action="store_true")
    parser.add_argument("--recapture", action="store_true",
                        help="capture every release of a sweep again, even those the lake holds")
    parser.add_argument("--report")
    parser.add_argument("--task-runner", choices=("local", "dask", "ray"), default="local")
    parser.add_argument("--address", help="scheduler address of an existing Dask or Ray cluster")
    parser.add_argument("--crawl-group", type=int, default=1, metavar="N",
                        help="servers a crawl task captures, on a cluster (default: 1)")
    parser.add_argument("--diff-group", type=int, default=50, metavar="N",
                        help="servers a diff task diffs, on a cluster (default: 50)")
    parser.add_argument("--wait", action="store_true",
                        help="if another mcpdelta is writing the lake, wait for it (default: fail at once)")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--captures", metavar="DIR",
                        help="crawl both capture passes of --servers into DIR (no lake, no diff), resumably")
    parser.add_argument("--concurrency", type=int, default=2, metavar="N",
                        help="with --captures: releases captured at once (default: 2)")
    parser.add_argument("--sdk-check", metavar="SCRIPT",
                        help="with --captures: bench/sdk_check.py, run between a server's two passes")
    args = parser.parse_args(argv)
    if args.crawl_group < 1 or args.diff_group < 1:
        parser.error("--crawl-group and --diff-group must be at least 1")
    if args.captures:
        return _captures(parser, args)
    try:
        runner = task_runner(args.task_runner, args.address)
    except ModuleNotFoundError as exc:  # the runner's package: one line naming what brings it
        line = missing_extra(f"python -m mcpdelta.flows.survey --task-runner {args.task_runner}", exc)
        if line is None and exc.name == "prefect_ray":  # no extra: Ray is a cluster's own install
            line = ("mcpdelta: error: python -m mcpdelta.flows.survey --task-runner ray needs prefect-ray "
                    "(not installed): pip install prefect-ray")
        if line is None:
            raise
        print(line, file=sys.stderr)
        return 2
    run = survey_flow.with_options(task_runner=runner)
    # the fan-out only pays on a cluster; locally one task uses every core
    fan_out = args.task_runner != "local"
    try:
        # the lake's lock is taken before the flow run starts (the flow takes
        # it again, re-entrant): a lake another writer holds is one line
        with Lake(args.lake).writing(args.wait):
            result = run(servers_file=args.servers, lake=args.lake, config_file=args.config,
                         pairs=args.pairs, since=args.since, crawl=not args.no_crawl,
                         offline=args.offline, report_dir=args.report, fan_out=fan_out,
                         recapture=args.recapture, crawl_group=args.crawl_group,
                         diff_group=args.diff_group, wait=args.wait)
    except InputError as exc:  # the CLI's rule: one line, exit 2
        print(f"mcpdelta: error: {exc}", file=sys.stderr)
        return 2
    if args.format == "json":
        print(json.dumps(result["summary"], indent=2))
    else:
        print(result)
    return 0


def _captures(parser, args) -> int:
    """``--captures``: the capture flow (stopped cleanly by SIGTERM or SIGINT)."""
    import signal

    if not args.servers or args.concurrency < 1:
        parser.error("--captures needs --servers, and --concurrency must be at least 1")
    try:
        result = capture_flow(servers_file=args.servers, out=args.captures, concurrency=args.concurrency,
                              sdk_check=args.sdk_check)
    except InputError as exc:
        print(f"mcpdelta: error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(result) if args.format == "json" else
          f"{result['servers']} server(s) captured, {len(result['errors'])} in error, {result['left']} left"
          + ("; stopped: the same command goes on from here" if result["stopped"] else ""))
    return 128 + signal.SIGTERM if result["stopped"] else 0


if __name__ == "__main__":  # Dask with worker processes needs this guard
    sys.exit(main())
