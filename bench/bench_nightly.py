"""The nightly's second run: a survey over a population whose every release
its lake already holds, and the registry look-ups it is made of.

    .venv/bin/python bench/bench_nightly.py [--servers data/servers/ecosystem.yaml] [--work /tmp/bench-nightly]
        [--baseline-python /tmp/bench-install/today/venv/bin/python]
    .venv/bin/python bench/bench_nightly.py --synthetic 5000 [--work /tmp/bench-nightly-synthetic]

A full crawl of the population takes hours, so the lake is built instead:
under WORK (never in the repository) it holds a synthetic minimal capture
(one placeholder tool: a benchmark input, not a capture of anything) of
every (server, version) the servers file sweeps, ingested with
``mcpdelta ingest``. Then:

1. the look-up pass alone (``expand_sweeps``, every package of the file,
   ``limits.lookup_concurrency`` at a time), twice with one package cache:
   the first run of a nightly, then the second with nothing new (each
   answer's validators sent back). With ``--baseline-python`` (an
   interpreter with another mcpdelta installed, such as the one
   ``bench/bench_install.py`` builds of today's code) the same two passes
   run with that one too, interleaved (baseline, new, new, baseline);
2. ``mcpdelta survey`` over the file with the real registries, twice with
   one package cache: every package is looked up (each list of planned
   releases ends in a selector such as ``">0.0.83"``) and only a release
   published since would be installed.

``--synthetic N``: no lake and no public registry; a stand-in on 127.0.0.1
(``bench/servers/registry_standin.py``: N packages, half npm, half PyPI,
20 releases each, ETag and 304 as the registries answer) and a servers file
of N sweeps, each naming two releases and then ``">1.1.0"``; the look-up
pass runs twice (the second with nothing new) and reading the servers file
is timed apart.

Prints wall times, the survey's stage timings, releases skipped as held,
captures attempted, installs made, look-ups made (version lists the cache
wrote), failures, peak RSS.
"""

import argparse
import json
import os
import pathlib
import resource
import shutil
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
# an installed mcpdelta is measured, as users run it; a checkout without one, its own source
sys.path.append(str(ROOT))

import yaml  # noqa: E402

from mcpdelta.crawl.servers import safe_name  # noqa: E402
from mcpdelta.lake import Lake  # noqa: E402

MCPDELTA = str(pathlib.Path(sys.executable).with_name("mcpdelta"))

# One look-up pass, run by an interpreter with an mcpdelta installed (today's
# or this one): argv servers file, package cache; prints what it found and took.
LOOKUP_PASS = r"""
import asyncio, json, sys, time
from mcpdelta.crawl.packages import PackageCache
from mcpdelta.crawl.runner import expand_sweeps
from mcpdelta.crawl.servers import load
started = time.perf_counter()
targets, limits = load(sys.argv[1])
read = time.perf_counter() - started
at_once = getattr(limits, "lookup_concurrency", limits.concurrency)
started = time.perf_counter()
jobs, failed = asyncio.run(expand_sweeps(targets, PackageCache(sys.argv[2], limits.install_timeout_s), at_once))
print(json.dumps({"lookup_s": round(time.perf_counter() - started, 1), "read_s": round(read, 1),
                  "packages": len({(t.package.registry, t.package.name) for t in targets if t.package}),
                  "releases": sorted([t.id, t.version] for t, _ in jobs), "failed": len(failed),
                  "at_once": at_once}))
"""


def lookup_pass(python: str, servers: pathlib.Path, cache: pathlib.Path, env=None) -> dict:
    done = subprocess.run([python, "-c", LOOKUP_PASS, str(servers), str(cache)], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, cwd="/")  # cwd: the installed mcpdelta, not this checkout
    if done.returncode != 0:
        raise SystemExit(f"look-up pass with {python} failed: {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout)


def build_lake(releases: set, work: pathlib.Path) -> Lake:
    captures = work / "captures"
    for server_id, version in sorted(releases):
        path = captures / safe_name(server_id) / f"{safe_name(version)}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"serverInfo": {"name": server_id},
                                    "tools": [{"name": "bench_placeholder", "inputSchema": {"type": "object"}}]}))
    subprocess.run([MCPDELTA, "ingest", str(captures), "--lake", str(work / "lake")], check=True,
                   stdout=subprocess.DEVNULL)
    return Lake(str(work / "lake"))


def count(folder: pathlib.Path, pattern: str) -> int:
    return sum(1 for _ in folder.glob(pattern)) if folder.exists() else 0


