"""The ecosystem survey's candidates, chosen from the registries' package lists.

    python scripts/ecosystem/candidates.py NPM_TSV PYPI_TSV [--earlier FILE] > data/ecosystem/candidates.tsv

No registry is asked: the lists (one package a line, with its monthly
downloads on npm, its last release month and download rank on PyPI) are
read and filtered by name.

- npm: every package named for MCP ("mcp" in its name) with at least
  ``NPM_MIN_DOWNLOADS`` downloads a month.
- PyPI: every package named for MCP among the 15,000 most downloaded, then
  the ``PYPI_EXTRA`` MCP-named packages whose summary says "server" that
  look most maintained: released in the last ``RECENT_MONTHS`` months, the
  most releases first (estimated from the version number, the lists giving
  no count), the most recent first among equals.
- ``--earlier``: an earlier candidates list whose rows are kept, first and
  in their order (a population only grows).
"""

from __future__ import annotations

import argparse
import csv
import re
import sys

NPM_MIN_DOWNLOADS = 300
PYPI_EXTRA = 1200
RECENT_MONTHS = "2026-06"      # the extras' last release in this month or later
COLUMNS = ("registry", "name", "latest", "popularity", "summary")
LIMIT_ROWS = 5_000_000         # the lists are large, never unbounded
csv.field_size_limit(1 << 20)


def named_for_mcp(name: str) -> bool:
    return "mcp" in name.lower()


def release_estimate(version: str) -> int:
    """A rough count of a package's releases from its latest version number:
    0.4.12 has had about 17, 1.0.0 about 1 (a calendar version counts as many)."""
    parts = [int(n) for n in re.findall(r"[0-9]+", version)[:3]]
    if not parts:
        return 0
    if parts[0] >= 1000:               # 2026.3.1: released by date
        return 50
    return min(sum(parts), 50)


def _rows(path: str):
    with open(path, encoding="utf-8", errors="replace", newline="") as fh:
        reader = csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
        next(reader, None)
        for number, row in enumerate(reader):
            if number >= LIMIT_ROWS:
                break
            yield row


def _clean(text: str) -> str:
    return re.sub(r"\s+", " ", text or "").strip()[:200]


def npm_candidates(path: str) -> list[dict]:
    out = []
    for row in _rows(path):
        if len(row) < 3 or not named_for_mcp(row[0]) or not row[2].isdigit():
            continue
        if int(row[2]) >= NPM_MIN_DOWNLOADS:
            out.append({"registry": "npm", "name": row[0], "latest": row[1],
                        "popularity": f"{int(row[2])} downloads/month", "summary": _clean(row[3] if len(row) > 3 else ""),
                        "_order": -int(row[2])})
    return sorted(out, key=lambda r: (r["_order"], r["name"]))


def pypi_candidates(path: str, extra: int = PYPI_EXTRA) -> list[dict]:
    ranked, servers = [], []
    for row in _rows(path):
        if len(row) < 5 or not named_for_mcp(row[0]):
            continue
        name, version, month, rank, summary = row[:5]
        if rank.isdigit():
            ranked.append({"registry": "pypi", "name": name, "latest": version,
                           "popularity": f"rank {int(rank)} of the 15,000 most downloaded", "summary": _clean(summary),
                           "_order": int(rank)})
        elif "server" in summary.lower() and month >= RECENT_MONTHS:
            servers.append({"registry": "pypi", "name": name, "latest": version,
                            "popularity": f"last release {month}", "summary": _clean(summary),
                            "_order": (-release_estimate(version), tuple(-ord(c) for c in month), name)})
    ranked.sort(key=lambda r: (r["_order"], r["name"]))
    servers.sort(key=lambda r: r["_order"])
    return ranked + servers[:extra]


def choose(npm_list: str, pypi_list: str, earlier: list[dict]) -> list[dict]:
    rows, seen = [], set()
    for row in earlier + npm_candidates(npm_list) + pypi_candidates(pypi_list):
        key = (row["registry"], row["name"].lower())
        if key not in seen:
            seen.add(key)
            rows.append({c: row.get(c, "") for c in COLUMNS})
    return rows


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("npm")
    p.add_argument("pypi")
    p.add_argument("--earlier", help="an earlier candidates list, kept first")
    args = p.parse_args(argv)
    earlier = []
    if args.earlier:
        with open(args.earlier, encoding="utf-8", errors="replace") as fh:
            earlier = list(csv.DictReader(fh, delimiter="\t"))
    w = csv.DictWriter(sys.stdout, COLUMNS, delimiter="\t", lineterminator="\n")
    w.writeheader()
    w.writerows(choose(args.npm, args.pypi, earlier))
    return 0


if __name__ == "__main__":
    sys.exit(main())
