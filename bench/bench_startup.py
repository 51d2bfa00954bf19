"""Start-up of the ``mcpdelta`` console script, two installs side by side.

    python bench/bench_startup.py BEFORE_VENV AFTER_VENV [--rounds 41]

Times, interleaved round by round (a busy moment of the machine falls on
both alike), the whole process of ``mcpdelta -V`` and of ``mcpdelta diff``
on a small real pair (the engine's ``tool.removed`` rule case) in two
regular installs, e.g. one made before a change and one after; prints the
median wall and CPU time (user + system of the child) of each, and the
ratio after / before.
"""

import argparse
import os
import pathlib
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
CASE = ROOT / "tests" / "engine" / "cases" / "tool_removed.yaml"


def pair(folder: pathlib.Path) -> list[str]:
    """The rule case's two manifests as files."""
    import json

    from mcpdelta.inputs import load_yaml, read_text

    case = load_yaml(read_text(CASE), str(CASE))
    paths = []
    for side in ("old", "new"):
        path = folder / f"{side}.json"
        path.write_text(json.dumps(case[side]))
        paths.append(str(path))
    return paths


def timed(argv) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall * 1000, cpu * 1000


def main() -> int:
    parser = argparse.ArgumentParser(prog="bench/bench_startup.py", description=__doc__.splitlines()[0])
    parser.add_argument("before", help="a venv with mcpdelta installed (the baseline)")
    parser.add_argument("after", help="a venv with mcpdelta installed (measured against it)")
    parser.add_argument("--rounds", type=int, default=41)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        old, new = pair(pathlib.Path(tmp))
        commands = {"-V": ["-V"], "diff": ["diff", old, new]}
        times = {(side, name): [] for side in ("before", "after") for name in commands}
        venvs = {"before": args.before, "after": args.after}
        for side in venvs:  # once each, unmeasured: the page cache warm for both
            for argv in commands.values():
                timed([os.path.join(venvs[side], "bin", "mcpdelta"), *argv])
        for i in range(args.rounds):
            order = ("before", "after") if i % 2 == 0 else ("after", "before")
            for name, argv in commands.items():
                for side in order:
                    times[side, name].append(timed([os.path.join(venvs[side], "bin", "mcpdelta"), *argv]))
    print(f"{args.rounds} interleaved rounds, load average {os.getloadavg()[0]:.1f}")
    print("| command | before wall | after wall | before CPU | after CPU | after / before (CPU) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for name in commands:
        b = [statistics.median(x) for x in zip(*times["before", name])]
        a = [statistics.median(x) for x in zip(*times["after", name])]
        print(f"| `mcpdelta {name}` | {b[0]:.1f} ms | {a[0]:.1f} ms | {b[1]:.1f} ms | {a[1]:.1f} ms | {a[1] / b[1]:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
