"""What a survey of many servers costs, from what this machine measured.

    .venv/bin/python bench/scale_model.py [--servers 10000] [--releases 12] [--hours 24]

Inputs, all measured here:

- the ecosystem crawl's log (``data/ecosystem/captures/crawl-log.jsonl``,
  its first pass: every release installed as of its publish date, then
  captured): install and capture time per attempt, attempts per planned
  release, how many ran at once on this 2-core machine (the time the
  attempts add up to over the time some attempt was running);
- the lake those captures make: ``ingest`` then the diff stage (consecutive
  release pairs, 2 processes) timed on this machine, and each table's
  bytes per capture and per pair.

It prints the inputs, then the model's table (docs/scale.md is its
write-up). Nothing is fetched: the captures are committed.
"""

import argparse
import datetime as dt
import json
import pathlib
import statistics
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
LOG = ROOT / "data" / "ecosystem" / "captures" / "crawl-log.jsonl"
CAPTURES = ROOT / "data" / "ecosystem" / "captures"
PLANNED = 1245  # releases data/servers/ecosystem.yaml plans (docs/ecosystem/README.md)


def crawl_inputs() -> dict:
    rows = [json.loads(line) for line in LOG.read_text().splitlines() if line.strip()]
    install = [r["install_ms"] / 1000 for r in rows if isinstance(r.get("install_ms"), int)]
    capture = [r["capture_ms"] / 1000 for r in rows if isinstance(r.get("capture_ms"), int)]
    spans = []
    for r in rows:
        start = dt.datetime.fromisoformat(r["captured_at"].replace("Z", "+00:00")).timestamp()
        spans.append((start, start + r["duration_ms"] / 1000))
    busy, end = 0.0, float("-inf")
    for start, stop in sorted(spans):  # the union of the attempts' intervals
        if stop > end:
            busy += stop - max(start, end)
            end = stop
    summed = sum(stop - start for start, stop in spans)
    pypi = [r for r in rows if r.get("python")]
    captured = {(r["id"], r["version"]) for r in rows if r["ok"]}
    return {"attempts": len(rows), "ok": len(captured), "planned": PLANNED,
            "install_mean_s": statistics.mean(install), "install_median_s": statistics.median(install),
            "capture_mean_s": statistics.mean(capture), "capture_median_s": statistics.median(capture),
            "pypi_share": len(pypi) / len(rows), "busy_h": busy / 3600, "summed_h": summed / 3600,
            "at_once": summed / busy}


def lake_inputs() -> dict:
    from mcpdelta.engine.policy import Policy
    from mcpdelta.lake import Lake
    from mcpdelta.lake.ingest import rows_from_folder, store
    from mcpdelta.survey.diffstage import run_diff_stage

    with tempfile.TemporaryDirectory() as folder:
        lake = Lake(f"{folder}/lake")
        t = time.perf_counter()
        rows, attempts = rows_from_folder(str(CAPTURES), warn=lambda line: None)
        store(lake, rows, attempts)
        ingest_s = time.perf_counter() - t
        t = time.perf_counter()
        stats = run_diff_stage(lake, Policy(), workers=2)
        diff_s = time.perf_counter() - t
        con = lake.connect()
        counts = dict(con.execute("SELECT 'captures', count(*) FROM manifests WHERE ok UNION ALL "
                                  "SELECT 'changes', count(*) FROM changes").fetchall())
        sizes = {table: sum(p.stat().st_size for p in (pathlib.Path(folder) / "lake" / table).rglob("*.parquet"))
                 for table in ("manifests", "tools", "probes", "attempts", "pairs", "changes")}
    captures, pairs = counts["captures"], stats["pairs"]
    return {"captures": captures, "pairs": pairs, "changes": counts["changes"], "ingest_s": ingest_s,
            "diff_s": diff_s, "pairs_per_s": stats["pairs_diffed"] / diff_s,
            "capture_bytes": sum(sizes[t] for t in ("manifests", "tools", "probes", "attempts")) / captures,
            "pair_bytes": (sizes["pairs"] + sizes["changes"]) / pairs, "sizes": sizes}


def model(crawl, lake, servers, releases, hours) -> list:
    planned = servers * releases
    attempts = planned * crawl["attempts"] / crawl["planned"]
    install_h = attempts * crawl["install_mean_s"] / 3600
    capture_h = attempts * crawl["capture_mean_s"] / 3600
    captured = planned * crawl["ok"] / crawl["planned"]
    pairs = max(captured - servers, 0)  # consecutive pairs: each captured release after a server's first
    diff_h = pairs / lake["pairs_per_s"] / 3600  # two processes of this machine
    # one worker = this machine: 2 cores running `at_once` installs and captures
    worker_h = (install_h + capture_h) / crawl["at_once"]
    workers = worker_h / hours
    storage_gb = (captured * lake["capture_bytes"] + pairs * lake["pair_bytes"]) / 1e9
    return [
        ("releases planned", f"{planned:,.0f}", f"{servers:,} servers x {releases}"),
        ("install attempts", f"{attempts:,.0f}",
         f"{crawl['attempts'] / crawl['planned']:.2f} attempts a planned release (retries, failures tried again)"),
        ("install time, summed", f"{install_h:,.0f} h", f"{crawl['install_mean_s']:.1f} s an attempt (mean)"),
        ("capture time, summed", f"{capture_h:,.0f} h", f"{crawl['capture_mean_s']:.1f} s an attempt (mean)"),
        ("releases captured", f"{captured:,.0f}",
         f"{crawl['ok'] / crawl['planned']:.1%} of those planned (the ecosystem crawl's share)"),
        ("crawl, in worker-hours", f"{worker_h:,.0f} h",
         f"a worker = a 2-core machine running {crawl['at_once']:.1f} attempts at once"),
        (f"workers to crawl in {hours:g} h", f"{workers:,.0f}", "2-core workers, each its own package cache"),
        ("version pairs diffed", f"{pairs:,.0f}", "consecutive releases"),
        ("diff time", f"{diff_h * 60:,.1f} min",
         f"{lake['pairs_per_s']:,.0f} pairs/s on 2 processes (this machine, ecosystem captures)"),
        ("lake size", f"{storage_gb:,.2f} GB",
         f"{lake['capture_bytes'] / 1e3:.1f} KB a capture, {lake['pair_bytes'] / 1e3:.1f} KB a pair"),
        ("diff time on those workers", f"{diff_h * 60 / max(workers, 1):,.1f} min",
         "one diff task per group of servers, each on a worker"),
    ]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", type=int, default=10_000)
    parser.add_argument("--releases", type=int, default=12)
    parser.add_argument("--hours", type=float, default=24.0, help="the crawl's target wall time")
    args = parser.parse_args(argv)
    crawl = crawl_inputs()
    lake = lake_inputs()
    print("crawl log:", json.dumps({k: round(v, 3) if isinstance(v, float) else v for k, v in crawl.items()}))
    print("lake:", json.dumps({k: round(v, 3) if isinstance(v, float) else v for k, v in lake.items()}))
    print()
    print("| quantity | figure | from |")
    print("| --- | ---: | --- |")
    for name, figure, source in model(crawl, lake, args.servers, args.releases, args.hours):
        print(f"| {name} | {figure} | {source} |")


if __name__ == "__main__":
    main()
