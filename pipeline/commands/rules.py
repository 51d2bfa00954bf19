"""``mcpdelta rules``: the live catalog, as JSON or as the Markdown reference."""

import sys


def add_arguments(parser):
    parser.add_argument("--format", choices=("text", "json", "markdown"), default="text")


def run(args) -> int:
    from pipeline.engine.catalog import RULES
    from pipeline.report.rules_doc import rules_markdown

    if args.format == "json":
        import json

        sys.stdout.write(json.dumps([r.as_json() for r in RULES.values()], indent=2) + "\n")
    elif args.format == "markdown":
        sys.stdout.write(rules_markdown())
    else:
        for rule in RULES.values():
            severity = "DOCUMENTATION|POTENTIALLY_BREAKING" if rule.prose else rule.severity
            sys.stdout.write(f"{rule.id:<42} {severity}\n")
    return 0
