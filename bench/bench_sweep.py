"""Version sweeps, the survey's workload: successive releases of one server,
installed and captured two ways side by side.

    PYTHONPATH=. .venv/bin/python bench/bench_sweep.py [--work /tmp/bench-sweep] [--per-registry 8] [--releases 6]
    nohup ... > /tmp/bench-sweep.out 2>&1 &   # resumable; progress in WORK/bench.log

The sample: ``--per-registry`` npm and PyPI servers of
``data/servers/ecosystem.yaml`` with at least ``--releases`` captured
releases (``data/ecosystem/captures``), drawn with a fixed seed; each
server's newest ``--releases`` captured releases, oldest first.

- ``plain``: installs as a plain install makes them: npm each release
  into an empty folder (``--no-npm-reuse``), PyPI with pip;
- ``fast``: the crawler's default: npm releases installed over a copy of
  the previous release's install, with the crawl's check (a plain install
  and a second capture of its sample, ``--reuse-check-every``), PyPI with uv.

With ``--whole`` each side crawls a server's releases in one crawl, as the
survey does (installs 4 at a time, captures on the servers file's limit;
each release's share of the wall time is the crawl's divided evenly),
the side going first alternating by server.

Each side has a package cache of its own, empty at the start (installs
and download caches); each server's sweep is one crawl run of each side
(one ``PackageCache``, as ``mcpdelta crawl --only ID`` makes). Release by
release the two sides run in turn, the order alternating, so load from
elsewhere falls on both. Per release: install and capture time of each
side, the check's cost, and whether the captures are equal (the whole
manifest, and the tools: names, input and output schemas); for npm also
whether the two trees hold the same (package, version) pairs. One line per
release in WORK/results.jsonl (a release cut short is done again, its
installs removed first); a server's installs are removed after its sweep
(the download caches stay). The summary (WORK/summary.json, printed): per
registry the sweep's wall time (installs and captures), the installs'
sum, the median install, each side, and the ratios; the check's cost;
captures equal N/N.
"""

import argparse
import asyncio
import json
import os
import pathlib
import random
import shutil
import statistics
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402

from bench_install import ENV, SERVERS, captured_releases, npm_tree, safe, tools, work_folder  # noqa: E402
from mcpdelta.crawl.npm_reuse import same_capture  # noqa: E402
from mcpdelta.crawl.packages import PackageCache, version_key  # noqa: E402
from mcpdelta.crawl.runner import crawl  # noqa: E402
from mcpdelta.crawl.servers import load  # noqa: E402
from mcpdelta.inputs import load_yaml, read_text  # noqa: E402

SIDES = ("plain", "fast")


def sample(seed: int, per_registry: int, releases: int) -> list[dict]:
    """[{id, registry, name, versions: [...]}], npm and PyPI alternating."""
    entries, rows = captured_releases()
    captured = {sid: [row["version"] for row in found] for sid, found in rows.items()}
    rng = random.Random(seed)
    picked = {}
    for registry in ("npm", "pypi"):
        ids = sorted(i for i in captured if entries[i]["package"]["registry"] == registry
                     and len(captured[i]) >= releases)
        picked[registry] = [{"id": sid, "registry": registry, "name": entries[sid]["package"]["name"],
                             "versions": sorted(captured[sid], key=version_key)[-releases:]}
                            for sid in rng.sample(ids, per_registry)]
    return [s for pair in zip(picked["npm"], picked["pypi"]) for s in pair]


def servers_file(server: dict, versions: list[str], path: pathlib.Path) -> pathlib.Path:
    doc = load_yaml(read_text(SERVERS), str(SERVERS))
    entry = dict(next(s for s in doc["servers"] if s["id"] == server["id"]))
    entry.pop("tool_set", None)
    entry["cwd"] = str((SERVERS.parent / str(entry.get("cwd", "."))).resolve())
    entry["package"] = dict(entry["package"], versions=list(versions))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump({"servers": [entry], "limits": doc["limits"]}, sort_keys=False))
    return path


def new_cache(work: pathlib.Path, side: str, check_every: int) -> PackageCache:
    if side == "plain":
        return PackageCache(work / side / "cache", 600, python_installer="pip", npm_reuse=False)
    return PackageCache(work / side / "cache", 600, npm_reuse=True, reuse_check_every=check_every)


