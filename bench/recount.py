"""A second reader of a study's captures: its headline figures recounted
from the capture files with code that shares nothing with the study (the
standard library only; nothing of ``mcpdelta`` is imported).

    python bench/recount.py PASS_A [PASS_B ...] > recount.json

Each PASS is a crawl folder as ``mcpdelta study --captures`` reads it:
``<server-id>/<version>.json`` (or ``.json.gz``) and ``crawl-log.jsonl``.
The study given ``--recount recount.json`` prints these figures beside its
own (``sql/study/recount.sql``, ``sql/study/release_tools.sql``) and says
where they differ.

What is counted, by its own reading of the files:

- ``attempted``: the (server, version) pairs any crawl log names, or any
  capture file holds;
- a capture file is *empty* when its tool list is empty and its server
  advertises the tools capability, or another capture of that server in
  the same folder lists tools; a version is *captured* when some pass holds
  a capture file of it that is not empty and is a JSON object whose tool
  list names no tool twice (a server must tell its tools apart by name; the
  study's ingest refuses such a manifest too);
- ``empty``: the versions no pass captured, of which some pass holds an
  empty capture file or logged the failure kind ``empty``;
- ``releases``: the first pass's captured versions; ``servers``: the
  servers with one; ``steps``: each server's releases less one, summed;
- ``tools``: the tools listed by the releases, summed; ``release_tools``:
  each release's ``[server, version, tool count]``;
- ``passes``, in the order given: each folder, the versions its log names
  (``logged``) and the capture files it holds that are not empty.
"""

import gzip
import io
import json
import os
import sys

LIMIT = 64 * 1024 * 1024   # bytes of one file read, at most


def read(path: str) -> bytes:
    with open(path, "rb") as fh:
        data = fh.read(LIMIT + 1)
    if path.endswith(".gz"):
        data = gzip.GzipFile(fileobj=io.BytesIO(data)).read(LIMIT + 1)
    if len(data) > LIMIT:
        raise ValueError(f"{path}: over {LIMIT} bytes")
    return data


def log_rows(folder: str) -> list:
    path = os.path.join(folder, "crawl-log.jsonl")
    if not os.path.isfile(path):
        return []
    rows = []
    for line in read(path).splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if isinstance(row, dict) and isinstance(row.get("id"), str) and isinstance(row.get("version"), str):
            rows.append(row)
    return rows


def capture_files(folder: str) -> dict:
    """{(server, version): manifest or None (not a JSON object with a tools list or none)}."""
    found = {}
    for server in sorted(os.listdir(folder)):
        where = os.path.join(folder, server)
        if server.startswith(".") or not os.path.isdir(where):
            continue
        for name in sorted(os.listdir(where)):
            suffix = ".json.gz" if name.endswith(".json.gz") else ".json" if name.endswith(".json") else None
            if suffix is None or name.startswith("."):
                continue
            try:
                manifest = json.loads(read(os.path.join(where, name)))
            except (OSError, ValueError, EOFError):
                manifest = None
            found[(server, name[: -len(suffix)])] = manifest if isinstance(manifest, dict) \
                and not named_twice(manifest) else None
    return found


def named_twice(manifest) -> bool:
    """Does the manifest's tool list give two tools one name?"""
    tools = manifest.get("tools")
    names = [t.get("name") for t in tools if isinstance(t, dict)] if isinstance(tools, list) else []
    return len(names) != len(set(map(str, names)))


def tool_count(manifest) -> int:
    tools = manifest.get("tools") if isinstance(manifest, dict) else None
    return len(tools) if isinstance(tools, list) else 0


def empty(manifest, others_list_tools: bool) -> bool:
    if tool_count(manifest):
        return False
    capabilities = manifest.get("capabilities")
    return (isinstance(capabilities, dict) and "tools" in capabilities) or others_list_tools


def good_captures(files: dict) -> dict:
    """The captures of one folder that count: {(server, version): tool count}."""
    listing = {}
    for (server, _), manifest in files.items():
        listing[server] = listing.get(server, False) or tool_count(manifest) > 0
    return {key: tool_count(m) for key, m in files.items()
            if m is not None and not empty(m, listing[key[0]])}


def recount(folders: list) -> dict:
    attempted, logged_empty, any_empty, captured = set(), set(), set(), set()
    passes = []
    releases = {}
    for number, folder in enumerate(folders):
        rows = log_rows(folder)
        files = capture_files(folder)
        good = good_captures(files)
        attempted |= {(r["id"], r["version"]) for r in rows} | set(files)
        logged_empty |= {(r["id"], r["version"]) for r in rows if r.get("error_kind") == "empty"}
        any_empty |= {key for key, m in files.items() if m is not None and key not in good}
        captured |= set(good)
        passes.append({"folder": folder, "logged": len({(r["id"], r["version"]) for r in rows}),
                       "captures": len(good)})
        if number == 0:
            releases = good
    servers = {server for server, _ in releases}
    return {
        "figures": {
            "attempted": len(attempted),
            "captured": len(captured),
            "empty": len((logged_empty | any_empty) - captured),
            "servers": len(servers),
            "releases": len(releases),
            "steps": sum(sum(1 for s, _ in releases if s == server) - 1 for server in servers),
            "tools": sum(releases.values()),
        },
        "passes": passes,
        "release_tools": [[s, v, n] for (s, v), n in sorted(releases.items())],
    }


def main(argv) -> int:
    if not argv or any(a.startswith("-") for a in argv):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    for folder in argv:
        if not os.path.isdir(folder):
            print(f"recount: {folder}: not a folder", file=sys.stderr)
            return 2
    json.dump(recount(argv), sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
