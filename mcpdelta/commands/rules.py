"""``mcpdelta rules [RULE...]``: the live catalog, as JSON or as the Markdown
reference; with RULE (an id or a glob such as ``tool.input.*``) each rule
explained with an example pair and its output."""

import sys

from mcpdelta.commands import options


def add_arguments(parser):
    parser.add_argument("rule", nargs="*", metavar="RULE",
                        help="explain these rules (ids or globs: tool.input.*): severity, direction, "
                             "what fires it, what to do, an example pair and its output")
    options.add_format(parser, choices=("text", "json", "markdown"))


def run(args) -> int:
    import json

    from mcpdelta.engine.catalog import RULES
    from mcpdelta.errors import InputError

    if args.rule:
        from mcpdelta.report.rule_help import explain, explain_json, matching

        chosen = matching(args.rule)
        if args.format == "json":
            sys.stdout.write(json.dumps([explain_json(r) for r in chosen], indent=2, ensure_ascii=False) + "\n")
        elif args.format == "markdown":
            raise InputError("--format markdown", "is the whole reference; with RULE use text or json")
        else:
            sys.stdout.write("\n".join(explain(r) for r in chosen))
        return 0
    if args.format == "json":
        sys.stdout.write(json.dumps([r.as_json() for r in RULES.values()], indent=2) + "\n")
    elif args.format == "markdown":
        from mcpdelta.report.rules_doc import rules_markdown

        sys.stdout.write(rules_markdown())
    else:
        for rule in RULES.values():
            severity = "DOCUMENTATION|POTENTIALLY_BREAKING" if rule.prose else rule.severity
            sys.stdout.write(f"{rule.id:<42} {severity}\n")
        sys.stdout.write("\nmcpdelta rules RULE explains one (globs too: 'tool.input.*').\n")
    return 0
