"""Installs and captures of a fixed sample of real releases: today's installer
against the new one, side by side.

    .venv/bin/python bench/bench_install.py [--work /tmp/bench-install] [--baseline COMMIT]
    nohup .venv/bin/python bench/bench_install.py > /tmp/bench-install.log 2>&1 &   # resumable

The sample: 30 npm and 30 PyPI servers of ``data/servers/ecosystem.yaml``
and one release of each that the ecosystem study captured
(``data/ecosystem/captures/<id>/<version>.json.gz``), drawn with a fixed
seed. Two regular installs of mcpdelta are made under WORK: ``today`` (the
``--baseline`` commit: pip, npm revalidating every document, installs and
captures on one limit) and ``new`` (this checkout).

The sample is crawled in blocks of ``--block`` releases (npm and PyPI
mixed) with ``mcpdelta crawl``, two ways, each by both:

- ``one at a time``: a crawl of its own for each release (``--only``), by
  today's and the new one in turn: what an install and a capture cost,
  release by release, with nothing else of the sample running;
- ``as configured``: with the servers file's limits (``concurrency: 2``;
  the new one also runs its installs on their own limit, 4 by default,
  ahead of captures): the sample's wall time, as a user would run it.

Each way and each side starts the sample with an empty package cache
(installs and download caches) of its own; the caches fill as the sample
goes, as a first survey of a population would. One at a time, each
release is crawled by today's then the new one, then the next by the new
one first, and so on; as configured, the block by today's then the new
one, and the next block the other way round: load from elsewhere on the
machine falls on both alike. After each block:

- each capture's tools (names, input and output schemas) against the
  committed capture;
- (one at a time) each PyPI release's resolved versions, ``pip freeze`` of
  today's folder against ``uv pip freeze`` of the new one, and each npm
  release's (package, version) set of both folders;
- the installs removed (the download caches stay).

One line per block goes to WORK/results.jsonl; a run that stops goes on from
the next block (a block cut short is crawled again from its start). The
summary (printed, and WORK/summary.json): median install time overall and
per registry (one at a time), the sample's wall time (the sum of its blocks,
as configured), and every difference found.
"""

import argparse
import gzip
import json
import os
import pathlib
import random
import re
import shutil
import statistics
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.append(str(ROOT))

import yaml  # noqa: E402

from mcpdelta.inputs import load_yaml, read_text  # noqa: E402
from mcpdelta.survey.passes import CRAWL_ENV  # noqa: E402

SERVERS = ROOT / "data" / "servers" / "ecosystem.yaml"
CAPTURES = ROOT / "data" / "ecosystem" / "captures"
BASELINE = "5a71e0c"  # the last commit before uv, HTTP look-ups and separate install limits
ENV = CRAWL_ENV  # the survey's own: dummy keys, no browser or GPU runtime download
SIDES = ("today", "new")


def safe(text: str) -> str:
    from mcpdelta.crawl.servers import safe_name
    return safe_name(text)


def captured_releases() -> tuple[dict, dict[str, list[dict]]]:
    """The servers file's package entries by id, and the crawl-log rows of
    each one's releases the committed captures hold (by id, then version)."""
    from scripts.crawl_log import last_rows

    doc = load_yaml(read_text(SERVERS), str(SERVERS))
    entries = {s["id"]: s for s in doc["servers"] if "package" in s}
    captured: dict[str, list[dict]] = {}
    for (sid, version), row in sorted(last_rows(CAPTURES / "crawl-log.jsonl").items()):
        if sid in entries and row["ok"] and not row["error_kind"] and \
                (CAPTURES / safe(sid) / f"{safe(version)}.json.gz").is_file():
            captured.setdefault(sid, []).append(row)
    return entries, captured


def sample(seed: int, per_registry: int) -> list[dict]:
    """One captured release of each of ``per_registry`` npm and PyPI servers."""
    entries, captured = captured_releases()
    rng = random.Random(seed)
    chosen = []
    for registry in ("npm", "pypi"):
        ids = sorted(i for i in captured if entries[i]["package"]["registry"] == registry)
        for sid in rng.sample(ids, per_registry):
            row = rng.choice(captured[sid])
            chosen.append({"id": sid, "version": row["version"], "registry": registry,
                           "name": entries[sid]["package"]["name"], "published_at": row["published_at"]})
    rng.shuffle(chosen)
    return chosen


