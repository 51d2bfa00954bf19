"""``mcpdelta diff OLD NEW``: classify every change; exit 0 / 1 / 2.

The verdict is the policy's, then the gate's (``mcpdelta.gate.verdict``): approved
breaks never fail, ``--fail-on-security`` fails on a judge's security flag,
and on a prose change no judge answered about."""

import gc
import sys

from mcpdelta.commands import options
from mcpdelta.report import FORMATS


def add_arguments(parser):
    side = ("manifest file (- for stdin), git:REV:PATH (REV may be merge-base(REF)), "
            "or live:SERVER_ID with --servers")
    parser.add_argument("old", metavar="OLD", help=f"old {side}")
    parser.add_argument("new", metavar="NEW", help=f"new {side}")
    parser.add_argument("--servers", metavar="FILE", help="servers file that live:SERVER_ID sides name")
    options.add_allow_destructive_probes(
        parser, help="live sides: let probes call tools annotated destructiveHint: true or not "
                     "annotated readOnlyHint: true (refused by default)")
    parser.add_argument("--format", choices=FORMATS, default="text", metavar="FORMAT",
                        help=", ".join(FORMATS) + " (default: text)")
    options.add_config(parser, if_present=True)
    options.add_profile(parser)
    options.add_fail_on(parser)
    options.add_severity_override(parser, help="repeatable")
    options.add_semantic(parser)
    parser.add_argument("--show", metavar="SEVERITY", default="DOCUMENTATION",
                        help="text and markdown: list changes at or above this severity "
                             "(display only; --fail-on decides the exit status)")
    parser.add_argument("--output", "-o", metavar="FILE", help="write the report to FILE instead of stdout")
    parser.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    options.add_witness(parser, "build a witness (a concrete call or result proving the change) for "
                                "schema changes at or above this severity")
    parser.add_argument("--witness-candidates", type=int, default=200, metavar="N",
                        help="candidates the bounded search may try per change (default: 200)")
    options.add_gate(parser)


def run(args) -> int:
    # A diff keeps nearly all it allocates until it ends: the collector's
    # young-generation passes (some 20 on a 25-tool pair, a few hundred
    # objects freed in all) are about 3 ms of a 70 ms process. Rarer for the
    # run, as they were after it (callers in the same process).
    threshold = gc.get_threshold()
    gc.set_threshold(50_000, *threshold[1:])
    try:
        return _run(args)
    finally:
        gc.set_threshold(*threshold)


def _run(args) -> int:
    from mcpdelta.config import find_default, load_config
    from mcpdelta.gate.baselines import read_side
    from mcpdelta.engine.policy import Policy, parse_override, parse_severity
    from mcpdelta.engine.result import DiffResult
    from mcpdelta.errors import InputError
    from mcpdelta.report import render

    if args.old == "-" and args.new == "-":
        raise InputError("OLD and NEW", "only one of them can be read from standard input")
    config = load_config(args.config or find_default())
    cli_overrides = dict(parse_override(text) for text in args.severity_override)
    show = parse_severity(args.show, "--show")
    fail_on = parse_severity(args.fail_on, "--fail-on", allow_never=True) if args.fail_on else None
    policy = Policy(config.profile, config.fail_on, config.overrides, config.ignores,
                    cli_profile=args.profile, cli_fail_on=fail_on, cli_overrides=cli_overrides,
                    witness=parse_severity(args.witness, "--witness", allow_never=True))
    sides = {"servers_file": args.servers, "max_bytes": config.max_bytes, "max_depth": config.max_depth,
             "allow_destructive_probes": args.allow_destructive_probes}
    old, new = read_side(args.old, **sides), read_side(args.new, **sides)
    result = DiffResult(old, new, policy, old_source=args.old, new_source=args.new)
    if args.witness_candidates < 1:
        raise InputError("--witness-candidates", "must be at least 1")
    from mcpdelta.witness import attach_witnesses  # proofs: an unproven BREAKING claim is demoted

    attach_witnesses(result, min_severity=policy.witness, max_candidates=args.witness_candidates)
    if args.semantic:
        from mcpdelta.judge import annotate  # advisory notes; severities untouched

        annotate(result, config)
    approvals = load_approvals(args)
    from mcpdelta.gate.verdict import close

    close(result, approvals, fail_on_security=args.fail_on_security)
    colour = args.color == "always" or (args.color == "auto" and not args.output and sys.stdout.isatty())
    text = render(args.format, result, colour=colour, show=show)
    if args.output:
        write_output(args.output, text)
    else:
        sys.stdout.write(text)
    code = finish_approvals(args, approvals, [result])
    code = result.exit_code if code is None else code
    return max(code, security_unanswered(args, [result]))


