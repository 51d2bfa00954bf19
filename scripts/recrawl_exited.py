"""Crawl again the releases a crawl log last saw fail with one error kind
(``server_exited`` by default), and say which capture now and why the
others still fail: how many placeholders for the variables a server asks
for (mcpdelta/crawl/placeholders.py) recover.

    nice -n 15 .venv/bin/python -m scripts.recrawl_exited /work/pop-run/out/a/crawl-log.jsonl \\
        --out /tmp/envretry-out [--sample 40] [--seed 1] [--servers data/servers/ecosystem.yaml]

``--sample N`` takes one release each of N servers drawn at random (``--seed``);
without it, every such release. Captures go to ``OUT/a`` (installs in
``OUT/cache``, each freed once captured), one at a time; a release ``OUT/a``
has any row for is not crawled again, so a stopped run goes on where it
stopped. The summary (of the releases selected) is printed at the end, and
alone with ``--summary``.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import copy
import json
import os
import random
import re
import signal
from pathlib import Path

from mcpdelta.crawl.packages import PackageCache
from mcpdelta.crawl.runner import crawl
from mcpdelta.crawl.servers import load
from mcpdelta.crawl.stdio import kill_all
from mcpdelta.survey.passes import CRAWL_ENV
from scripts.crawl_log import last_rows

REPO = Path(__file__).resolve().parents[1]

# why a server still exits, first match wins (read from its error and stderr)
CAUSES = [
    ("asked for variables: placeholders set, still exits", None),
    ("a module or package of the install is missing", r"ERR_MODULE_NOT_FOUND|MODULE_NOT_FOUND|Cannot find (module|package)|"
                                                      r"ModuleNotFoundError|No module named|ImportError"),
    ("needs arguments, a config file or a login", r"(?i)usage:|required argument|missing required arguments?|invalid number "
                                                  r"of arguments|please provide|is required\. please provide|config(uration)? "
                                                  r"file|not authenticated|login|--\w+ (flag|option|parameter)"),
    ("a program or runtime it runs is missing", r"No such file or directory|command not found|ENOENT|native addon|"
                                                r"binary (may be )?(missing|not found)|UNSUPPORTED_NODE_VERSION"),
    ("the network, at start", r"ENOTFOUND|ECONNREFUSED|getaddrinfo|network error|fetch failed|ConnectError|"
                              r"Connection refused"),
    ("names a variable it lacks, not read as a request", r"\b[A-Z][A-Z0-9]*(_[A-Z0-9]+)+\b.{0,80}(?i:required|missing|"
                                                         r"not set|environment)"),
    ("exits with nothing said (status 0 or an empty stderr)", r"exited with status 0|^server exited with status \d+ "
                                                              r"before answering$"),
]


def select(rows: dict, kind: str, sample: int | None, seed: int) -> list[tuple[str, str]]:
    """The releases whose last row failed with ``kind``; with ``sample``, one of each of that many servers."""
    pairs = sorted(key for key, row in rows.items() if not row.get("ok") and row.get("error_kind") == kind)
    if sample is None:
        return pairs
    rng = random.Random(seed)
    by_server = collections.defaultdict(list)
    for server, version in pairs:
        by_server[server].append(version)
    servers = rng.sample(sorted(by_server), min(sample, len(by_server)))
    return sorted((s, rng.choice(by_server[s])) for s in servers)


def targets_for(pairs, servers_file: Path) -> tuple[list, list]:
    """One target per release (its entry's sweep narrowed to that version); the ids the file lacks."""
    entries = {t.id: t for t in load(servers_file)[0]}
    targets, missing = [], []
    for server, version in pairs:
        entry = entries.get(server)
        if entry is None or entry.package is None:
            missing.append(server)
            continue
        one = copy.copy(entry)
        one.package = copy.copy(entry.package)
        one.package.versions = [version]
        targets.append(one)
    return targets, missing


def cause(row: dict) -> str:
    if any("placeholder values" in w for w in row.get("warnings") or ()):
        return CAUSES[0][0]
    text = (row.get("error") or "") + "\n" + (row.get("stderr_tail") or "")
    for label, pattern in CAUSES[1:]:
        if re.search(pattern, text, re.M):
            return label
    return "other"


def summary(out: Path, pairs) -> str:
    rows = last_rows(out / "crawl-log.jsonl") if (out / "crawl-log.jsonl").exists() else {}
    done = [rows[p] for p in pairs if p in rows]
    placed = [r for r in done if r["ok"] and (r.get("recipe") or {}).get("placeholders")]
    plain = [r for r in done if r["ok"] and r not in placed]
    failed = [r for r in done if not r["ok"]]
    lines = [f"{len(pairs)} releases selected ({len({s for s, _ in pairs})} servers), {len(done)} crawled again",
             f"  captured with placeholders: {len(placed)} releases of {len({r['id'] for r in placed})} servers",
             f"  captured with none (it exits no more): {len(plain)}",
             f"  still failing: {len(failed)}"]
    groups = collections.defaultdict(list)
    for r in failed:
        groups[(r["error_kind"], cause(r) if r["error_kind"] == "server_exited" else "")].append(r)
    for (kind, why), group in sorted(groups.items(), key=lambda g: -len(g[1])):
        lines.append(f"    {len(group):4}  {kind}{': ' + why if why else ''}")
        for r in group[:6]:
            lines.append(f"            {r['id']} {r['version']}: {(r['error'] or '')[:150]}")
    for r in placed:
        tools = json.loads((out / r["path"]).read_text(encoding="utf-8")).get("tools") or []
        lines.append(f"  + {r['id']} {r['version']}: {len(tools)} tools, placeholders for "
                     f"{', '.join(r['recipe']['placeholders'])}")
    return "\n".join(lines)


def run(targets, limits, out: Path) -> None:
    """Crawl ``targets`` one at a time into ``out/a``; SIGTERM/SIGINT stop it cleanly (resumable)."""
    limits.concurrency = limits.install_concurrency = 1
    cache = PackageCache(out / "cache", limits.install_timeout_s, download_cache_bytes=4 * 1024 ** 3)
    folder = out / "a"
    folder.mkdir(parents=True, exist_ok=True)
    tried = set(last_rows(folder / "crawl-log.jsonl")) if (folder / "crawl-log.jsonl").exists() else set()

    def progress(rec, done, total):
        state = "ok" if rec.ok else f"{rec.error_kind}: {(rec.error or '')[:160]}"
        print(f"[{done}/{total}] {rec.id} {rec.version}: {state}", flush=True)

    async def main():
        task = asyncio.current_task()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, task.cancel)
        await crawl(targets, limits, folder, cache=cache, progress=progress, captured=tried, release_installs=True)

    try:
        asyncio.run(main())
    except asyncio.CancelledError:
        print("stopped: run the same command again to go on", flush=True)
    finally:
        kill_all()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("log", type=Path, help="the crawl log whose failures to crawl again")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--servers", type=Path, default=REPO / "data" / "servers" / "ecosystem.yaml")
    parser.add_argument("--kind", default="server_exited")
    parser.add_argument("--sample", type=int)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--summary", action="store_true", help="only print the summary of what OUT holds")
    args = parser.parse_args(argv)
    pairs = select(last_rows(args.log), args.kind, args.sample, args.seed)
    if not args.summary:
        for key, value in CRAWL_ENV.items():  # the dummies the population crawl's recipes name
            os.environ.setdefault(key, value)
        targets, missing = targets_for(pairs, args.servers)
        if missing:
            print(f"not in {args.servers}: {', '.join(sorted(set(missing)))}", flush=True)
        run(targets, load(args.servers)[1], args.out)
    print(summary(args.out / "a", pairs), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