def one(server: dict, versions: list[str], side: str, cache: PackageCache, work: pathlib.Path) -> dict:
    """One crawl of these releases: {version: what it took}; a crawl of several
    (``--whole``) has its wall time shared out evenly."""
    targets, limits = load(servers_file(server, versions, work / "servers" / f"{safe(server['id'])}.yaml"))
    out = work / side / "out" / safe(server["id"])
    started = time.perf_counter()
    recs = asyncio.run(crawl(targets, limits, out, cache=cache, recapture=True))
    wall = time.perf_counter() - started
    return {rec.version: {"wall_ms": int(wall * 1000 / len(versions)), "ok": rec.ok,
                          "error": rec.error and f"{rec.error_kind}: {rec.error[:300]}",
                          "install_ms": rec.install_ms, "capture_ms": rec.capture_ms, "reused": rec.install_reused,
                          "check": rec.install_check, "check_ms": rec.install_check_ms, "manifest": rec.manifest}
            for rec in recs}


def installs(cache: PackageCache, server: dict, version: str | None = None) -> list[pathlib.Path]:
    base = cache.dir(server["registry"], server["name"])
    return [p for p in base.glob(f"{safe(version)}~*" if version else "*") if p.is_dir()] if base.is_dir() else []


def log(work: pathlib.Path, text: str) -> None:
    with open(work / "bench.log", "a") as fh:
        fh.write(f"{time.strftime('%H:%M:%S')} {text}\n")
    print(text, flush=True)


def run(args) -> list[dict]:
    work = pathlib.Path(args.work)
    results = work / "results.jsonl"
    done = {}
    if results.exists():
        for line in results.read_text().splitlines():
            row = json.loads(line)
            done[(row["id"], row["version"])] = row
    chosen = sample(args.seed, args.per_registry, args.releases)
    log(work, f"sample (seed {args.seed}): " + "; ".join(f"{s['id']} ({s['registry']}) {', '.join(s['versions'])}"
                                                        for s in chosen))
    os.environ.update(ENV)
    k = 0
    for server in chosen:
        caches = {side: new_cache(work, side, args.check_every) for side in SIDES}  # one crawl run per sweep
        whole = {}
        if args.whole and not all((server["id"], v) in done for v in server["versions"]):
            for side in SIDES:
                for folder in installs(caches[side], server):
                    shutil.rmtree(folder, ignore_errors=True)
            for side in (SIDES if len(done) % 2 else SIDES[::-1]):
                whole[side] = one(server, server["versions"], side, caches[side], work)
        for i, version in enumerate(server["versions"]):
            k += 1
            if (server["id"], version) in done:
                continue
            if args.whole:
                got = {side: whole[side].get(version) or {"wall_ms": 0, "ok": False, "error": "no record",
                                                          "install_ms": 0, "capture_ms": 0, "reused": None,
                                                          "check": None, "check_ms": 0, "manifest": None}
                       for side in SIDES}
            else:
                for side in SIDES:  # a release cut short: made again from the start
                    for folder in installs(caches[side], server, version):
                        shutil.rmtree(folder, ignore_errors=True)
                got = {}
                for side in (SIDES if k % 2 else SIDES[::-1]):
                    got[side] = one(server, [version], side, caches[side], work)[version]
            a, b = got["plain"].pop("manifest"), got["fast"].pop("manifest")
            row = {"id": server["id"], "registry": server["registry"], "version": version, "index": i,
                   "load": os.getloadavg()[0], **got,
                   "equal": same_capture(a, b) if a and b else "a capture failed",
                   "tools_equal": bool(a and b and tools(a) == tools(b))}
            if server["registry"] == "npm":
                trees = [installs(caches[s], server, version) for s in SIDES]
                if all(trees):
                    p, f = npm_tree(trees[0][0]), npm_tree(trees[1][0])
                    row["tree"] = {"same": p == f, "count": len(p), "only_plain": sorted(map("@".join, p - f))[:10],
                                   "only_fast": sorted(map("@".join, f - p))[:10]}
            with open(results, "a") as fh:
                fh.write(json.dumps(row) + "\n")
            done[(server["id"], version)] = row
            log(work, f"{server['id']} {version}: plain {got['plain']['install_ms'] / 1000:.1f}+"
                      f"{got['plain']['capture_ms'] / 1000:.1f} s, fast {got['fast']['install_ms'] / 1000:.1f}+"
                      f"{got['fast']['capture_ms'] / 1000:.1f} s (over {got['fast']['reused']}; check "
                      f"{got['fast']['check']} {got['fast']['check_ms'] / 1000:.1f} s), equal: "
                      f"{row['equal'] is None}, tools equal {row['tools_equal']}, load {row['load']:.1f}")
        for side in SIDES:
            for folder in installs(caches[side], server):
                shutil.rmtree(folder, ignore_errors=True)
    return list(done.values())


