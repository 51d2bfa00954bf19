"""The demo survey on this machine against the same survey on a Dask cluster
with its lake on S3, side by side.

    .venv/bin/python bench/bench_cluster.py [--rounds 3] [--servers FILE]

Starts the services the scale tests use (``tests/scale/services.py``): an
S3 server (moto_server, its own process), a Prefect API server, a ``dask
scheduler`` and two ``dask worker`` processes, all on 127.0.0.1. Then, in
interleaved rounds, each into a fresh lake:

- ``mcpdelta survey`` into a folder (the CLI);
- ``python -m mcpdelta.flows.survey`` into a folder (the flow, local threads);
- ``python -m mcpdelta.flows.survey --task-runner dask`` into ``s3://`` (the crawl
  and the diff fanned out over the two workers).

Prints each run's wall time, whether its rows (captures, tools, attempts,
pairs, changes, notes; times and batch ids aside) equal the first CLI run's,
and the S3 requests the cluster run made (moto's request log).
"""

import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.scale.rows import rows  # noqa: E402
from tests.scale.services import BUCKET, Services, quiet_env, start_cluster, start_prefect, start_s3  # noqa: E402


def timed(argv, env, cwd) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(map(str, argv))} failed:\n{done.stderr[-3000:]}")
    return time.perf_counter() - started


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--servers", help="a servers file (default: the embedded demo servers)")
    args = parser.parse_args(argv)
    services = Services()
    try:
        s3 = start_s3(services)
        os.environ.update(s3)  # this process reads the S3 lakes too
        api = start_prefect(services)
        cluster = start_cluster(services, s3, api)
        env = quiet_env(**s3, PREFECT_API_URL=api, PYTHONPATH=str(ROOT))
        script = str(pathlib.Path(sys.executable).with_name("mcpdelta"))
        servers = ["--servers", args.servers] if args.servers else []
        work = pathlib.Path(tempfile.mkdtemp(prefix="bench-cluster-"))
        moto_log = services.folder / "moto.log"
        times = {"cli, folder": [], "flow, folder": [], "flow on the cluster, s3": []}
        equal, requests = [], []
        reference = None
        for r in range(args.rounds):
            folder = work / f"cli-{r}"
            times["cli, folder"].append(timed([script, "survey", *servers, "--lake", folder / "lake"], env, work))
            found = rows(str(folder / "lake"))
            reference = reference or found
            equal.append(found == reference)
            folder = work / f"flow-{r}"
            times["flow, folder"].append(timed([sys.executable, "-m", "mcpdelta.flows.survey", *servers, "--lake",
                                                folder / "lake", "--format", "json"], env, work))
            equal.append(rows(str(folder / "lake")) == reference)
            lake = f"s3://{BUCKET}/bench-{os.getpid()}-{r}"
            before = len(moto_log.read_bytes().splitlines())
            times["flow on the cluster, s3"].append(timed(
                [sys.executable, "-m", "mcpdelta.flows.survey", *servers, "--lake", lake, "--task-runner", "dask",
                 "--address", cluster.address, "--format", "json"], env, work))
            requests.append(len(moto_log.read_bytes().splitlines()) - before)
            equal.append(rows(lake) == reference)
        print(f"{args.rounds} rounds, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
        print("| run | wall (median) | each round |")
        print("| --- | ---: | --- |")
        for name, values in times.items():
            print(f"| {name} | {statistics.median(values):.1f} s | {', '.join(f'{v:.1f}' for v in values)} |")
        print(f"rows equal to the first CLI run's: {sum(equal)} of {len(equal)} runs; "
              f"S3 requests a cluster run: {', '.join(map(str, requests))} "
              f"({sum(map(len, reference.values()))} rows)")
    finally:
        services.stop()


if __name__ == "__main__":
    main()
