"""How far a capture run got: servers and releases planned, captured in
each pass, failed by cause, and where the time went.

    python scripts/ecosystem/progress.py data/servers/ecosystem.yaml OUT [--since 2026-12-06T02:07:00Z]

OUT is the capture flow's folder (``OUT/a``, ``OUT/b``, ``OUT/done``).
``--since``: count only the attempts made from then on (a resumed folder
also holds the captures it was unpacked from). A release's outcome is its
latest attempt in the pass.
"""

import argparse
import collections
import json
import sys
from pathlib import Path

from mcpdelta.inputs import load_yaml, read_text  # the one YAML reader: a key twice is refused

LIMIT = 256 * 1024 * 1024   # bytes of one crawl log read


def attempts(folder: Path, since: str) -> dict:
    """(id, version) -> its latest log row from ``since`` on."""
    latest = {}
    path = folder / "crawl-log.jsonl"
    if not path.exists() or path.stat().st_size > LIMIT:
        return latest
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if isinstance(row, dict) and str(row.get("captured_at") or "") >= since:
            latest[(row.get("id"), row.get("version"))] = row
    return latest


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("servers", type=Path)
    p.add_argument("out", type=Path)
    p.add_argument("--since", default="")
    args = p.parse_args(argv)
    servers = load_yaml(read_text(args.servers), str(args.servers))["servers"]
    planned = {s["id"]: [v for v in s["package"]["versions"] if not str(v).startswith(">")]
               for s in servers if s.get("package")}
    done = {p.name for p in (args.out / "done").iterdir()} if (args.out / "done").is_dir() else set()
    a, b = attempts(args.out / "a", args.since), attempts(args.out / "b", args.since)
    reached = sorted({i for i, _ in a})
    print(f"servers in the file: {len(servers)}, releases planned: {sum(map(len, planned.values()))}")
    print(f"servers done (both passes, any run): {len(done)}; reached since {args.since or 'ever'}: {len(reached)}"
          f" ({sum(1 for i in reached if i in done)} done), their releases planned: "
          f"{sum(len(planned.get(i, [])) for i in reached)}")
    for name, rows in (("pass A", a), ("pass B", b)):
        ok = [r for r in rows.values() if r.get("ok")]
        print(f"{name}: {len(rows)} releases attempted, {len(ok)} captured, "
              f"{len({r['id'] for r in ok})} servers with a capture")
        causes = collections.Counter(r.get("error_kind") or "?" for r in rows.values() if not r.get("ok"))
        for cause, n in causes.most_common():
            print(f"  failed {cause}: {n}")
        install = sum(r.get("install_ms") or 0 for r in rows.values()) / 3.6e6
        capture = sum(r.get("capture_ms") or 0 for r in rows.values()) / 3.6e6
        print(f"  summed over attempts: installs {install:.2f} h, captures {capture:.2f} h")
    stamps = sorted(str(r.get("captured_at")) for r in list(a.values()) + list(b.values()))
    if stamps:
        print(f"first attempt logged {stamps[0]}, last {stamps[-1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
