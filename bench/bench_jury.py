"""Benchmark of the offline judge (the jury extra): its load time and its
time per 1,000 description pairs.

    .venv/bin/python bench/bench_jury.py [--captures data/ecosystem/captures] [--rounds 5]

Load: a fresh process imports the member and loads the model from its wheel
(``offline.load``), timed inside that process, ``--rounds`` times; the
process's own start is left out. Pairs: the first 1,000 distinct
(old, new) tool descriptions that differ between two captures of the same
server in ``--captures``, in name order; each round answers all of them
afresh (no cache): the embedding distance, the engine's character
similarity and the security rules, then each part alone.
"""

import argparse
import gzip
import json
import os
import pathlib
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
# an installed mcpdelta is measured, as users run it; a checkout without one, its own source
sys.path.append(str(ROOT))

from mcpdelta.judge import offline, security  # noqa: E402

LOAD = """
import time
t, c = time.perf_counter(), time.process_time()
from mcpdelta.judge import offline
offline.load()
print(time.perf_counter() - t, time.process_time() - c)
"""


def pairs_from(captures, limit=1000) -> list:
    """Changed tool descriptions between captures of the same server."""
    out, seen = [], set()
    for server in sorted(os.listdir(captures)):
        folder = os.path.join(captures, server)
        if not os.path.isdir(folder):
            continue
        described = {}
        for name in sorted(os.listdir(folder)):
            if not name.endswith(".json.gz"):
                continue
            with gzip.open(os.path.join(folder, name), "rt", encoding="utf-8") as handle:
                capture = json.load(handle)
            for tool in capture.get("tools") or []:
                text = tool.get("description") if isinstance(tool, dict) else None
                if isinstance(text, str):
                    described.setdefault(tool.get("name"), []).append(text)
        for texts in described.values():
            for old, new in zip(texts, texts[1:]):
                if old != new and (old, new) not in seen:
                    seen.add((old, new))
                    out.append((old, new))
                    if len(out) == limit:
                        return out
    return out


def timed(fn, rounds) -> list:
    """(wall, CPU) seconds of each round: on a shared machine the CPU time
    is the figure that does not depend on the neighbours."""
    times = []
    for _ in range(rounds):
        t, c = time.perf_counter(), time.process_time()
        fn()
        times.append((time.perf_counter() - t, time.process_time() - c))
    return times


def medians(times, scale=1.0) -> dict:
    return {"wall": round(statistics.median(w for w, _ in times) * scale, 3),
            "cpu": round(statistics.median(c for _, c in times) * scale, 3)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--captures", default=str(ROOT / "data" / "ecosystem" / "captures"))
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT)}
    loads = [tuple(map(float, subprocess.run([sys.executable, "-c", LOAD], capture_output=True, text=True,
                                             env=env, check=True).stdout.split()))
             for _ in range(args.rounds)]
    pairs = pairs_from(args.captures)
    chars = sum(len(a) + len(b) for a, b in pairs)
    offline.load()
    judge = offline.OfflineJudge()
    whole = timed(lambda: judge.answers(pairs), args.rounds)
    embed = timed(lambda: offline.distances(pairs), args.rounds)
    fuzz = timed(lambda: [offline.similarity(a, b) for a, b in pairs], args.rounds)
    rules = timed(lambda: [security.flags(a, b) for a, b in pairs], args.rounds)
    per_1000 = 1000 / len(pairs)
    print(json.dumps({
        "wordllama": offline.version(), "pairs": len(pairs), "mean_chars_per_pair": round(chars / len(pairs)),
        "load_s": medians(loads), "load_s_max_wall": round(max(w for w, _ in loads), 3),
        "load_average": round(os.getloadavg()[0], 1),
        "per_1000_pairs_s": {name: medians(t, per_1000) for name, t in
                             (("whole", whole), ("embedding", embed), ("similarity", fuzz),
                              ("security_rules", rules))},
        "rounds": args.rounds,
    }, indent=2))


if __name__ == "__main__":
    main()