def block_file(releases: list[dict], path: pathlib.Path) -> pathlib.Path:
    """A servers file of these releases (their entries of ecosystem.yaml, one version each)."""
    doc = load_yaml(read_text(SERVERS), str(SERVERS))
    entries = {s["id"]: s for s in doc["servers"]}
    servers = []
    for r in releases:
        entry = dict(entries[r["id"]])
        entry.pop("tool_set", None)  # a note the recipe records, unknown to the baseline; no capture reads it
        entry["cwd"] = str((SERVERS.parent / str(entry.get("cwd", "."))).resolve())
        entry["package"] = dict(entry["package"], versions=[r["version"]])
        servers.append(entry)
    path.write_text(yaml.safe_dump({"servers": servers, "limits": doc["limits"]}, sort_keys=False))
    return path


def build(work: pathlib.Path, baseline: str) -> dict[str, pathlib.Path]:
    """Regular (non-editable, bytecode-compiled) installs of both: {side: its mcpdelta}."""
    out = {}
    for side in SIDES:
        venv = work / side / "venv"
        exe = venv / "bin" / "mcpdelta"
        if not exe.exists():
            src = work / side / "src"
            shutil.rmtree(src, ignore_errors=True)
            src.mkdir(parents=True)
            if side == "today":
                archive = subprocess.run(["git", "-C", str(ROOT), "archive", baseline], capture_output=True,
                                         check=True).stdout
                subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
            else:
                shutil.copytree(ROOT, src, dirs_exist_ok=True,
                                ignore=shutil.ignore_patterns(".venv", ".git", "__pycache__", "*.egg-info"))
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
            subprocess.run([str(venv / "bin" / "pip"), "install", "-q", f"{src}[survey]"], check=True)
        out[side] = exe
    return out