def security_unanswered(args, results) -> int:
    """1 when ``--fail-on-security`` needed a judge's answer about a prose
    change and none came (no ``--semantic``, no judges, or each failed): the
    gate it asked for did not run, which is not a pass. Said on stderr."""
    if not args.fail_on_security:
        return 0
    from mcpdelta.judge.jury import is_judged

    unanswered = total = 0
    for result in results:
        for change in result.changes:
            if change.suppressed or not is_judged(change):
                continue
            total += 1
            unanswered += not any(isinstance(n, dict) and n.get("judge") != "jury"
                                  and n.get("verdict") not in ("judge_error", "budget_exhausted")
                                  for n in change.advisory)
    if not unanswered:
        return 0
    why = "" if getattr(args, "semantic", False) else " (judges are asked with --semantic)"
    print(f"mcpdelta: --fail-on-security: no judge answered about {unanswered} of {total} prose "
          f"change{'s' if total != 1 else ''}{why}; exit 1: a required judge did not answer", file=sys.stderr)
    return 1


def load_approvals(args):
    """The approvals file the run reads (and ``--approve`` writes)."""
    import os

    from mcpdelta.config import APPROVALS_NAME
    from mcpdelta.errors import InputError

    if args.reason is not None and not args.approve:
        raise InputError("--reason", "goes with --approve")
    if not (args.approvals or args.approve or os.path.lexists(APPROVALS_NAME)):
        return None  # the usual run pays nothing for approvals
    from mcpdelta.gate import approvals as A

    return A.load(args.approvals, create=args.approve)


def finish_approvals(args, approvals, results) -> int | None:
    """Stale entries on stderr; with ``--approve``, the new entries written
    and each named on stderr. Then the run exits 0, its job done, unless an
    expired approval still fails it (renewed by hand, never by --approve)."""
    if approvals is None:
        return None
    from mcpdelta.gate import approvals as A
    from mcpdelta.safe import visible

    for line in A.stale_lines(approvals):
        print(f"mcpdelta: {line}", file=sys.stderr)
    if not args.approve:
        return None
    pending = [item for result in results for item in A.to_approve(result)]
    expired = sum(1 for r in results for m in r.gate.marks.values() if m.expired)
    if pending:
        A.append(approvals, pending, args.reason)
    for change, fp, server in pending:  # said once the file holds them
        print(visible(f"mcpdelta: --approve: approved {fp}: {change.severity} {change.rule}"
                      + (f" ({server})" if server else "") + f": {change.message}"), file=sys.stderr)
    todo = "" if args.reason else "; give each a reason"
    print(f"mcpdelta: --approve: {len(pending)} approval{'s' if len(pending) != 1 else ''} added to "
          f"{approvals.path}{todo if pending else ''}" + (
              f"; {expired} expired approval{'s' if expired != 1 else ''} to renew by hand (expires:), "
              "still failing" if expired else "") + ("; review and commit it" if pending else ""), file=sys.stderr)
    return 1 if expired else 0


def write_output(path: str, text: str) -> None:
    """Write the whole report or nothing (``mcpdelta.files``)."""
    from mcpdelta.errors import InputError
    from mcpdelta.files import write_file

    try:
        write_file(path, text.encode("utf-8", "backslashreplace"))
    except OSError as exc:
        raise InputError(path, f"cannot write the report: {exc.strerror or exc}") from None
