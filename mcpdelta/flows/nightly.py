"""The nightly deployment: the survey flow on a cron schedule.

Cron schedules need a running Prefect API (the temporary one Prefect starts
for a single flow call never fires them):

    .venv/bin/prefect server start                      # terminal 1
    PREFECT_API_URL=http://127.0.0.1:4200/api \\
        .venv/bin/python -m mcpdelta.flows.nightly --servers data/servers/reference.yaml --lake lake
                                                        # terminal 2: serves until stopped
"""

from mcpdelta.cli import Parser
from mcpdelta.flows.survey import survey_flow

NIGHTLY_CRON = "0 3 * * *"  # 03:00 UTC


def deployment(servers_file=None, lake="lake", config_file=None, cron=NIGHTLY_CRON, recapture=False):
    """The deployment object; building it needs no server. Each run installs
    and captures only the releases published since the lake last captured
    them (``recapture``: every release, every run)."""
    return survey_flow.to_deployment(
        name="nightly",
        cron=cron,
        parameters={"servers_file": servers_file, "lake": lake, "config_file": config_file,
                    "recapture": recapture},
        tags=["mcpdelta", "nightly"],
        description="Capture every new release and every live server, diff every new version pair, report.",
    )


def main(argv=None):
    from prefect import serve

    parser = Parser(prog="python -m mcpdelta.flows.nightly")
    parser.add_argument("--servers")
    parser.add_argument("--lake", default="lake")
    parser.add_argument("--config")
    parser.add_argument("--cron", default=NIGHTLY_CRON)
    parser.add_argument("--recapture", action="store_true",
                        help="capture every release again on every run (default: only new ones)")
    args = parser.parse_args(argv)
    serve(deployment(args.servers, args.lake, args.config, args.cron, args.recapture))


if __name__ == "__main__":
    main()