def timed_survey(servers_file, lake: Lake, work: pathlib.Path, name: str, cache: pathlib.Path) -> dict:
    before = lake.connect().execute("SELECT count(*) FROM attempts").fetchall()[0][0]
    installs_before = count(cache, "*/*/*/install.json")
    env = {**os.environ, "MCPDELTA_CACHE": str(cache),
           "MCPDELTA_DUMMY_TOKEN": "mcpdelta-dummy-not-a-secret"}
    started = time.perf_counter()
    done = subprocess.run([MCPDELTA, "survey", "--servers", str(servers_file), "--lake", lake.root,
                           "--report", str(work / f"report-{name}"), "--format", "json"],
                          capture_output=True, text=True, env=env)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"survey failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    summary = json.loads(done.stdout)
    after = lake.connect().execute("SELECT count(*) FROM attempts").fetchall()[0][0]
    return {"wall_s": round(wall, 1), "timings": summary["timings"], "skipped": summary["skipped"],
            "attempted": after - before, "errors": summary["errors"],
            "installs": count(cache, "*/*/*/install.json") - installs_before,
            "lookups_kept": count(cache, "*/*/versions.json")}


def synthetic(n: int, work: pathlib.Path, python: str) -> None:
    sys.path.insert(0, str(HERE / "servers"))
    from registry_standin import packages

    population = packages(n, 20)
    servers = work / "servers.yaml"
    servers.write_text(yaml.safe_dump({"servers": [
        {"id": name, "package": {"registry": registry, "name": name, "versions": [listed[0], listed[1], ">1.1.0"]}}
        for registry, name, listed in population]}, sort_keys=False))
    portfile = work / "port"
    standin = subprocess.Popen([sys.executable, str(HERE / "servers" / "registry_standin.py"), str(n), "20",
                                str(portfile)])
    try:
        for _ in range(600):
            if portfile.exists() and portfile.read_text():
                break
            time.sleep(0.05)
        url = f"http://127.0.0.1:{portfile.read_text()}"
        env = {"npm_config_registry": url + "/", "MCPDELTA_PYPI_URL": url}
        expected = sum(len(listed) for _, _, listed in population)
        print(f"synthetic population: {n} packages ({n // 2} npm, {n - n // 2} PyPI), 20 releases each, "
              f"stand-in at {url}")
        for run in ("first", "second (nothing new)"):
            found = lookup_pass(python, servers, work / "cache", env)
            print(f"look-up pass, {run}: {found['lookup_s']} s for {found['packages']} packages "
                  f"({found['at_once']} at a time; reading the servers file {found['read_s']} s), "
                  f"{len(found['releases'])} of {expected} releases listed, {found['failed']} failed")
    finally:
        standin.kill()
        standin.wait()


def main(argv=None):
    parser = argparse.ArgumentParser(prog="bench/bench_nightly.py", description=__doc__.splitlines()[0])
    parser.add_argument("--servers", default=str(ROOT / "data" / "servers" / "ecosystem.yaml"))
    parser.add_argument("--work", default="/tmp/bench-nightly")
    parser.add_argument("--new-python", default=sys.executable,
                        help="the interpreter whose mcpdelta is measured (default: this one)")
    parser.add_argument("--baseline-python", help="an interpreter with another mcpdelta: its look-ups side by side")
    parser.add_argument("--synthetic", type=int, metavar="N", help="N packages against a registry stand-in instead")
    args = parser.parse_args(argv)
    work = pathlib.Path(args.work)
    if work.resolve().is_relative_to(ROOT):
        raise SystemExit("--work must be outside the repository (its lake is a benchmark input)")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    if args.synthetic:
        synthetic(args.synthetic, work, args.new_python)
        return
    servers = pathlib.Path(args.servers).resolve()
    sides = [("new", args.new_python)] + ([("baseline", args.baseline_python)] if args.baseline_python else [])
    order = [sides[-1], sides[0], sides[0], sides[-1]] if len(sides) == 2 else [sides[0], sides[0]]
    passes: dict[str, list] = {}
    for name, python in order:
        found = lookup_pass(python, servers, work / f"cache-lookups-{name}")
        passes.setdefault(name, []).append(found)
        print(f"look-up pass {len(passes[name])} ({name}): {found['lookup_s']} s for {found['packages']} "
              f"packages, {found['at_once']} at a time, {found['failed']} failed", flush=True)
    releases = {tuple(r) for found in passes["new"] for r in found["releases"]}
    lake = build_lake(releases, work)
    print(f"lake: {len(releases)} releases held")
    cache = work / "cache-survey"
    for run in ("first", "second"):
        result = timed_survey(servers, lake, work, run, cache)
        print(f"survey, {run} run: " + json.dumps(result), flush=True)
    print(f"peak RSS of the largest child: {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