def summarize(rows: list[dict]) -> dict:
    out = {"releases": len(rows), "load_1min": {"min": min(r["load"] for r in rows),
                                                "median": round(statistics.median(r["load"] for r in rows), 1),
                                                "max": max(r["load"] for r in rows)}}
    for registry in ("npm", "pypi"):
        rs = [r for r in rows if r["registry"] == registry]
        both = [r for r in rs if r["plain"]["ok"] and r["fast"]["ok"]]
        if not rs:
            continue
        reg = {"releases": len(rs), "both_ok": len(both), "servers": len({r["id"] for r in rs})}
        for label, key in (("sweep_wall_s", "wall_ms"), ("installs_s", "install_ms")):
            sums = {s: round(sum(r[s][key] for r in both) / 1000, 1) for s in SIDES}
            reg[label] = sums | {"ratio": round(sums["fast"] / sums["plain"], 3) if sums["plain"] else None}
        med = {s: round(statistics.median(r[s]["install_ms"] for r in both) / 1000, 2) if both else None
               for s in SIDES}
        reg["install_median_s"] = med | {"ratio": round(med["fast"] / med["plain"], 3) if med["plain"] else None}
        later = [r for r in both if r["index"] > 0]  # the releases a sweep can reuse for
        if later:
            m = {s: round(statistics.median(r[s]["install_ms"] for r in later) / 1000, 2) for s in SIDES}
            reg["install_median_after_first_s"] = m | {"ratio": round(m["fast"] / m["plain"], 3)}
        reused = [r for r in both if r["fast"]["reused"]]  # a seed published earlier was there
        if reused:
            m = {s: round(statistics.median(r[s]["install_ms"] for r in reused) / 1000, 2) for s in SIDES}
            reg["install_median_reused_s"] = m | {"ratio": round(m["fast"] / m["plain"], 3)}
        check = sum(r["fast"]["check_ms"] for r in both)
        walls = {s: sum(r[s]["wall_ms"] for r in both) for s in SIDES}
        reg["sweep_wall_less_check_ratio"] = round((walls["fast"] - check) / walls["plain"], 3) if both else None
        reg["check"] = {"checked": sum(1 for r in both if r["fast"]["check"]),
                        "equal": sum(1 for r in both if r["fast"]["check"] == "equal"),
                        "other": [f"{r['id']} {r['version']}: {r['fast']['check']}" for r in both
                                  if r["fast"]["check"] not in (None, "equal")],
                        "cost_s": round(check / 1000, 1),
                        "share_of_fast_wall": round(check / sum(r["fast"]["wall_ms"] for r in both), 3)
                        if both else None}
        reg["reused"] = sum(1 for r in both if r["fast"]["reused"])
        reg["captures_equal"] = f"{sum(1 for r in both if r['equal'] is None)}/{len(both)}"
        reg["tools_equal"] = f"{sum(1 for r in both if r['tools_equal'])}/{len(both)}"
        reg["differ"] = [f"{r['id']} {r['version']}: {r['equal']}" for r in both if r["equal"] is not None]
        reg["failed"] = [f"{r['id']} {r['version']} {s}: {r[s]['error']}" for r in rs for s in SIDES
                         if not r[s]["ok"]]
        trees = [r for r in both if "tree" in r]
        if trees:
            reg["trees_same"] = f"{sum(1 for r in trees if r['tree']['same'])}/{len(trees)}"
        out[registry] = reg
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(prog="bench/bench_sweep.py", description=__doc__.splitlines()[0])
    parser.add_argument("--work", default="/tmp/bench-sweep")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--per-registry", type=int, default=8)
    parser.add_argument("--releases", type=int, default=6)
    parser.add_argument("--check-every", type=int, default=10, help="the fast side's --reuse-check-every")
    parser.add_argument("--whole", action="store_true",
                        help="each side crawls a server's releases in one crawl, as the survey does "
                             "(installs 4 at a time), not release by release")
    parser.add_argument("--fresh", action="store_true", help="start over: remove WORK first")
    args = parser.parse_args(argv)
    work = work_folder(args.work, args.fresh)
    rows = run(args)
    summary = summarize(rows)
    (work / "summary.json").write_text(json.dumps(summary, indent=1))
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
