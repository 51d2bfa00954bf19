"""Benchmark of ``mcpdelta diff``: in-process and whole-process, in one run.

    .venv/bin/python bench/bench_diff.py [--peers]

Reports, for a realistic 20-tool pair and a 500-tool pair (two changed tools
each): the engine's diff time and load+diff time, each as a ratio to a plain
``json.loads`` of the same two files; then the whole-process wall time of
``mcpdelta diff`` on the 20-tool pair against ``python -c pass`` and, with
``--peers``, against the peer CLI ``mcp-compat`` 0.1.0 (installed into
``bench/.peers`` on first use). Then the same for a real pair, the committed
captures of ``@playwright/mcp`` 0.0.60 and 0.0.83 (22 -> 25 tools, 21
BREAKING changes, most of them the rename of ``ref`` to ``target`` in eleven
tools), with every BREAKING change's witness outcome; there the commands,
and ``python -c "import jsonschema_rs"`` (the independent validator's
import alone, a floor under any diff with a witness), are timed
interleaved (one run of each per round), so a busy moment of the machine
falls on all of them alike. Machines are noisy: read the ratios,
which compare timings taken in the same run.
"""

import argparse
import json
import os
import pathlib
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
# an installed mcpdelta is measured, as users run it; a checkout without one, its own source
sys.path.append(str(ROOT))

from mcpdelta.engine import diff  # noqa: E402
from mcpdelta.engine.manifest import read_manifest  # noqa: E402

WORDS = ("search list create update delete fetch item record user project issue file "
         "page note tag query filter sort limit offset owner repo branch commit status").split()


def _tool(rnd: random.Random, index: int) -> dict:
    props = {}
    for _ in range(rnd.randint(3, 8)):
        name = f"{rnd.choice(WORDS)}_{rnd.randint(0, 99)}"
        kind = rnd.choice(["string", "integer", "boolean", "array", "object", "enum"])
        desc = " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(5, 14))).capitalize() + "."
        if kind == "enum":
            prop = {"type": "string", "enum": rnd.sample(WORDS, 4)}
        elif kind == "array":
            prop = {"type": "array", "items": {"type": "string", "maxLength": 200}, "maxItems": 50}
        elif kind == "object":
            prop = {"type": "object", "properties": {
                "key": {"type": "string"}, "value": {"type": ["string", "null"]}},
                "required": ["key"], "additionalProperties": False}
        elif kind == "integer":
            prop = {"type": "integer", "minimum": 0, "maximum": 1000, "default": 10}
        else:
            prop = {"type": kind}
        prop["description"] = desc
        props[name] = prop
    return {
        "name": f"{rnd.choice(WORDS)}_{rnd.choice(WORDS)}_{index}",
        "title": f"Tool {index}",
        "description": " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(12, 40))).capitalize() + ".",
        "inputSchema": {"type": "object", "properties": props, "required": sorted(props)[:2],
                        "additionalProperties": False,
                        "$schema": "http://json-schema.org/draft-07/schema#"},
        "annotations": {"readOnlyHint": rnd.random() < 0.5, "openWorldHint": False},
    }


