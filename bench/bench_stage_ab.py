"""The diff stage alone, two installs interleaved, on one kept lake.

    python bench/bench_survey.py --realistic --servers 200 --versions 51 --lake /tmp/lake
    python bench/bench_stage_ab.py /tmp/lake OLD_VENV/bin/python NEW_VENV/bin/python --rounds 7

Real pairs: a lake of the committed ecosystem captures, every pair of
releases (the site's and the dataset's) or neighbours only (the survey's
default):

    mcpdelta ingest data/ecosystem/captures --lake /tmp/eco-lake
    python bench/bench_stage_ab.py /tmp/eco-lake OLD NEW --pairs all --rounds 3

Each round runs the stage once with each interpreter (each a regular install
of one version of mcpdelta, bytecode compiled), in a fresh process, on a
fresh copy of the lake without its ``changes`` and ``pairs``, and reports
the medians of wall time and of CPU time (the process and its pool
workers). Alternating the two in one run puts both under the same load,
which on a shared machine moves a single run by a fifth. The changes each
install wrote are compared row by row, the engine's hash and the batch's
bookkeeping aside: a faster stage must write the same report.
"""

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

# Run by each interpreter: the stage on LAKE with policy witness WITNESS.
STAGE = r"""
import json, resource, sys, time
try:
    from mcpdelta.engine.policy import Policy
    from mcpdelta.lake import Lake
    from mcpdelta.survey.diffstage import run_diff_stage
except ImportError:  # an install made before the package was named mcpdelta
    from pipeline.engine.policy import Policy
    from pipeline.lake import Lake
    from pipeline.survey.diffstage import run_diff_stage


def cpu():
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


if __name__ == "__main__":
    lake = Lake(sys.argv[1])
    lake.connect().close()  # as after ingest: the lake's files checked, DuckDB loaded
    policy = Policy() if sys.argv[2] == "BREAKING" else Policy(witness=sys.argv[2])
    start, used = time.perf_counter(), cpu()
    stats = run_diff_stage(lake, policy, mode=sys.argv[3])
    print(json.dumps({"wall": time.perf_counter() - start, "cpu": cpu() - used,
                      "pairs": stats["pairs_diffed"]}))
"""


def _run(python, lake, witness, mode, scratch):
    copy = os.path.join(scratch, "lake")
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(lake, copy, ignore=shutil.ignore_patterns("changes", "pairs", ".diff-stage-*"))
    script = os.path.join(scratch, "stage.py")
    done = subprocess.run([python, script, copy, witness, mode], capture_output=True, text=True,
                          cwd=scratch, check=True)
    found = json.loads(done.stdout.strip().splitlines()[-1])
    found["written"] = _written(copy)
    return found


# what a report reads: all but the engine's hash and the batch's bookkeeping
_NOT_REPORTED = {"changes": "engine_version, batch_id", "pairs": "engine_version, batch_id, diffed_at"}


def _written(lake) -> str:
    """A digest of every change and ledger row the stage wrote, in a stable order."""
    import duckdb

    con = duckdb.connect()
    digest = hashlib.sha256()
    for table, kept_out in _NOT_REPORTED.items():
        relation = con.sql(f"SELECT * EXCLUDE ({kept_out}) FROM read_parquet('{lake}/{table}/**/*.parquet')")
        rows = sorted(map(repr, relation.fetchall()))
        digest.update(f"{table} {len(rows)}\n".encode())
        for row in rows:
            digest.update(row.encode())
    con.close()
    return digest.hexdigest()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lake", help="a lake kept by bench_survey.py --lake")
    parser.add_argument("pythons", nargs=2, help="the two interpreters, the one before first")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--witness", default="BREAKING", help="BREAKING (the default) or never")
    parser.add_argument("--pairs", default="consecutive", choices=("consecutive", "all"),
                        help="which pairs of releases: neighbours (the default) or every two")
    args = parser.parse_args(argv)
    found = {python: [] for python in args.pythons}
    with tempfile.TemporaryDirectory() as scratch:
        with open(os.path.join(scratch, "stage.py"), "w", encoding="utf-8") as handle:
            handle.write(STAGE)
        for _ in range(args.rounds):
            for python in args.pythons:
                found[python].append(_run(python, args.lake, args.witness, args.pairs, scratch))
    print(f"diff stage, witness {args.witness}, pairs {args.pairs}, {args.rounds} rounds interleaved, "
          f"load average (1 min) {os.getloadavg()[0]:.1f} at the end")
    for python, runs in found.items():
        wall = statistics.median(r["wall"] for r in runs)
        cpu = statistics.median(r["cpu"] for r in runs)
        pairs = runs[0]["pairs"]
        print(f"  {python}: {pairs} pairs, wall {wall:.2f} s = {pairs / wall:,.0f} pairs/s "
              f"(runs {min(r['wall'] for r in runs):.2f} to {max(r['wall'] for r in runs):.2f} s), "
              f"CPU {cpu * 1e3 / pairs:.3f} ms a pair")
    steady = all(len({r["written"] for r in runs}) == 1 for runs in found.values())
    alike = len({r["written"] for runs in found.values() for r in runs}) == 1
    print("  the two installs wrote the same changes" if alike else
          "  each install wrote the same changes every run; the two differ (another engine)" if steady else
          "  AN INSTALL WROTE DIFFERENT CHANGES FROM RUN TO RUN")
    return 0 if steady else 1


if __name__ == "__main__":
    sys.exit(main())
