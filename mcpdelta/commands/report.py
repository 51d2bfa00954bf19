"""``mcpdelta report --lake LAKE``: the survey's pictures, without Jupyter.

``--format html`` (the default) writes the single-file survey report
(``survey.html`` beside ``survey.md``) carrying every figure; ``--format
png`` writes each figure as ``<name>.png``. Nothing is diffed: the report
shows what the lake's last survey (its most recently diffed engine and
policy) found.
"""

import sys

from mcpdelta.commands import options

HELP = "write the survey report with every plot (single-file HTML) or each plot as a PNG"


def add_arguments(parser):
    options.add_lake(parser)
    parser.add_argument("--out", metavar="DIR",
                        help="output folder (default: next to the lake, <lake>-report)")
    parser.add_argument("--format", choices=("html", "png"), default="html",
                        help="html: one self-contained page (default); png: one image per plot")
    parser.add_argument("--server", metavar="ID", action="append", default=[],
                        help="only this server (an id or a glob such as 'acme-*'; repeatable)")
    parser.add_argument("--plot", metavar="NAME", action="append", default=[],
                        help="only this plot (repeatable; default: all)")


def run(args) -> int:
    from mcpdelta import progress
    from mcpdelta.errors import InputError
    from mcpdelta.lake import Lake
    from mcpdelta.survey import default_report_dir, report_folder, write_report_at
    from mcpdelta.survey.documents import gather
    from mcpdelta.survey.queries import open_lake, scope_of
    from mcpdelta.survey.report import ALL_PLOTS, render, save_png

    lake = Lake(args.lake)
    lake.require()
    unknown = [p for p in args.plot if p not in ALL_PLOTS]
    if unknown:
        raise InputError("--plot", f"unknown plot {unknown[0]!r}; one of {', '.join(ALL_PLOTS)}")
    plots = tuple(p for p in ALL_PLOTS if not args.plot or p in args.plot)
    try:
        con = open_lake(args.lake, servers=args.server or None)
    except ValueError as exc:
        raise InputError("--server", str(exc)) from None
    out = args.out or default_report_dir(lake)
    engine, policy_id = scope_of(con)
    if args.format == "html":
        with progress.display():  # stderr, on a terminal only
            progress.stage("report", f"{len(plots)} plots")
            facts = write_report_at(con, out, engine, policy_id, plots=plots)
        sys.stdout.write(f"report: {facts['html']}\n")
        return 0
    written = []
    with progress.display(), report_folder(out) as (folder, named):
        folder.mkdir(parents=True, exist_ok=True)
        progress.stage("query", "the lake")
        facts = gather(con, plots)
        progress.stage("plots", f"{len(plots)} PNG files")
        for i, name in enumerate(plots):
            written.append(named(save_png(render(name, facts), folder / f"{name}.png")))
            progress.update(name, i + 1, len(plots))
    sys.stdout.write("".join(f"{path}\n" for path in written))
    return 0