def crawl(exe: pathlib.Path, servers: pathlib.Path, out: pathlib.Path, cache: pathlib.Path, only=None) -> float:
    argv = [str(exe), "crawl", "--servers", str(servers), "--out", str(out), "--cache", str(cache)]
    started = time.perf_counter()
    done = subprocess.run(argv + (["--only", only] if only else []), env={**os.environ, **ENV},
                          capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"{exe} crawl failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return wall


def installs(cache: pathlib.Path, r: dict) -> list[pathlib.Path]:
    return sorted((cache / r["registry"] / safe(r["name"])).glob(f"{safe(r['version'])}~*"))


def tools(manifest: dict) -> dict:
    return {t.get("name"): (t.get("inputSchema"), t.get("outputSchema"))
            for t in manifest.get("tools") or [] if isinstance(t, dict)}


def compare_tools(out: pathlib.Path, r: dict) -> str | None:
    """None when the capture's tools equal the committed capture's, else what differs."""
    committed = json.loads(gzip.open(CAPTURES / safe(r["id"]) / f"{safe(r['version'])}.json.gz").read())
    path = out / safe(r["id"]) / f"{safe(r['version'])}.json"
    if not path.is_file():
        return "no capture"
    mine, theirs = tools(json.loads(path.read_text())), tools(committed)
    if mine == theirs:
        return None
    names = sorted(set(mine) ^ set(theirs))
    changed = sorted(n for n in set(mine) & set(theirs) if mine[n] != theirs[n])
    return f"tools only on one side: {names}; schemas differ: {changed}"


def frozen(venv_python: pathlib.Path, uv: bool, tool_python: pathlib.Path) -> dict[str, str]:
    """{normalized name: version}: ``uv pip freeze`` or ``pip freeze`` of a release's venv."""
    if uv:
        from uv import find_uv_bin
        argv = [find_uv_bin(), "pip", "freeze", "--no-config", "--python", str(venv_python)]
    else:
        argv = [str(tool_python), "-m", "pip", "--python", str(venv_python), "freeze", "--disable-pip-version-check"]
    out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    return {re.sub(r"[-_.]+", "-", n).lower(): v for n, v in (ln.split("==", 1) for ln in out.split() if "==" in ln)}


def npm_tree(folder: pathlib.Path) -> set[tuple[str, str]]:
    found = set()
    for pkg in folder.glob("node_modules/**/package.json"):
        parent = pkg.parent
        if parent.parent.name != "node_modules" and parent.parent.parent.name != "node_modules":
            continue  # a package.json inside a package (dist/, test fixtures)
        if parent.parent.parent.name == "node_modules" and not parent.parent.name.startswith("@"):
            continue
        try:
            doc = json.loads(pkg.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(doc, dict) and isinstance(doc.get("name"), str) and isinstance(doc.get("version"), str):
            found.add((doc["name"], doc["version"]))
    return found


def log_rows(out: pathlib.Path) -> dict:
    rows = {}
    try:
        for line in (out / "crawl-log.jsonl").read_text().splitlines():
            row = json.loads(line)
            rows[(row["id"], row["version"])] = row
    except OSError:
        pass
    return rows


WAYS = ("one at a time", "as configured")


def run_block(k: int, releases: list[dict], exes: dict, work: pathlib.Path, tool_python: pathlib.Path) -> dict:
    servers = block_file(releases, work / "blocks" / f"{k:02d}.yaml")
    walls: dict = {w: dict.fromkeys(SIDES, 0.0) for w in WAYS}
    rows: dict = {w: {} for w in WAYS}
    for side in SIDES:
        for tag in ("one", "configured"):
            shutil.rmtree(work / side / f"out-{tag}" / f"{k:02d}", ignore_errors=True)
            for r in releases:  # a block cut short: its installs made again, from the start
                for folder in installs(work / side / f"cache-{tag}", r):
                    shutil.rmtree(folder, ignore_errors=True)
    for i, r in enumerate(releases):  # one at a time: each release by both in turn
        for side in (SIDES if (k + i) % 2 == 0 else SIDES[::-1]):
            walls[WAYS[0]][side] += crawl(exes[side], servers, work / side / "out-one" / f"{k:02d}",
                                          work / side / "cache-one", only=r["id"])
    for side in (SIDES if k % 2 == 0 else SIDES[::-1]):  # as configured: the block by each in turn
        walls[WAYS[1]][side] = crawl(exes[side], servers, work / side / "out-configured" / f"{k:02d}",
                                     work / side / "cache-configured")
    for way in WAYS:
        tag = "one" if way == WAYS[0] else "configured"
        for side in SIDES:
            walls[way][side] = round(walls[way][side], 1)
            rows[way][side] = log_rows(work / side / f"out-{tag}" / f"{k:02d}")
    result = []
    for r in releases:
        one = dict(r)
        for way in WAYS:
            tag = "one" if way == WAYS[0] else "configured"
            one[way] = {}
            for side in SIDES:
                row = rows[way][side].get((r["id"], r["version"]), {})
                got = {k2: row.get(k2) for k2 in ("ok", "error_kind", "error", "install_ms", "capture_ms",
                                                   "install_retry", "python")}
                got["tools"] = compare_tools(work / side / f"out-{tag}" / f"{k:02d}", r)
                one[way][side] = got
        folders = {side: installs(work / side / "cache-one", r) for side in SIDES}
        if all(folders.values()):
            if r["registry"] == "pypi":
                a = frozen(folders["today"][0] / "bin" / "python", False, tool_python)
                b = frozen(folders["new"][0] / "bin" / "python", True, tool_python)
            else:
                a, b = (dict.fromkeys(map("@".join, npm_tree(folders[side][0])), "") for side in SIDES)
            one["resolved"] = {"same": a == b, "count": len(a),
                               "only_today": sorted(f"{n}=={v}" if v else n for n, v in a.items() if b.get(n) != v),
                               "only_new": sorted(f"{n}=={v}" if v else n for n, v in b.items() if a.get(n) != v)}
        for side in SIDES:
            for tag in ("one", "configured"):
                for folder in installs(work / side / f"cache-{tag}", r):
                    shutil.rmtree(folder, ignore_errors=True)
        result.append(one)
    return {"block": k, "wall_s": walls, "load": os.getloadavg(), "releases": result}


def median(values):
    return round(statistics.median(values) / 1000, 1) if values else None


def summarize(blocks: list[dict]) -> dict:
    releases = [r for b in blocks for r in b["releases"]]
    out = {"blocks": len(blocks), "releases": len(releases),
           "load_1min_at_block_ends": [round(b["load"][0], 1) for b in blocks]}
    for way in WAYS:
        walls = {s: round(sum(b["wall_s"][way][s] for b in blocks), 1) for s in SIDES}
        out[way] = {"wall_s": walls, "wall_ratio": round(walls["new"] / walls["today"], 3) if walls["today"] else None}
        for label, pick in (("all", lambda r: True), ("npm", lambda r: r["registry"] == "npm"),
                            ("pypi", lambda r: r["registry"] == "pypi")):
            both = [r[way] for r in releases if pick(r) and r[way]["today"]["ok"] and r[way]["new"]["ok"]]
            med = {s: median([r[s]["install_ms"] for r in both]) for s in SIDES}
            out[way][label] = {"releases": len(both), "install_median_s": med,
                               "install_ratio": round(med["new"] / med["today"], 3) if med["today"] else None,
                               "capture_median_s": {s: median([r[s]["capture_ms"] for r in both]) for s in SIDES},
                               "install_total_s": {s: round(sum(r[s]["install_ms"] for r in both) / 1000, 1)
                                                   for s in SIDES}}
        out[way]["failed"] = {s: [f"{r['id']} {r['version']}: {r[way][s]['error_kind']}: {r[way][s]['error']}"
                                  for r in releases if not r[way][s]["ok"]] for s in SIDES}
        out[way]["tools_differ"] = {s: [f"{r['id']} {r['version']}: {r[way][s]['tools']}" for r in releases
                                        if r[way][s]["ok"] and r[way][s]["tools"]] for s in SIDES}
        out[way]["retries"] = {s: [f"{r['id']} {r['version']}" for r in releases if r[way][s]["install_retry"]]
                               for s in SIDES}
    out["resolved_differ"] = [f"{r['id']} {r['version']} ({r['registry']}): today {r['resolved']['only_today']}, "
                              f"new {r['resolved']['only_new']}" for r in releases
                              if r.get("resolved") and not r["resolved"]["same"]]
    out["resolved_compared"] = {reg: sum(1 for r in releases if r.get("resolved") and r["registry"] == reg)
                                for reg in ("npm", "pypi")}
    return out


def work_folder(path: str, fresh: bool) -> pathlib.Path:
    """A benchmark's WORK folder, outside the repository; emptied first when ``fresh``."""
    work = pathlib.Path(path)
    if work.resolve().is_relative_to(ROOT):
        raise SystemExit("--work must be outside the repository")
    if fresh:
        shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True, exist_ok=True)
    return work


def main(argv=None):
    parser = argparse.ArgumentParser(prog="bench/bench_install.py", description=__doc__.splitlines()[0])
    parser.add_argument("--work", default="/tmp/bench-install")
    parser.add_argument("--baseline", default=BASELINE, help=f"the commit measured as today's (default {BASELINE})")
    parser.add_argument("--seed", type=int, default=32)
    parser.add_argument("--per-registry", type=int, default=30)
    parser.add_argument("--block", type=int, default=6)
    parser.add_argument("--fresh", action="store_true", help="start over: remove WORK first")
    args = parser.parse_args(argv)
    work = work_folder(args.work, args.fresh)
    (work / "blocks").mkdir(parents=True, exist_ok=True)
    chosen = sample(args.seed, args.per_registry)
    print(f"sample (seed {args.seed}): " + ", ".join(f"{r['id']} {r['version']} ({r['registry']})" for r in chosen),
          flush=True)
    exes = build(work, args.baseline)
    results = work / "results.jsonl"
    done = [json.loads(line) for line in results.read_text().splitlines()] if results.exists() else []
    blocks = [chosen[i:i + args.block] for i in range(0, len(chosen), args.block)]
    for k, releases in enumerate(blocks):
        if k < len(done):
            continue
        res = run_block(k, releases, exes, work, exes["new"].parent / "python")
        with open(results, "a") as fh:
            fh.write(json.dumps(res) + "\n")
        done.append(res)
        print(f"block {k + 1}/{len(blocks)}: " + "; ".join(
            f"{way}: today {res['wall_s'][way]['today']} s, new {res['wall_s'][way]['new']} s" for way in WAYS)
            + f"; load {res['load'][0]:.1f}", flush=True)
    summary = summarize(done)
    (work / "summary.json").write_text(json.dumps(summary, indent=1))
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
