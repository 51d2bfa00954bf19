"""``mcpdelta survey``: the main job. Crawl, lake, batch diff, report.

With no arguments it surveys the embedded demo servers (``data/``) into
``./lake``, offline. ``--no-crawl`` surveys what the lake already holds.
"""

import sys

from mcpdelta.commands import options
from mcpdelta.survey.diffstage import PAIR_MODES


def add_arguments(parser):
    parser.add_argument("--servers", metavar="FILE",
                        help="servers.yaml or registry server.json (default: the embedded demo servers)")
    options.add_lake(parser)
    parser.add_argument("--no-crawl", action="store_true", help="survey the lake as it is")
    parser.add_argument("--pairs", choices=PAIR_MODES, default="consecutive")
    parser.add_argument("--since", metavar="DATE", help="only pairs whose newer capture is this recent (ISO date)")
    options.add_config(parser)
    options.add_profile(parser)
    options.add_severity_override(parser)
    parser.add_argument("--report", metavar="DIR", help="report folder (default: next to the lake)")
    options.add_format(parser)
    options.add_workers(parser)
    options.add_witness(parser, "build witnesses for schema changes at or above this severity")
    parser.add_argument("--offline", action="store_true",
                        help="no registry look-ups or installs for version sweeps")
    parser.add_argument("--recapture", action="store_true",
                        help="capture every release of a version sweep again, even those the lake holds "
                             "(default: only releases the lake holds no capture of)")
    options.add_allow_destructive_probes(parser)
    options.add_wait(parser)


def run(args) -> int:
    import datetime as dt
    import json

    from mcpdelta import progress
    from mcpdelta.config import find_default, load_config
    from mcpdelta.engine.policy import Policy, parse_override, parse_severity
    from mcpdelta.errors import InputError
    from mcpdelta.lake import Lake
    from mcpdelta.survey import run_survey

    config = load_config(args.config or find_default())
    policy = Policy(config.profile, config.fail_on, config.overrides, config.ignores,
                    cli_profile=args.profile,
                    cli_overrides=dict(parse_override(t) for t in args.severity_override),
                    witness=parse_severity(args.witness, "--witness", allow_never=True))
    since = None
    if args.since:
        try:
            since = dt.datetime.fromisoformat(args.since)
        except ValueError:
            raise InputError("--since", f"not an ISO date: {args.since!r}") from None
        if since.tzinfo is None:
            since = since.replace(tzinfo=dt.timezone.utc)
    if args.recapture and args.no_crawl:
        raise InputError("--recapture", "has nothing to capture with --no-crawl")
    if args.workers is not None and args.workers < 1:
        raise InputError("--workers", "must be at least 1")
    offline = args.offline or args.servers is None  # the embedded demo needs no registry
    lake = Lake(args.lake)
    if args.no_crawl:
        lake.require()  # nothing to survey: never create an empty lake
    with progress.display(), lake.writing(args.wait):  # progress on stderr, on a terminal only
        summary = run_survey(lake, policy, config, servers_file=args.servers,
                             crawl=not args.no_crawl, pairs=args.pairs, since=since,
                             report_dir=args.report, workers=args.workers, offline=offline,
                             recapture=args.recapture, allow_destructive_probes=args.allow_destructive_probes)
    facts = summary.pop("facts")
    if args.format == "json":
        sys.stdout.write(json.dumps(summary, indent=2) + "\n")
    else:
        sys.stdout.write(text(summary, facts))
    return 0


SHOWN_RELEASES = 10  # releases with breaking changes named in the text summary
SHOWN_RULES = 15  # rules of the rule frequencies named in the text summary


def _count(n: int, word: str) -> str:
    """``1 server``, ``2 servers``."""
    return f"{n} {word}{'' if n == 1 else 's'}"


def text(summary, facts) -> str:
    out = [f"surveyed {_count(summary['servers'], 'server')}, {_count(summary['captures'], 'capture')}, "
           f"{_count(summary['pairs'], 'version pair')} ({summary['pairs_diffed']} diffed, "
           f"{summary['pairs_cached']} cached), {_count(summary['errors'], 'error')}"]
    if summary.get("skipped"):
        out.append(f"{summary['skipped']} releases already held in the lake, not captured again "
                   "(--recapture to capture them)")
    counts = ", ".join(f"{n} {s}" for s, n in summary["changes"].items() if n)
    out.append(f"changes: {counts or 'none'}")
    out += _breaking_summary(facts["breaking"], summary["report"])
    if facts["rules"]:
        out.append("rule frequencies:")
        for r in facts["rules"][:SHOWN_RULES]:
            out.append(f"  {r['changes']:>5}  {r['rule']:<40} {r['severity']}")
        if len(facts["rules"]) > SHOWN_RULES:
            out.append(f"  +{_count(len(facts['rules']) - SHOWN_RULES, 'more rule')} (every rule: the report)")
    t = summary["timings"]
    out.append(f"timings: crawl {t['crawl_s']:.1f}s, diff {t['diff_s']:.1f}s, "
               f"report {t['report_s']:.1f}s, total {t['total_s']:.1f}s")
    out.append(f"report: {summary['report']}")
    return "\n".join(out) + "\n"


def _breaking_summary(breaking, report) -> list:
    """The releases that broke most, each with its count and rules; every
    change is in the report (and ``mcpdelta diff`` of the pair)."""
    from mcpdelta.safe import visible  # names come from the servers

    if not breaking:
        return []
    releases = {}
    for b in breaking:
        rules = releases.setdefault((b["server_id"], b["old_version"], b["new_version"]), {})
        rules[b["rule"]] = rules.get(b["rule"], 0) + 1
    servers = len({key[0] for key in releases})
    out = [f"breaking changes: {len(breaking)} in {_count(len(releases), 'release')} of "
           f"{_count(servers, 'server')}, most first:"]
    ranked = sorted(releases, key=lambda k: -sum(releases[k].values()))  # stable: the query's order
    for key in ranked[:SHOWN_RELEASES]:
        rules = sorted(releases[key].items(), key=lambda item: (-item[1], item[0]))
        named = ", ".join(f"{rule} {n}" for rule, n in rules[:3])
        more = f", +{len(rules) - 3} more rule{'' if len(rules) == 4 else 's'}" if len(rules) > 3 else ""
        out.append(visible(f"  {key[0]} {key[1]} -> {key[2]}: {sum(releases[key].values())} ({named}{more})"))
    if len(ranked) > SHOWN_RELEASES:
        out.append(f"  +{_count(len(ranked) - SHOWN_RELEASES, 'more release')}")
    out.append(f"  every change: {report} (or mcpdelta diff of the two captures)")
    return out
