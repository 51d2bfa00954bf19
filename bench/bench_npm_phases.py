"""Where an npm install's time goes, for the npm half of ``bench/bench_install.py``'s
sample: npm's resolution, its unpacking, its lifecycle scripts, and how
many of the packages each release's resolution places an earlier release
of the sample placed already (same name, version and integrity).

    .venv/bin/python bench/bench_npm_phases.py WORK     # WORK: a finished bench_install.py run

Each release is installed as the crawler installs it (``npm install
--before=CUT-OFF --prefer-offline``) into an empty folder, from a copy of
the warm npm cache the run left (``WORK/new/cache-one/downloads/npm``),
with ``--timing``: its ``idealTree``, ``reify:unpack`` and ``reify:build``
timers. Then ``npm install --package-lock-only`` of each, in the sample's
order, for the lockfile's packages.
"""

import datetime as dt
import glob
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

SKIP = {"PUPPETEER_SKIP_DOWNLOAD": "1", "PUPPETEER_SKIP_CHROMIUM_DOWNLOAD": "1", "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD": "1"}


def npm(argv, cache, prefix):
    env = dict(os.environ, npm_config_cache=cache, npm_config_yes="true", npm_config_update_notifier="false", **SKIP)
    return subprocess.run(["npm", "install", "--prefix", prefix, "--no-audit", "--no-fund",
                           "--loglevel=error", *argv], env=env, capture_output=True, text=True, check=False)


def main() -> None:
    work = pathlib.Path(sys.argv[1])
    rows = [json.loads(line) for line in (work / "results.jsonl").read_text().splitlines()]
    releases = [r for block in rows for r in block["releases"] if r["registry"] == "npm"]
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="npm-phases-"))
    cache = str(scratch / "cache")
    subprocess.run(["cp", "-al", str(work / "new" / "cache-one" / "downloads" / "npm"), cache], check=True)
    totals = dict.fromkeys(("wall", "resolve", "unpack", "scripts"), 0.0)
    seen, placed, first = set(), 0, 0
    for r in releases:
        cut = (dt.datetime.fromisoformat(r["published_at"]) + dt.timedelta(minutes=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
        spec = [f"{r['name']}@{r['version']}", f"--before={cut}", "--prefer-offline"]
        folder = scratch / "install"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir()
        started = time.monotonic()
        done = npm([*spec, "--no-save", "--timing"], cache, str(folder))
        wall = time.monotonic() - started
        timing = json.loads(pathlib.Path(max(glob.glob(f"{cache}/_logs/*timing.json"), key=os.path.getmtime)).read_text())
        timers = timing.get("timers", timing)
        row = {"wall": wall, "resolve": timers.get("idealTree", 0) / 1000,
               "unpack": timers.get("reify:unpack", 0) / 1000, "scripts": timers.get("reify:build", 0) / 1000}
        if done.returncode == 0:
            for k in totals:
                totals[k] += row[k]
        lock = scratch / "lock"
        shutil.rmtree(lock, ignore_errors=True)
        lock.mkdir()
        npm([*spec, "--package-lock-only"], cache, str(lock))
        packages = json.loads((lock / "package-lock.json").read_text())["packages"]
        ids = [v.get("integrity") or f"{k}@{v.get('version')}" for k, v in packages.items() if k]
        new = set(ids) - seen
        placed, first = placed + len(ids), first + len(new)
        seen |= new
        print(f"{r['id']:40} {'ok' if done.returncode == 0 else 'FAILED'} {wall:6.2f} s: resolve {row['resolve']:5.2f}, "
              f"unpack {row['unpack']:5.2f}, scripts {row['scripts']:5.2f}; packages {len(ids)}, new {len(new)}",
              flush=True)
    share = {k: f"{v:.1f} s ({v / totals['wall']:.0%})" for k, v in totals.items()}
    print(f"all: {share}; packages placed {placed}, first occurrences {first} ({first / placed:.0%})")
    shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
