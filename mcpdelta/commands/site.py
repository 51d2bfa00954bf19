"""``mcpdelta site --lake LAKE --out DIR``: the survey as a static site.

An index of servers, a page per server and per rule, the method and the
study's figures beside their SQL (``mcpdelta.site``); ``--data`` adds the
lake's tables as Parquet files under DIR/data/v1/ (docs/dataset.md).
Nothing is diffed: the site shows what the lake's last survey found.
"""

import sys
import time

from mcpdelta.commands import options

HELP = "write the survey as a static site (servers, rules, figures; --data: the dataset as Parquet)"


def add_arguments(parser):
    options.add_lake(parser)
    parser.add_argument("--out", metavar="DIR", required=True, help="the site's folder")
    parser.add_argument("--servers", metavar="FILE",
                        help="the servers file the lake was crawled from: each server's registry and package")
    parser.add_argument("--downloads", metavar="TSV",
                        help="tab-separated registry, package (or name), downloads (or popularity)")
    parser.add_argument("--data", action="store_true",
                        help="also write the lake's tables as DIR/data/v1/<table>.parquet")


def run(args) -> int:
    import pathlib

    from mcpdelta import progress
    from mcpdelta.errors import InputError
    from mcpdelta.site import build
    from mcpdelta.survey.queries import open_lake

    out = pathlib.Path(args.out)
    if out.exists() and not out.is_dir():
        raise InputError(str(out), "is a file; --out names a folder")
    for flag, path in (("--servers", args.servers), ("--downloads", args.downloads)):
        if path and not pathlib.Path(path).is_file():
            raise InputError(str(path), f"no such file ({flag})")
    clock = time.perf_counter()
    con = open_lake(args.lake)
    with progress.display():  # stderr, on a terminal only
        facts = build(con, out, servers_file=args.servers, downloads=args.downloads, data=args.data,
                      on_stage=progress.stage)
    sys.stdout.write(f"site: {facts['pages']} pages, {facts['bytes'] / 1e6:.1f} MB "
                     f"(largest {facts['largest']}, {facts['largest_bytes'] / 1e3:.0f} kB), "
                     f"{len(facts['data'])} data files, {time.perf_counter() - clock:.1f} s\n")
    sys.stdout.write(f"{out / 'index.html'}\n")
    return 0
