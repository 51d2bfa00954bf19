"""``mcpdelta study SERVERS --out DIR``: a survey written up.

Two capture passes of every server and version, the survey over each
release step and each release against the latest, and DIR/README.md with
its figures (``mcpdelta/survey/study.py``)."""

import sys

from mcpdelta.commands import options


def add_arguments(parser):
    parser.add_argument("servers", metavar="SERVERS", help="servers.yaml or registry server.json")
    parser.add_argument("--out", metavar="DIR", required=True, help="where README.md and its figures go")
    parser.add_argument("--work", metavar="DIR",
                        help="an empty folder for the capture passes and the lakes (default: a new "
                             "temporary folder, printed at the end: the lakes stay for notebooks); "
                             "s3://BUCKET/PREFIX puts the lakes there")
    parser.add_argument("--cache", metavar="DIR", help="package cache (default: the user cache)")
    parser.add_argument("--offline", action="store_true",
                        help="pass A too installs nothing: every version from the package cache")
    parser.add_argument("--captures", metavar="PASS", nargs="+",
                        help="crawl folders of passes already run (pass A first): no capture")
    parser.add_argument("--population", metavar="TSV",
                        help="the classification the servers file was chosen from (registry, package, class, "
                             "evidence, reason_if_excluded): the page gains its Population section")
    parser.add_argument("--sdk-check", metavar="TSV",
                        help="bench/sdk_check.py's result: the latest releases listed again with the official "
                             "SDK client, reported in the page's method")
    parser.add_argument("--recount", metavar="JSON",
                        help="bench/recount.py's second reading of the captures: the page sets its figures "
                             "beside the study's own")
    parser.add_argument("--title", help='the page\'s subject: "How often TITLE broke their callers" '
                                        '(default: the surveyed MCP servers)')
    options.add_config(parser)
    options.add_workers(parser)
    options.add_format(parser)
    options.add_allow_destructive_probes(parser)
    options.add_wait(parser)


def run(args) -> int:
    import json
    import shlex
    import tempfile

    from mcpdelta import progress
    from mcpdelta.config import find_default, load_config
    from mcpdelta.engine.policy import Policy
    from mcpdelta.errors import InputError
    from mcpdelta.lake import Lake
    from mcpdelta.survey.study import check_folders, run_study

    config = load_config(args.config or find_default())
    policy = Policy(config.profile, config.fail_on, config.overrides, config.ignores)
    if args.workers is not None and args.workers < 1:
        raise InputError("--workers", "must be at least 1")
    work = args.work or tempfile.mkdtemp(prefix="mcpdelta-study-")
    given = [(flag, value) for flag, value in (("--population", args.population), ("--sdk-check", args.sdk_check),
                                               ("--recount", args.recount), ("--title", args.title),
                                               ("--config", args.config)) if value]
    command = "mcpdelta study " + shlex.join(
        [args.servers, "--out", args.out] + [part for pair in given for part in pair])
    check_folders(work, args.out)  # before its lakes are locked (the lock file makes the folder)
    with progress.display(), \
            Lake(f"{work}/lake").writing(args.wait), Lake(f"{work}/lake-latest").writing(args.wait):
        summary = run_study(args.servers, args.out, work=work, policy=policy, config=config,
                            cache=args.cache, offline=args.offline, captures=args.captures,
                            workers=args.workers, command=command, population=args.population,
                            sdk_check=args.sdk_check, title=args.title, recount=args.recount,
                            allow_destructive_probes=args.allow_destructive_probes)
    summary["work"] = str(work)
    if args.format == "json":
        sys.stdout.write(json.dumps(summary, indent=2) + "\n")
    else:
        t = summary["timings"]
        sys.stdout.write(f"wrote {summary['readme']} ({t['total_s']} s before the write-up: capture "
                         f"{t['capture_s']} s, diff {t['diff_s']} s); lakes in {work}/lake and "
                         f"{work}/lake-latest\n")
    return 0
