"""``mcpdelta digest MANIFEST``: contract digests of every tool."""

import sys

from mcpdelta.commands import options


def add_arguments(parser):
    options.add_manifest(parser)
    options.add_format(parser)


def run(args) -> int:
    from mcpdelta.contract import CanonicalError, tool_digest
    from mcpdelta.engine.digest import manifest_digest
    from mcpdelta.engine.manifest import read_manifest
    from mcpdelta.errors import InputError

    manifest = read_manifest(args.manifest)
    try:
        tools = {t["name"]: tool_digest(t)
                 for t in sorted(manifest.get("tools") or [], key=lambda t: t["name"])}
        whole = manifest_digest(manifest)
    except CanonicalError as exc:  # e.g. a number beyond the double range
        raise InputError(args.manifest, f"cannot canonicalise: {exc}") from None
    if args.format == "json":
        import json

        doc = {"tools": tools, "manifest": whole}
        sys.stdout.write(json.dumps(doc, indent=2) + "\n")
    else:
        from mcpdelta.safe import visible  # a tool's name is a server's

        for name, digest in tools.items():
            sys.stdout.write(f"{digest}  {visible(name)}\n")
    return 0
