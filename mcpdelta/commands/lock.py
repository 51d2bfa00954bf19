"""``mcpdelta lock MANIFEST -o tool-versions.lock.yaml``: pin every tool."""

import json
import os
import sys

from mcpdelta.commands import options


def add_arguments(parser):
    options.add_manifest(parser)
    parser.add_argument("-o", "--out", metavar="FILE", default="-",
                        help="lockfile to write (default: standard output)")
    parser.add_argument("--declared", metavar="NAME=VERSION", action="append", default=[],
                        help="semver to pin a tool at (repeatable)")
    parser.add_argument("--versions", metavar="FILE", help="YAML mapping of tool name to version")
    parser.add_argument("--lock", metavar="FILE",
                        help="earlier lockfile whose semvers carry over (default: --out, if it exists)")
    parser.add_argument("--no-contract", action="store_true",
                        help="pin digests only (contracts and probe response shapes left out)")
    parser.add_argument("--generated-for", metavar="NAME",
                        help="server name to record (default: serverInfo.name, else the file name)")
    options.add_format(parser)


def run(args) -> int:
    from mcpdelta.contract import CanonicalError
    from mcpdelta.engine.manifest import read_manifest
    from mcpdelta.errors import InputError
    from mcpdelta.gate import lockfile as L

    manifest = read_manifest(args.manifest)
    names = {t["name"] for t in manifest.get("tools") or []}
    semvers = _carried_over(args)
    declared = L.declared_versions(args.declared, args.versions)
    unknown = sorted(declared.keys() - names)
    if unknown:
        raise InputError("--declared", f"no tool named {unknown[0]!r} in {args.manifest}")
    semvers.update(declared)
    notes = []
    try:
        doc = L.build_lockfile(manifest, args.generated_for or _server_name(manifest, args.manifest),
                               semvers, embed=not args.no_contract, notes=notes)
    except CanonicalError as exc:
        raise InputError(args.manifest, f"cannot canonicalise a tool: {exc}") from None
    from mcpdelta.safe import json_text, visible  # tool names and notes are a server's

    for note in notes:
        print(f"mcpdelta: note: {visible(note)}", file=sys.stderr)
    text = L.dump_lockfile(doc)
    if args.out != "-":
        L.write_text(args.out, text)
    summary = {"lockfile": None if args.out == "-" else args.out, "generated_for": doc["generated_for"],
               "tools": {n: {k: e[k] for k in ("semver", "contract_digest")} for n, e in doc["tools"].items()}}
    if args.format == "json":
        sys.stdout.write(json_text(json.dumps(doc if args.out == "-" else summary, indent=2, ensure_ascii=False))
                         + "\n")
    elif args.out == "-":
        sys.stdout.write(text)
    else:
        probes = sum(len(e.get("probes", ())) for e in doc["tools"].values())
        sys.stdout.write(visible(f"wrote {args.out}: {len(doc['tools'])} tools pinned for {doc['generated_for']}"
                                 + (f", with {probes} probe(s)" if probes else "")) + "\n")
    return 0


def _carried_over(args) -> dict:
    """Semvers already pinned: a baseline is regenerated, not restarted."""
    from mcpdelta.gate.lockfile import read_lockfile

    prior = args.lock or (args.out if args.out != "-" and os.path.exists(args.out) else None)
    if prior is None:
        return {}
    return {name: entry.semver for name, entry in read_lockfile(prior).tools.items()}


def _server_name(manifest: dict, path: str):
    info = manifest.get("serverInfo")
    if isinstance(info, dict) and isinstance(info.get("name"), str):
        return info["name"]
    return None if path == "-" else os.path.splitext(os.path.basename(path))[0]
