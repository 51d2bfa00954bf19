"""Benchmark of the batch pipeline on a synthetic lake.

    .venv/bin/python bench/bench_survey.py --servers 1000 --versions 100

Generates realistic manifests (about 8 KB, 10-14 tools) for SERVERS servers
at VERSIONS versions each, every release applying edits of the kinds real
servers make (a property added or removed, a description reworded, a bound
tightened, an enum value added, a tool added; some releases change nothing),
then reports, in one run:

- the floor: parse each manifest and compare its tools by equality with the
  previous version's (one core, no engine);
- ingest (digests, Parquet) and the diff stage (pairs selection in DuckDB,
  both cores), as pairs per second;
- a second, fully cached run;
- peak memory (max RSS of this process and its workers).
"""

import argparse
import copy
import json
import pathlib
import random
import resource
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pipeline.engine.policy import Policy  # noqa: E402
from pipeline.lake import Lake  # noqa: E402
from pipeline.lake.ingest import capture_row, store  # noqa: E402
from pipeline.survey.diffstage import run_diff_stage  # noqa: E402

WORDS = ("search list create update delete fetch item record user project issue file page note "
         "tag query filter sort limit offset owner repo branch commit status").split()


def _property(rnd):
    kind = rnd.choice(["string", "integer", "boolean", "enum", "array"])
    desc = " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(4, 10))).capitalize() + "."
    if kind == "enum":
        return {"type": "string", "enum": rnd.sample(WORDS, 3), "description": desc}
    if kind == "array":
        return {"type": "array", "items": {"type": "string"}, "description": desc}
    if kind == "integer":
        return {"type": "integer", "minimum": 0, "maximum": 100, "description": desc}
    return {"type": kind, "description": desc}


def _tool(rnd, name):
    props = {f"{rnd.choice(WORDS)}_{i}": _property(rnd) for i in range(rnd.randint(2, 5))}
    return {"name": name,
            "description": " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(10, 25))).capitalize() + ".",
            "inputSchema": {"type": "object", "properties": props, "required": sorted(props)[:1]},
            "annotations": {"readOnlyHint": rnd.random() < 0.5}}


def _edit(rnd, manifest):
    tools = manifest["tools"]
    tool = rnd.choice(tools)
    props = tool["inputSchema"]["properties"]
    kind = rnd.choice(["add_prop", "remove_prop", "describe", "tighten", "enum", "add_tool"])
    if kind == "add_prop":
        props[f"new_{len(props)}_{rnd.randint(0, 999)}"] = _property(rnd)
    elif kind == "remove_prop" and len(props) > 1:
        props.pop(sorted(props)[-1])
    elif kind == "describe":
        tool["description"] = tool["description"].rstrip(".") + f" Returns at most {rnd.randint(5, 500)} items."
    elif kind == "tighten":
        for prop in props.values():
            if "maximum" in prop:
                prop["maximum"] = max(1, prop["maximum"] - 10)
    elif kind == "enum":
        for prop in props.values():
            if "enum" in prop:
                prop["enum"].append(f"v{len(prop['enum'])}")
    else:
        tools.append(_tool(rnd, f"tool_{len(tools)}_{rnd.randint(0, 999)}"))


def server_history(seed, versions):
    """(version, manifest JSON text) for one server's releases."""
    rnd = random.Random(seed)
    manifest = {"protocolVersion": "2025-06-18",
                "serverInfo": {"name": f"server-{seed}", "version": "1.0.0"},
                "capabilities": {"tools": {"listChanged": True}},
                "tools": [_tool(rnd, f"tool_{i}") for i in range(rnd.randint(10, 14))]}
    out = []
    for v in range(versions):
        if v and rnd.random() > 0.1:  # one release in ten changes nothing
            for _ in range(rnd.randint(1, 2)):
                _edit(rnd, manifest)
        manifest = copy.deepcopy(manifest)
        out.append((f"1.{v}.0", json.dumps(manifest)))
    return out


def floor(histories) -> tuple:
    """Parse each manifest and compare tools by equality with the previous one."""
    start = time.perf_counter()
    pairs = 0
    for history in histories:
        previous = None
        for _, text in history:
            tools = {t["name"]: t for t in json.loads(text)["tools"]}
            if previous is not None:
                pairs += 1
                _ = [n for n in tools if previous.get(n) != tools[n]]
            previous = tools
    return pairs, time.perf_counter() - start


def peak_rss_mib() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, children) / 1024


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", type=int, default=100)
    parser.add_argument("--versions", type=int, default=100)
    parser.add_argument("--workers", type=int)
    parser.add_argument("--lake", help="keep the lake here (default: a temporary folder)")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        lake = Lake(args.lake or f"{tmp}/lake")
        t = time.perf_counter()
        ingest_s, size, floor_pairs, floor_s = 0.0, 0, 0, 0.0
        for first in range(0, args.servers, 50):  # bounded memory: 50 servers at a time
            chunk = [server_history(s, args.versions) for s in range(first, min(first + 50, args.servers))]
            p, f = floor(chunk)
            floor_pairs, floor_s = floor_pairs + p, floor_s + f
            size += sum(len(text) for h in chunk for _, text in h)
            rows = [capture_row(f"server-{first + i}", version, text, source="bench",
                                captured_at="2026-01-01T00:00:00Z")
                    for i, history in enumerate(chunk) for version, text in history]
            start = time.perf_counter()
            store(lake, rows)
            ingest_s += time.perf_counter() - start
        generate_s = time.perf_counter() - t - ingest_s - floor_s
        captures = args.servers * args.versions

        start = time.perf_counter()
        policy = Policy(witness="never")  # the engine alone: witnesses are measured by bench_diff
        stats = run_diff_stage(lake, policy, workers=args.workers)
        diff_s = time.perf_counter() - start
        start = time.perf_counter()
        cached = run_diff_stage(lake, policy, workers=args.workers)
        cached_s = time.perf_counter() - start
        changes = lake.connect().execute("SELECT count(*) FROM changes").fetchall()[0][0]

    pairs = stats["pairs"]
    print(f"synthetic lake: {args.servers} servers x {args.versions} versions = {captures} captures, "
          f"{size / captures / 1024:.1f} KB each on average (generated in {generate_s:.1f} s)")
    print(f"floor (parse + tool equality, 1 core): {floor_pairs} pairs in {floor_s:.2f} s = "
          f"{floor_pairs / floor_s:,.0f} pairs/s")
    print(f"ingest (digests + Parquet): {captures} captures in {ingest_s:.2f} s = "
          f"{captures / ingest_s:,.0f} captures/s")
    print(f"diff stage: {stats['pairs_diffed']} of {pairs} pairs diffed in {diff_s:.2f} s = "
          f"{stats['pairs_diffed'] / diff_s:,.0f} pairs/s ({changes} changes); "
          f"floor / diff = {(floor_pairs / floor_s) / (stats['pairs_diffed'] / diff_s):.1f}x")
    print(f"ingest + diff: {pairs / (ingest_s + diff_s):,.0f} pairs/s")
    print(f"cached re-run: {cached['pairs_cached']} cached, {cached['pairs_diffed']} diffed, "
          f"{cached_s:.2f} s")
    print(f"peak memory (max RSS, this process or a worker): {peak_rss_mib():,.0f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
