"""npm installs of real releases as of their publish dates, three ways, side by
side: what each costs and whether each resolves what npm resolves.

    .venv/bin/python bench/bench_npm_options.py [--releases 16] [--work /tmp/bench-npm-options]

The releases: the npm half of ``bench/bench_install.py``'s sample (the same
seed), the first ``--releases`` of it. Each way has a download cache of its
own, empty at the start and shared by the releases after (as a crawl's is):

- ``npm``: ``npm install --before=CUT-OFF``, what the crawler ran before,
  every package document asked for again (revalidated) on every install;
- ``npm --prefer-offline``: the same, documents already cached taken
  without asking (the crawler's way now, for a cut-off before the cache
  began);
- ``pnpm``: pnpm 10 (``pnpm@10`` from the npm registry; 11 needs Node.js
  22), its content-addressed store hard-linked into a flat
  (``node-linker=hoisted``) ``node_modules``, dated by
  ``minimum-release-age`` (minutes before now, the nearest a setting of
  its comes to a cut-off), every dependency's build scripts allowed.

Release by release the three run in turn, in an order that rotates, so
load from elsewhere falls on all alike. Printed: each install's time, the
(package, version) pairs that differ from npm's, and the totals.
"""

import argparse
import datetime as dt
import json
import os
import pathlib
import shutil
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.append(str(HERE.parent))

from bench_install import ENV, npm_tree, sample  # noqa: E402

WAYS = ("npm", "npm --prefer-offline", "pnpm")


def cut_off(published_at: str) -> str:
    """A minute after the publish time, as the crawler dates an install."""
    when = dt.datetime.fromisoformat(published_at.replace("Z", "+00:00")) + dt.timedelta(minutes=1)
    return when.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def pnpm(work: pathlib.Path) -> str:
    exe = work / "pnpm" / "node_modules" / ".bin" / "pnpm"
    if not exe.exists():
        subprocess.run(["npm", "install", "--prefix", str(work / "pnpm"), "--no-audit", "--no-fund",
                        "--loglevel=error", "pnpm@10"], check=True)
    return str(exe)


def install(way: str, r: dict, folder: pathlib.Path, work: pathlib.Path, pnpm_exe: str) -> tuple[float, str]:
    before = cut_off(r["published_at"])
    folder.mkdir(parents=True)
    env = {**os.environ, **ENV, "npm_config_update_notifier": "false", "npm_config_yes": "true"}
    if way.startswith("npm"):
        argv = ["npm", "install", "--prefix", str(folder), "--no-audit", "--no-fund", "--no-save", "--loglevel=error",
                f"{r['name']}@{r['version']}", f"--before={before}"]
        if way.endswith("--prefer-offline"):
            argv.append("--prefer-offline")
        env["npm_config_cache"] = str(work / f"cache-{way.replace(' ', '')}")
    else:
        (folder / "package.json").write_text(json.dumps({"dependencies": {r["name"]: r["version"]}}))
        age = int((dt.datetime.now(dt.timezone.utc)
                   - dt.datetime.fromisoformat(before.replace("Z", "+00:00"))).total_seconds() // 60)
        argv = [pnpm_exe, "install", "--dir", str(folder), "--store-dir", str(work / "pnpm-store"),
                "--cache-dir", str(work / "pnpm-cache"), "--config.node-linker=hoisted",
                f"--config.minimum-release-age={age}", "--config.lockfile=false",
                "--config.dangerously-allow-all-builds=true", "--reporter=silent"]
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=env)
    took = time.perf_counter() - started
    return took, "" if done.returncode == 0 else (done.stderr or done.stdout).strip().splitlines()[0][:200]


def main(argv=None):
    parser = argparse.ArgumentParser(prog="bench/bench_npm_options.py", description=__doc__.splitlines()[0])
    parser.add_argument("--work", default="/tmp/bench-npm-options")
    parser.add_argument("--seed", type=int, default=32)
    parser.add_argument("--releases", type=int, default=16)
    args = parser.parse_args(argv)
    work = pathlib.Path(args.work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    pnpm_exe = pnpm(work)
    releases = [r for r in sample(args.seed, 30) if r["registry"] == "npm"][:args.releases]
    totals = dict.fromkeys(WAYS, 0.0)
    differ = dict.fromkeys(WAYS[1:], 0)
    for i, r in enumerate(releases):
        order = WAYS[i % 3:] + WAYS[:i % 3]
        got = {way: install(way, r, work / way.replace(" ", "") / str(i), work, pnpm_exe) for way in order}
        trees = {way: npm_tree(work / way.replace(" ", "") / str(i)) for way in WAYS}
        line = [f"{r['id']} {r['version']}"]
        for way in WAYS:
            took, error = got[way]
            totals[way] += took
            extra = ""
            if way != "npm":
                only = sorted(trees[way] ^ trees["npm"])
                differ[way] += bool(only) and not error
                extra = f", differs from npm in {len(only)}: {only[:6]}" if only else ""
            line.append(f"{way} {took:.1f} s" + (f" FAILED {error}" if error else "") + extra)
        print(" | ".join(line), flush=True)
        for way in WAYS:
            shutil.rmtree(work / way.replace(" ", "") / str(i), ignore_errors=True)
    print("totals: " + ", ".join(f"{way} {t:.0f} s" for way, t in totals.items()))
    print("releases resolved otherwise than npm: " + ", ".join(f"{way} {n} of {len(releases)}"
                                                               for way, n in differ.items()))
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
