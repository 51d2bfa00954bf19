"""``mcpdelta lint-bump --lock FILE MANIFEST --declared NAME=VERSION``: the bump gate.

For each tool whose contract moved, the declared version against the pinned
one and the engine's grade. An under-bump, or no bump over a changed
contract, fails (exit 1) naming the grade required and the changes that
required it. Over-bumping passes; a version that goes backwards fails.
"""

import json
import sys

from mcpdelta.commands import options
from mcpdelta.safe import json_text, no_command_lines, visible


def add_arguments(parser):
    parser.add_argument("manifest", metavar="MANIFEST", nargs="+",
                        help="manifest file(s) (- for stdin), each linted against the lockfile")
    parser.add_argument("--lock", metavar="FILE", default="tool-versions.lock.yaml",
                        help="lockfile with the prior versions (default: tool-versions.lock.yaml)")
    parser.add_argument("--declared", metavar="NAME=VERSION", action="append", default=[],
                        help="the version a tool ships as (repeatable)")
    parser.add_argument("--versions", metavar="FILE",
                        help="YAML mapping of tool name to version (or a declared_versions: block)")
    options.add_format(parser)


def run(args) -> int:
    """Each manifest in turn; the worst exit status."""
    import argparse

    return max(_run_one(argparse.Namespace(**{**vars(args), "manifest": m})) for m in args.manifest)


def _run_one(args) -> int:
    from mcpdelta.contract import CanonicalError
    from mcpdelta.engine.manifest import read_manifest
    from mcpdelta.errors import InputError
    from mcpdelta.gate import lockfile as L

    lock = L.read_lockfile(args.lock)
    manifest = read_manifest(args.manifest)
    declared = L.declared_versions(args.declared, args.versions)
    try:
        drifts = L.compare(lock, manifest)
    except CanonicalError as exc:
        raise InputError(args.manifest, f"cannot canonicalise a tool: {exc}") from None
    known = {d.name for d in drifts}
    stray = sorted(declared.keys() - known)
    if stray:
        raise InputError("--declared", f"no tool named {stray[0]!r} in {args.manifest} or {args.lock}")
    verdicts = [lint(d, declared.get(d.name)) for d in drifts]
    failed = [v for v in verdicts if not v["ok"]]
    if args.format == "json":
        doc = {"format": "mcpdelta.lint-bump/v1", "lockfile": args.lock, "manifest": args.manifest,
               "verdict": "fail" if failed else "pass", "tools": verdicts}
        sys.stdout.write(json_text(json.dumps(doc, indent=2, ensure_ascii=False)) + "\n")
    else:
        sys.stdout.write(render_text(verdicts, failed))
    return 1 if failed else 0


def lint(drift, declared) -> dict:
    """One tool's verdict as a plain dict (the JSON output's row)."""
    from mcpdelta.engine.policy import grade
    from mcpdelta.gate.lockfile import RANK, bump_of

    row = {"tool": drift.name, "status": drift.status, "required": None, "prior": drift.semver,
           "declared": declared, "bump": None, "ok": True, "reason": None, "changes": []}
    if drift.status == "unknown_scheme":
        row["reason"] = drift.note
        return row
    if drift.status in ("added", "removed") or drift.semver is None:
        row["reason"] = f"tool {drift.status}: no prior version to bump from" if drift.status == "added" \
            else "tool removed: nothing left to version"
        return row
    version = declared or drift.semver  # nothing declared: shipped at the pinned version
    bump = bump_of(drift.semver, version)
    row.update(declared=version, bump=bump)
    if drift.status == "unchanged":
        if bump == "downgrade":
            row.update(ok=False, reason=f"version goes backwards ({drift.semver} -> {version})")
        return row
    required = drift.grade
    row["required"] = required
    # the changes that set the grade: those that alone would grade as high
    why = [c for c in drift.changes if grade([c], movement=True) == required]
    row["changes"] = [{"rule": c.rule, "severity": c.severity, "path": c.path, "message": c.message}
                      for c in why]
    if bump == "downgrade":
        row.update(ok=False, reason=f"version goes backwards ({drift.semver} -> {version})")
    elif RANK[bump] < RANK[required]:
        what = "no bump" if bump == "none" else f"a {bump} bump"
        row.update(ok=False, reason=f"contract changed (grade {required}) but {drift.semver} -> "
                                    f"{version} is {what}; requires a {required} bump")
    if drift.note:
        row["reason"] = (row["reason"] + "; " if row["reason"] else "") + drift.note
    return row


def render_text(verdicts, failed) -> str:
    lines = [f"lint-bump: {'FAIL' if failed else 'pass'} "
             f"({len(failed)} violation{'s' if len(failed) != 1 else ''})"]
    for v in verdicts:
        if v["status"] == "unchanged" and v["ok"]:
            continue
        mark = "ok  " if v["ok"] else "FAIL"
        versions = (f"{v['prior']} -> {v['declared']}" if v["prior"] and v["declared"]
                    else v["prior"] or v["declared"] or "")
        graded = f" required {v['required']}" if v["required"] else ""
        lines.append(f"  {mark} {v['tool']} ({v['status']}{graded}) {versions}".rstrip())
        if v["reason"]:
            lines.append(f"       {v['reason']}")
        if not v["ok"]:
            for c in v["changes"]:
                lines.append(f"       {c['severity']} {c['rule']} at {c['path']}: {c['message']}")
    # tool names, paths and messages are a server's: each line stays one terminal line
    return no_command_lines("\n".join(visible(line) for line in lines)) + "\n"
