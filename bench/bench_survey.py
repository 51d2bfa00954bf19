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

    .venv/bin/python bench/bench_survey.py --realistic --servers 200 --versions 51

grows the histories from the real captures in ``data/`` instead: each
server starts from a real capture, and each release edits one to three of
its tools the way real servers do (a description reworded, an optional or a
required property added, a property removed, an enum widened, a tool added
from another real server, a tool removed; one release in eight changes
nothing). The diff stage is then timed with witnesses on (the default) and
off (``--witness never``), each on its own copy of the lake.
"""

import argparse
import copy
import json
import os
import pathlib
import random
import resource
import shutil
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
# an installed mcpdelta is measured, as users run it; a checkout without one, its own source
sys.path.append(str(ROOT))

# The pipeline is imported in main(), not here: a diff worker (spawned)
# imports this script again, and should load what a survey's worker loads
# (the mcpdelta script imports next to nothing), not the lake and ingest.

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


DATA = ROOT / "data"


def real_manifests():
    """Every parseable real capture with tools, in a stable order."""
    out = []
    for path in sorted(DATA.glob("**/*.json")):
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError):
            continue
        if isinstance(doc, dict) and isinstance(doc.get("tools"), list) and doc["tools"] \
                and all(isinstance(t, dict) and "name" in t for t in doc["tools"]):
            out.append(doc)
    return out


def _real_edit(rnd, manifest, pool):
    tools = manifest["tools"]
    kind = rnd.choice(["describe", "describe", "add_optional", "add_required", "remove_prop",
                       "enum", "add_tool", "remove_tool"])
    if kind == "add_tool" or not tools:
        tool = copy.deepcopy(rnd.choice(pool))
        tool["name"] = f"{tool['name']}_{rnd.randint(0, 9999)}"
        tools.append(tool)
        return
    tool = rnd.choice(tools)
    schema = tool.get("inputSchema")
    props = schema.get("properties") if isinstance(schema, dict) else None
    if kind == "remove_tool" and len(tools) > 1:
        tools.remove(tool)
    elif kind in ("add_optional", "add_required") and isinstance(props, dict):
        donor = rnd.choice(pool).get("inputSchema") or {}
        donor_props = donor.get("properties") if isinstance(donor, dict) else None
        name, prop = (rnd.choice(sorted(donor_props.items())) if isinstance(donor_props, dict)
                      and donor_props else ("extra", {"type": "string"}))
        name = f"{name}_{rnd.randint(0, 999)}"
        props[name] = copy.deepcopy(prop)
        if kind == "add_required":
            schema["required"] = sorted(set(schema.get("required") or []) | {name})
    elif kind == "remove_prop" and isinstance(props, dict) and props:
        gone = rnd.choice(sorted(props))
        props.pop(gone)
        if isinstance(schema.get("required"), list):
            schema["required"] = [r for r in schema["required"] if r != gone]
    elif kind == "enum" and isinstance(props, dict):
        enums = [p for _, p in sorted(props.items()) if isinstance(p, dict) and isinstance(p.get("enum"), list)]
        if enums:
            enums[0]["enum"].append(f"v{len(enums[0]['enum'])}")
        else:
            kind = "describe"
    if kind == "describe" or (kind == "remove_tool" and len(tools) <= 1):
        words = str(tool.get("description") or "").split()
        rnd.shuffle(words)
        tool["description"] = " ".join(words[: max(3, len(words) - 1)]) + f" (rev {rnd.randint(0, 999)})."


def real_history(seed, versions, bases, pool):
    """(version, manifest JSON text) for one server grown from a real capture."""
    rnd = random.Random(seed)
    manifest = copy.deepcopy(bases[rnd.randrange(len(bases))])
    manifest.pop("nextCursor", None)
    out = []
    for v in range(versions):
        if v and rnd.random() > 0.125:
            for _ in range(rnd.randint(1, 3)):
                _real_edit(rnd, manifest, pool)
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


def _cpu() -> float:
    """CPU seconds of this process and its ended children (the workers)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _timed_stage(lake, policy, workers):
    from mcpdelta.survey.diffstage import run_diff_stage

    start, cpu = time.perf_counter(), _cpu()
    stats = run_diff_stage(lake, policy, workers=workers)
    stats["cpu_s"] = _cpu() - cpu
    return stats, time.perf_counter() - start


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", type=int, default=100)
    parser.add_argument("--versions", type=int, default=100)
    parser.add_argument("--workers", type=int)
    parser.add_argument("--realistic", action="store_true",
                        help="grow the histories from the real captures in data/")
    parser.add_argument("--lake", help="keep the lake here (default: a temporary folder)")
    args = parser.parse_args(argv)
    from mcpdelta.engine.policy import Policy
    from mcpdelta.lake import Lake
    from mcpdelta.lake.ingest import capture_row, store

    load_start = os.getloadavg()[0]
    if args.realistic:
        bases = real_manifests()
        pool = [t for m in bases for t in m["tools"]]

        def history(s):
            return real_history(s, args.versions, bases, pool)
    else:
        def history(s):
            return server_history(s, args.versions)

    with tempfile.TemporaryDirectory() as tmp:
        root = args.lake or f"{tmp}/lake"
        lake = Lake(root)
        t = time.perf_counter()
        ingest_s, size, floor_pairs, floor_s = 0.0, 0, 0, 0.0
        for first in range(0, args.servers, 50):  # bounded memory: 50 servers at a time
            chunk = [history(s) for s in range(first, min(first + 50, args.servers))]
            p, f = floor(chunk)
            floor_pairs, floor_s = floor_pairs + p, floor_s + f
            size += sum(len(text) for h in chunk for _, text in h)
            rows = [capture_row(f"server-{first + i}", version, text, source="bench",
                                captured_at="2026-01-01T00:00:00Z")
                    for i, history_ in enumerate(chunk) for version, text in history_]
            start = time.perf_counter()
            store(lake, rows)
            ingest_s += time.perf_counter() - start
        generate_s = time.perf_counter() - t - ingest_s - floor_s
        captures = args.servers * args.versions
        if args.realistic:
            shutil.copytree(root, f"{tmp}/lake-never")
            off_lake = Lake(f"{tmp}/lake-never")
            on, on_s = _timed_stage(lake, Policy(), args.workers)
            off, off_s = _timed_stage(off_lake, Policy(witness="never"), args.workers)
            runs = [("witnesses on", on, on_s), ("witnesses off", off, off_s)]
            cached, cached_s = _timed_stage(lake, Policy(), args.workers)
        else:
            policy = Policy(witness="never")  # the engine alone: witnesses are measured by bench_diff
            stats, diff_s = _timed_stage(lake, policy, args.workers)
            runs = [("", stats, diff_s)]
            cached, cached_s = _timed_stage(lake, policy, args.workers)
        con = lake.connect()
        changes = con.execute("SELECT count(*) FROM changes").fetchall()[0][0]
        moved = con.execute("SELECT count(*) FROM pairs WHERE changes > 0").fetchall()[0][0]
        witnessed = con.execute("SELECT sum(breaking), sum(witnessed) FROM pairs").fetchall()[0]

    pairs = runs[0][1]["pairs"]
    kind = "realistic (grown from data/ captures)" if args.realistic else "synthetic"
    import mcpdelta

    print(f"mcpdelta from {pathlib.Path(mcpdelta.__file__).parent}")
    print(f"{kind} lake: {args.servers} servers x {args.versions} versions = {captures} captures, "
          f"{size / captures / 1024:.1f} KB each on average (generated in {generate_s:.1f} s); "
          f"{moved} of {pairs} pairs with changes, {changes} changes")
    print(f"floor (parse + tool equality, 1 core): {floor_pairs} pairs in {floor_s:.2f} s = "
          f"{floor_pairs / floor_s:,.0f} pairs/s")
    print(f"ingest (digests + Parquet): {captures} captures in {ingest_s:.2f} s = "
          f"{captures / ingest_s:,.0f} captures/s")
    for label, stats, seconds in runs:
        print(f"diff stage{' ' + label if label else ''}: {stats['pairs_diffed']} of {pairs} pairs "
              f"diffed in {seconds:.2f} s = {stats['pairs_diffed'] / seconds:,.0f} pairs/s; "
              f"floor / diff = {(floor_pairs / floor_s) / (stats['pairs_diffed'] / seconds):.1f}x; "
              f"CPU {stats['cpu_s']:.2f} s (all processes) = "
              f"{stats['cpu_s'] / max(1, stats['pairs_diffed']) * 1e3:.3f} ms a pair")
    if args.realistic:
        print(f"BREAKING changes witnessed (witnesses on): {witnessed[1]} of {witnessed[0]}")
    print(f"ingest + diff: {pairs / (ingest_s + runs[0][2]):,.0f} pairs/s")
    print(f"cached re-run: {cached['pairs_cached']} cached, {cached['pairs_diffed']} diffed, "
          f"{cached_s:.2f} s (CPU {cached['cpu_s']:.2f} s)")
    print(f"peak memory (max RSS, this process or a worker): {peak_rss_mib():,.0f} MiB")
    print(f"load average (1 min) at the start and the end: {load_start:.1f}, {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} cores (CPU time a pair moves far less with it than wall time)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
