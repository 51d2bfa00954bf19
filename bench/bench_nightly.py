"""The nightly's second run: a survey over a population whose every release
its lake already holds.

    .venv/bin/python bench/bench_nightly.py [--servers data/servers/ecosystem.yaml] [--work /tmp/bench-nightly]

A full crawl of the population takes hours, so the lake is built instead:
under WORK (never in the repository) it holds a synthetic minimal capture
(one placeholder tool: a benchmark input, not a capture of anything) of
every (server, version) the run below would sweep, ingested with
``mcpdelta ingest``. Then ``mcpdelta survey`` runs over it with the real
registries, twice, each with an empty package cache (an install would show
there):

1. the servers file as it is: ``ecosystem.yaml`` ends each list of planned
   releases in a selector (``">0.0.83"``), so every package is looked up
   and only a release published since would be installed (a list of named
   versions alone, every one held, needs no look-up);
2. the same servers with ``versions: latest``: one registry look-up per
   package (``npm view``, the PyPI JSON API), concurrent within the file's
   ``limits.concurrency``; the latest releases are in the lake too (found
   by the same look-ups, timed alone, when the lake was built), so again
   nothing to install unless a package published a release in between.

Prints, for each run: wall time, the survey's stage timings, releases
skipped as held, captures attempted (rows added to ``attempts``), installs
made, look-ups made (version lists the cache wrote), peak RSS.
"""

import argparse
import asyncio
import copy
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

from pipeline.crawl.packages import PackageCache, is_selector  # noqa: E402
from pipeline.crawl.runner import expand_sweeps  # noqa: E402
from pipeline.crawl.servers import load, safe_name  # noqa: E402
from pipeline.lake import Lake  # noqa: E402

MCPDELTA = str(pathlib.Path(sys.executable).with_name("mcpdelta"))


def latest_variant(servers_file: pathlib.Path, out: pathlib.Path) -> pathlib.Path:
    """The servers file with every sweep asking for ``latest`` (cwd made absolute:
    the copy lives elsewhere)."""
    doc = yaml.safe_load(servers_file.read_text())
    for entry in doc["servers"]:
        entry["cwd"] = str((servers_file.parent / str(entry.get("cwd", "."))).resolve())
        if "package" in entry:
            entry["package"] = copy.deepcopy(entry["package"]) | {"versions": "latest"}
    out.write_text(yaml.safe_dump(doc, sort_keys=False))
    return out


def swept(targets, limits, cache_dir) -> tuple[set, float, int]:
    """(server id, version) of every release the targets sweep, the look-ups'
    wall time, and failed look-ups. A listed version needs none."""
    def named(versions):
        return isinstance(versions, list) and not any(map(is_selector, versions))

    releases = {(t.id, str(v)) for t in targets if t.package and named(t.package.versions)
                for v in t.package.versions}
    ask = [t for t in targets if t.package and not named(t.package.versions)]
    started = time.perf_counter()
    jobs, failed = asyncio.run(expand_sweeps(ask, PackageCache(cache_dir, limits.install_timeout_s),
                                             limits.concurrency)) if ask else ([], [])
    return releases | {(t.id, t.version) for t, _ in jobs}, time.perf_counter() - started, len(failed)


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


def timed_survey(servers_file, lake: Lake, work: pathlib.Path, name: str) -> dict:
    cache = work / f"cache-{name}"
    shutil.rmtree(cache, ignore_errors=True)
    before = lake.connect().execute("SELECT count(*) FROM attempts").fetchall()[0][0]
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
            "installs": count(cache, "*/*/*/install.json"), "lookups": count(cache, "*/*/versions.json")}


def main(argv=None):
    parser = argparse.ArgumentParser(prog="bench/bench_nightly.py", description=__doc__.splitlines()[0])
    parser.add_argument("--servers", default=str(ROOT / "data" / "servers" / "ecosystem.yaml"))
    parser.add_argument("--work", default="/tmp/bench-nightly")
    args = parser.parse_args(argv)
    work = pathlib.Path(args.work)
    if work.resolve().is_relative_to(ROOT):
        raise SystemExit("--work must be outside the repository (its lake is a benchmark input)")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    servers = pathlib.Path(args.servers).resolve()
    latest = latest_variant(servers, work / "servers-latest.yaml")

    listed, _ = load(str(servers))
    variant, limits = load(str(latest))
    held, _, _ = swept(listed, limits, work / "cache-build")
    newest, lookup_s, lookup_failed = swept(variant, limits, work / "cache-build")
    lake = build_lake(held | newest, work)
    print(f"servers: {len(listed)}, package sweeps: {sum(t.package is not None for t in listed)}, "
          f"concurrency: {limits.concurrency}")
    print(f"lake: {len(held | newest)} releases held ({len(held)} listed, "
          f"{len(newest - held)} more latest ones)")
    print(f"look-ups alone (expand_sweeps, versions: latest): {lookup_s:.1f} s, {lookup_failed} failed")
    for name, path in (("listed", servers), ("latest", latest)):
        result = timed_survey(path, lake, work, name)
        print(f"survey, versions as {name}: " + json.dumps(result))
    print(f"peak RSS of the largest child: {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
