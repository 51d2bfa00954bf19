"""``mcpdelta ingest DIR --lake LAKE``: snapshots on disk into the lake;
exit 1 when a capture could not be stored (an error row)."""

from mcpdelta.commands import options


def add_arguments(parser):
    parser.add_argument("folder", metavar="DIR", help="DIR/<server-id>/<version>.json")
    options.add_lake(parser)
    options.add_wait(parser)


def run(args) -> int:
    from mcpdelta import progress
    from mcpdelta.lake import Lake
    from mcpdelta.lake.ingest import rows_from_folder, store

    lake = Lake(args.lake)
    with progress.display():  # stderr, on a terminal only
        progress.stage("read", args.folder)
        rows, attempts = rows_from_folder(args.folder)
        progress.stage("store", f"{len(rows)} captures into {args.lake}")
        with lake.writing(args.wait):
            counts = store(lake, rows, attempts)
        progress.finish(f"{counts['added']} new, {counts['errors']} errors")
    from mcpdelta.safe import visible  # a folder's names and files are anyone's

    errors = counts["errors"]
    print(visible(f"ingested {counts['rows']} capture{'' if counts['rows'] == 1 else 's'} from {args.folder}: "
                  f"{counts['added']} new, {counts['rows'] - counts['added']} already in {args.lake}, "
                  f"{errors} error{'' if errors == 1 else 's'}"))
    for row in counts["failed"]:  # a re-run names only errors it recorded itself
        print(visible(f"  {row['server_id']} {row['version']}: {row['error']}"))
    return 1 if errors else 0  # as crawl: a capture that could not be stored fails the run
