"""``mcpdelta verify-lock MANIFEST --lock FILE``: 0 equal, 3 drift, 2 bad
usage or unreadable input (the CLI's usual).

Instead of a manifest file, ``--servers FILE --server ID`` captures that
server live (stdio, HTTP, or the newest version of a sweep) and checks it;
the probe calls the lockfile pins are made again in that capture, and a
response whose shape moved is drift like a contract that moved.

Drift has its own status, 3, distinct from a mistyped flag's 2; a tool
pinned under an unknown digest scheme is reported and never fails the run.
"""

import json
import sys

from mcpdelta.commands import options

DRIFT, UNREADABLE = 3, 2
STATUSES = ("added", "removed", "changed", "unknown_scheme")


def add_arguments(parser):
    parser.add_argument("manifest", metavar="MANIFEST", nargs="*",
                        help="manifest file(s) (- for stdin), each checked against the lockfile "
                             "(as a pre-commit hook passes them); or capture a live server with --servers/--server")
    parser.add_argument("--servers", metavar="FILE", help="servers.yaml holding the live server")
    parser.add_argument("--server", metavar="ID", help="the id of the live server to capture")
    options.add_allow_destructive_probes(
        parser, help="let the pinned probes call tools annotated destructiveHint: true or not "
                     "annotated readOnlyHint: true (refused by default)")
    parser.add_argument("--lock", metavar="FILE", default="tool-versions.lock.yaml",
                        help="lockfile (default: tool-versions.lock.yaml)")
    options.add_format(parser)


def run(args) -> int:
    """Each manifest in turn; the worst exit status."""
    import argparse

    manifests = args.manifest or [None]
    return max(_run_one(argparse.Namespace(**{**vars(args), "manifest": m})) for m in manifests)


def _run_one(args) -> int:
    from mcpdelta.contract import CanonicalError
    from mcpdelta.engine.manifest import read_manifest
    from mcpdelta.errors import InputError
    from mcpdelta.gate import lockfile as L

    try:
        if (args.manifest is None) == (args.server is None) or bool(args.servers) != bool(args.server):
            raise InputError("verify-lock", "give a MANIFEST file, or --servers FILE and --server ID")
        lock = L.read_lockfile(args.lock)
        if args.server:
            from mcpdelta.crawl.live import capture_live

            from mcpdelta.gate.lockprobes import probes_to_run

            manifest = capture_live(args.servers, args.server, probes=probes_to_run(lock) or None,
                                    allow_destructive_probes=args.allow_destructive_probes)
            args.manifest = f"server {args.server}"
        else:
            manifest = read_manifest(args.manifest)
        try:
            drifts = L.compare(lock, manifest)
        except CanonicalError as exc:
            raise InputError(args.manifest, f"cannot canonicalise a tool: {exc}") from None
    except InputError as exc:
        from mcpdelta.safe import visible

        print(f"mcpdelta: error: {visible(exc)}", file=sys.stderr)
        return UNREADABLE
    drifted = [d for d in drifts if d.drifted]
    code = DRIFT if drifted else 0
    grade = L.overall_grade(drifted)
    if args.format == "json":
        doc = {"format": "mcpdelta.verify-lock/v1", "lockfile": args.lock, "manifest": args.manifest,
               "generated_for": lock.generated_for, "drift": bool(drifted), "grade": grade,
               **{s: [d.name for d in drifts if d.status == s] for s in STATUSES},
               "tools": [d.as_json() for d in drifts if d.status != "unchanged"], "exit_code": code}
        from mcpdelta.safe import json_text

        sys.stdout.write(json_text(json.dumps(doc, indent=2, ensure_ascii=False)) + "\n")
    else:
        sys.stdout.write(render_text(drifts, args, grade, _unchecked(lock, manifest)))
    return code


def _unchecked(lock, manifest):
    """A note when the lockfile pins probes the manifest cannot answer."""
    pinned = sum(len(e.probes) for e in lock.tools.values())
    if pinned and not isinstance(manifest.get("probes"), list):
        return f"{pinned} pinned probe(s) not checked: the manifest was captured without probes"
    return None


def render_text(drifts, args, grade, note=None) -> str:
    shown = [d for d in drifts if d.status != "unchanged"]
    drifted = [d for d in shown if d.drifted]
    head = f"drift, grade {grade}" if drifted else "no drift"
    lines = [f"{args.manifest} against {args.lock}: {head} "
             f"({len(drifts) - len(shown)} unchanged, {len(drifted)} drifted)"]
    if note:
        lines.append(f"  note: {note}")
    for d in shown:
        if d.status == "unknown_scheme":
            lines.append(f"  unknown scheme  {d.name}: {d.note}")
            continue
        lines.append(f"  {d.status:<8} {d.name}  grade {d.grade}"
                     + (f"  (pinned {d.semver})" if d.semver else ""))
        if d.note:
            lines.append(f"      {d.note}")
        if d.status == "changed":
            for c in d.changes:
                lines.append(f"      {c.severity:<20} {c.rule}  {c.message}")
        for p in d.probes:
            if p.drifted:  # one line per probe, then the engine's changes of its response
                lines.append(f"      probe {p.name}: response {p.status}, grade {p.grade}"
                             f" ({_short(p.pinned)} -> {_short(p.live)})" + (f"; {p.note}" if p.note else ""))
                for c in p.changes:
                    lines.append(f"          {c.severity:<20} {c.rule}  {c.message}")
    from mcpdelta.safe import no_command_lines, visible  # tool names are a server's

    return no_command_lines("\n".join(visible(line) for line in lines)) + "\n"


def _short(digest) -> str:
    return digest[:len("sha256:") + 12] if digest else "no response"
