"""Command-line options several commands share, each declared once."""


def add_lake(parser):
    """``--lake``: where a command reads or writes the survey's lake."""
    parser.add_argument("--lake", metavar="LAKE", default="lake",
                        help="lake folder, file:// URI or s3://BUCKET/PREFIX (default: ./lake)")