def make_pair(tools: int, seed: int = 42):
    """Two manifests of ``tools`` tools; the new one changes exactly two."""
    rnd = random.Random(seed)
    old = {"protocolVersion": "2025-06-18", "serverInfo": {"name": "bench", "version": "1.0.0"},
           "capabilities": {"tools": {"listChanged": True}},
           "tools": [_tool(rnd, i) for i in range(tools)]}
    new = json.loads(json.dumps(old))
    first, second = new["tools"][3], new["tools"][tools // 2]
    victim = sorted(first["inputSchema"]["properties"])[-1]
    del first["inputSchema"]["properties"][victim]  # a property removed
    for prop in second["inputSchema"]["properties"].values():
        if "maximum" in prop:
            prop["maximum"] = 500  # a bound tightened
    second["description"] += " Results are cached for 60 seconds."
    return old, new


def _best(fn, repeat: int) -> float:
    """Median of ``repeat`` timings, seconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _wall(cmd, repeat: int) -> float:
    def run():
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    run()  # warm the page cache
    return _best(run, repeat)


def in_process(folder: pathlib.Path, tools: int, repeat: int) -> dict:
    old, new = make_pair(tools)
    a, b = folder / f"old-{tools}.json", folder / f"new-{tools}.json"
    a.write_text(json.dumps(old, indent=2))
    b.write_text(json.dumps(new, indent=2))
    # the peer CLI reads a bare JSON array of tools
    (folder / f"old-{tools}-tools.json").write_text(json.dumps(old["tools"], indent=2))
    (folder / f"new-{tools}-tools.json").write_text(json.dumps(new["tools"], indent=2))
    texts = (a.read_text(), b.read_text())
    docs = (json.loads(texts[0]), json.loads(texts[1]))
    # the baseline: read and json.loads the same two files
    parse = _best(lambda: (json.loads(a.read_bytes()), json.loads(b.read_bytes())), repeat)
    engine = _best(lambda: diff(*docs), repeat)
    full = _best(lambda: diff(read_manifest(str(a)), read_manifest(str(b))), repeat)
    changes = len(diff(*docs))
    return {"tools": tools, "bytes": len(texts[0]) + len(texts[1]), "changes": changes,
            "parse_ms": parse * 1e3, "diff_ms": engine * 1e3, "load_diff_ms": full * 1e3,
            "diff_x_parse": engine / parse, "load_diff_x_parse": full / parse,
            "files": (a, b)}


def _peer(install: bool):
    peers = HERE / ".peers"
    exe = peers / "bin" / "mcp-compat"
    if not exe.exists() and install:
        subprocess.run([sys.executable, "-m", "venv", str(peers)], check=True)
        subprocess.run([str(peers / "bin" / "pip"), "install", "-q", "mcp-compat==0.1.0"], check=True)
    return exe if exe.exists() else None


PLAYWRIGHT = ROOT / "data" / "survey" / "captures" / "playwright-mcp"


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _interleaved(cmds: dict, repeat: int) -> dict:
    """Median (wall, CPU) seconds of each command, one run of each per
    round. CPU time (user + system of the child) barely moves with the
    machine's load; wall time does."""
    times = {name: [] for name in cmds}
    cpus = {name: [] for name in cmds}
    for cmd in cmds.values():  # warm the page cache
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    for _ in range(repeat):
        for name, cmd in cmds.items():
            start, cpu = time.perf_counter(), _cpu()
            subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            times[name].append(time.perf_counter() - start)
            cpus[name].append(_cpu() - cpu)
    return {name: (statistics.median(times[name]), statistics.median(cpus[name])) for name in cmds}


def real_pair(folder: pathlib.Path, script, peer, repeat: int) -> None:
    old, new = PLAYWRIGHT / "0.0.60.json", PLAYWRIGHT / "0.0.83.json"
    report = json.loads(subprocess.run([str(script), "diff", str(old), str(new), "--format", "json"],
                                       capture_output=True, text=True).stdout)
    breaking = [c for c in report["changes"] if c["severity"] == "BREAKING"]
    outcome = {}
    for change in breaking:
        note = change.get("witness_note") or ""
        key = ("witnessed" if change.get("witness") else
               "accepted but ignored" if note.startswith("accepted but ignored") else
               "none by nature" if note.startswith(("none by nature", "not a schema change")) else
               "not found")
        outcome[key] = outcome.get(key, 0) + 1
    print(f"\nreal pair: @playwright/mcp 0.0.60 -> 0.0.83, {len(breaking)} BREAKING: "
          + ", ".join(f"{n} {k}" for k, n in sorted(outcome.items())))
    # the independent validator's import alone: a floor under any diff with a witness
    cmds = {"python -c pass": [sys.executable, "-c", "pass"],
            "python -c 'import jsonschema_rs'": [sys.executable, "-c", "import jsonschema_rs"],
            "mcpdelta diff --format json": [str(script), "diff", str(old), str(new), "--format", "json"],
            "mcpdelta diff --format json --witness never": [
                str(script), "diff", str(old), str(new), "--format", "json", "--witness", "never"]}
    if peer is not None:
        ta, tb = folder / "pw-old-tools.json", folder / "pw-new-tools.json"
        ta.write_text(json.dumps(json.loads(old.read_text())["tools"]))
        tb.write_text(json.dumps(json.loads(new.read_text())["tools"]))
        cmds["mcp-compat 0.1.0"] = [str(peer), str(ta), str(tb)]
    times = _interleaved(cmds, repeat)
    print(f"whole process, interleaved (median of {repeat}, bytecode compiled): wall, CPU; "
          f"load average (1 min) {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for name, (wall, cpu) in times.items():
        print(f"  {name:<46} {wall * 1e3:7.1f} ms  {cpu * 1e3:7.1f} ms")
    if peer is not None:
        ours, theirs = times["mcpdelta diff --format json"], times["mcp-compat 0.1.0"]
        print(f"  mcpdelta diff (witnesses on) / mcp-compat = {ours[0] / theirs[0]:.2f} wall, "
              f"{ours[1] / theirs[1]:.2f} CPU")
        floor = times["python -c 'import jsonschema_rs'"]
        print(f"  import jsonschema_rs alone / mcp-compat = {floor[0] / theirs[0]:.2f} wall, "
              f"{floor[1] / theirs[1]:.2f} CPU")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--peers", action="store_true", help="also time mcp-compat 0.1.0")
    args = parser.parse_args(argv)
    script = pathlib.Path(sys.executable).with_name("mcpdelta")
    with tempfile.TemporaryDirectory() as tmp:
        folder = pathlib.Path(tmp)
        rows = [in_process(folder, n, args.repeat) for n in (20, 500)]
        print("in-process (median of %d)" % args.repeat)
        print(f"{'tools':>6} {'bytes':>9} {'changes':>8} {'json.loads':>11} {'diff':>9} "
              f"{'x parse':>8} {'load+diff':>10} {'x parse':>8}")
        for r in rows:
            print(f"{r['tools']:>6} {r['bytes']:>9} {r['changes']:>8} {r['parse_ms']:>9.2f}ms "
                  f"{r['diff_ms']:>7.2f}ms {r['diff_x_parse']:>7.2f}x {r['load_diff_ms']:>8.2f}ms "
                  f"{r['load_diff_x_parse']:>7.2f}x")
        a, b = rows[0]["files"]
        repeat = max(10, args.repeat // 2)
        # an installed package is byte-compiled at install time; an editable
        # one is not, and PYTHONDONTWRITEBYTECODE would keep it that way
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "mcpdelta")], check=True)
        bare = _wall([sys.executable, "-c", "pass"], repeat)
        ours = _wall([str(script), "diff", str(a), str(b)], repeat)
        plain = _wall([str(script), "diff", str(a), str(b), "--witness", "never"], repeat)
        print(f"\nwhole process, 20-tool pair (median of {repeat}, bytecode compiled)")
        print(f"  python -c pass                  {bare * 1e3:7.1f} ms")
        print(f"  mcpdelta diff                   {ours * 1e3:7.1f} ms  (witnesses on, the default)")
        print(f"  mcpdelta diff --witness never   {plain * 1e3:7.1f} ms  "
              f"(witnesses cost {(ours - plain) * 1e3:.1f} ms)")
        peer = _peer(args.peers)
        if peer is not None:
            ta, tb = folder / "old-20-tools.json", folder / "new-20-tools.json"
            check = subprocess.run([str(peer), str(ta), str(tb)], capture_output=True, text=True)
            theirs = _wall([str(peer), str(ta), str(tb)], repeat)
            print(f"  mcp-compat 0.1.0                {theirs * 1e3:7.1f} ms  (exit {check.returncode}); "
                  f"mcpdelta / mcp-compat = {ours / theirs:.2f}")
        real_pair(folder, script, peer, max(9, args.repeat // 3))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
