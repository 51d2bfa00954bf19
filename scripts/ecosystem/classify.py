"""The ecosystem population: classify every candidate, plan its releases.

    python -m scripts.ecosystem.classify fetch  [--meta DIR]   # registry metadata of every candidate
    python -m scripts.ecosystem.classify build  [--meta DIR]   # classification.tsv + data/servers/ecosystem.yaml
    python -m scripts.ecosystem.classify check  CRAWL_DIR...    # latest-release crawl results -> checks.tsv

(fetch and build take --candidates FILE: by default data/ecosystem/candidates.tsv.)

``fetch`` asks the registries about the candidates only, once each (npm:
the package's packument, every release's ``bin`` and date; PyPI: the JSON
API, then the latest wheel's ``entry_points.txt`` and ``Requires-Dist``) and
keeps one JSON file per package in the metadata folder: a rerun asks only
about the packages it has no file for. ``build`` reads those files with no
network: the evidence (executables, MCP server SDK dependency) comes from
them, the judgement a name or description cannot settle from
``judgements.tsv`` (hand-checked, one reason per row), the start recipes
from ``recipes.yaml``, the latest-release crawl results from ``checks.tsv``.
Releases are chosen here, by rule (``plan_releases``: an npm release that
ships no executable is no server release), and written out as explicit
version lists so the sweep is reproducible.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import csv
import datetime as dt
import functools
import io
import json
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import yaml

from mcpdelta.crawl.lookups import pypi_url
from mcpdelta.crawl.package_names import name_problem  # the crawler's own checks
from mcpdelta.crawl.packages import is_prerelease, version_key  # the crawler's own order
from mcpdelta.inputs import load_yaml, read_text  # the one YAML reader: duplicate keys refused

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "data" / "ecosystem"      # the population's data: candidates, judgements, recipes, checks
CANDIDATES = HERE / "candidates.tsv"    # made by scripts/ecosystem/candidates.py
DEFAULT_META = Path(tempfile.gettempdir()) / "mcpdelta-ecosystem-meta"
TODAY = dt.datetime(2026, 12, 1, tzinfo=dt.timezone.utc)
WINDOW_DAYS = 548                       # 18 months
MAX_RELEASES = 12
MAX_PACKUMENT = 64 << 20                # bytes of one npm packument read

# Dependencies that make a package an MCP server (or able to serve one).
NPM_SERVER_SDKS = ("@modelcontextprotocol/sdk", "@modelcontextprotocol/server", "fastmcp", "tmcp",
                   "mcp-framework", "@mastra/mcp", "@rekog/mcp-nest", "mcp-handler", "@redocly/mcp-typescript-sdk",
                   "@metorial/mcp-server-sdk", "xmcp", "mcp-use")
PYPI_SERVER_SDKS = ("mcp", "fastmcp", "fastmcp-slim", "fastapi-mcp")

CLASSES = ("server", "not-a-server", "excluded")


# -- reading the candidates and the metadata -----------------------------------
def candidates(path: Path = CANDIDATES) -> list[dict]:
    # errors="replace": one summary in the list is cut inside a UTF-8 sequence
    with path.open(encoding="utf-8", errors="replace") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def meta_file(meta: Path, registry: str, name: str) -> Path:
    return meta / registry / (name.replace("/", "__") + ".json")


def fetch_npm(name: str) -> dict:
    """One request: the registry's packument (every release's ``bin`` and
    date, the latest release's dependencies and deprecation)."""
    import httpx

    url = npm_registry() + "/" + name.replace("/", "%2f")
    with httpx.stream("GET", url, timeout=120, follow_redirects=True) as resp:
        if resp.status_code != 200:
            return {"error": f"npm registry HTTP {resp.status_code}"}
        body = bytearray()
        for chunk in resp.iter_bytes():
            body += chunk
            if len(body) > MAX_PACKUMENT:
                return {"error": f"packument over {MAX_PACKUMENT >> 20} MiB"}
    doc = json.loads(body)
    versions = doc.get("versions") or {}
    latest = versions.get((doc.get("dist-tags") or {}).get("latest"), {})
    return {"bin": latest.get("bin"), "dependencies": latest.get("dependencies") or {},
            "deprecated": latest.get("deprecated"), "description": doc.get("description"),
            "time": {v: t for v, t in (doc.get("time") or {}).items() if v in versions},
            "version_bins": {v: bin_names(name, d.get("bin")) for v, d in versions.items()}}


@functools.cache
def npm_registry() -> str:
    out = subprocess.run(["npm", "config", "get", "registry"], capture_output=True, text=True, timeout=60)
    return (out.stdout.strip() or "https://registry.npmjs.org/").rstrip("/")


def bin_names(package: str, bins) -> list[str]:
    """The executables' names of a package.json ``bin`` (a bare path is named after the package)."""
    if isinstance(bins, str):
        return [package.split("/")[-1]]
    return sorted(bins) if isinstance(bins, dict) else []


def fetch_pypi(name: str) -> dict:
    import httpx

    resp = httpx.get(pypi_url("https://pypi.org", name), timeout=60, follow_redirects=True)
    if resp.status_code != 200:
        return {"error": f"PyPI HTTP {resp.status_code}"}
    body = resp.json()
    info = body["info"]
    times = {}
    for version, files in body.get("releases", {}).items():
        live = [f for f in files if not f.get("yanked")]
        if live:
            times[version] = min(f.get("upload_time_iso_8601") or "" for f in live)
    data = {"version": info.get("version"), "summary": info.get("summary"),
            "requires_python": info.get("requires_python"), "requires_dist": info.get("requires_dist") or [],
            "time": times}
    wheel = next((f for f in body.get("urls", []) if f.get("packagetype") == "bdist_wheel"), None)
    if wheel is None:
        data["entry_points"] = None
        data["wheel"] = None
        return data
    # the index may answer with file URLs relative to the JSON document
    blob = httpx.get(str(resp.url.join(wheel["url"])), timeout=120, follow_redirects=True).content
    with zipfile.ZipFile(io.BytesIO(blob)) as zf:
        names = zf.namelist()
        ep = next((n for n in names if n.endswith(".dist-info/entry_points.txt")), None)
        md = next((n for n in names if n.endswith(".dist-info/METADATA")), None)
        data["entry_points"] = zf.read(ep).decode("utf-8", "replace") if ep else ""
        if md:  # the wheel's own dependencies (the JSON API's copy can be empty)
            text = zf.read(md).decode("utf-8", "replace").split("\n\n", 1)[0]
            data["requires_dist"] = [ln.split(":", 1)[1].strip() for ln in text.splitlines()
                                     if ln.startswith("Requires-Dist:")]
    data["wheel"] = wheel["filename"]
    return data


def cmd_fetch(args) -> int:
    rows = candidates(args.candidates)
    todo = [r for r in rows if args.refresh or not meta_file(args.meta, r["registry"], r["name"]).exists()]

    def one(row):
        fetch = fetch_npm if row["registry"] == "npm" else fetch_pypi
        path = meta_file(args.meta, row["registry"], row["name"])
        problem = name_problem(row["registry"], row["name"])
        if problem:  # a candidate's name is registry data: never an option or a path
            return row["name"], problem
        try:
            data = fetch(row["name"])
        except Exception as exc:  # noqa: BLE001 - one package's failure is recorded, the rest carry on
            if path.exists() and not args.refresh:      # keep what an earlier fetch stored
                return row["name"], f"{type(exc).__name__}: {exc} (kept the earlier metadata)"
            data = {"error": f"{type(exc).__name__}: {exc}"}
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=1, sort_keys=True))
        return row["name"], data.get("error")

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for name, error in pool.map(one, todo):
            print(f"{name}: {error or 'ok'}", file=sys.stderr)
    return 0


# -- evidence ------------------------------------------------------------------
def console_scripts(entry_points: str | None) -> list[str]:
    if not entry_points:
        return []
    out, section = [], None
    for line in entry_points.splitlines():
        line = line.strip()
        if line.startswith("["):
            section = line.strip("[]").strip()
        elif section == "console_scripts" and "=" in line:
            out.append(line.split("=", 1)[0].strip())
    return out


def requirement_name(req: str) -> tuple[str, bool]:
    """('mcp', False) for 'mcp>=1.2'; the flag says it is an extra's requirement."""
    name = re.split(r"[\s<>=!~;\[(]", req.strip(), maxsplit=1)[0].lower().replace("_", "-")
    return name, "extra ==" in req.replace("extra==", "extra ==")


def evidence(row: dict, data: dict) -> dict:
    """The facts the registry gives: executables, server-SDK dependency."""
    if row["registry"] == "npm":
        deps = data.get("dependencies") or {}
        sdk = [d for d in NPM_SERVER_SDKS if d in deps]
        return {"bins": bin_names(row["name"], data.get("bin")), "sdk": sdk, "deprecated": data.get("deprecated")}
    scripts = console_scripts(data.get("entry_points"))
    reqs = [requirement_name(r) for r in data.get("requires_dist", [])]
    sdk = sorted({n for n, extra in reqs if n in PYPI_SERVER_SDKS and not extra})
    return {"bins": scripts, "sdk": sdk, "deprecated": None, "wheel": data.get("wheel"),
            "requires_python": data.get("requires_python")}


def evidence_text(ev: dict, registry: str) -> str:
    what = "bin" if registry == "npm" else "console_scripts"
    parts = [f"{what}: {', '.join(ev['bins'])}" if ev["bins"] else f"no {what}"]
    if registry == "pypi" and ev.get("wheel") is None:
        parts[0] = "no wheel on PyPI (entry points not read)"
    parts.append(f"server SDK dep: {', '.join(ev['sdk'])}" if ev["sdk"] else "no MCP server SDK dep")
    if ev.get("deprecated"):
        parts.append(f"deprecated: {str(ev['deprecated'])[:80]}")
    return "; ".join(parts)


# -- releases ------------------------------------------------------------------
def parse_time(text: str | None):
    if not text:
        return None
    try:
        return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


def plan_releases(times: dict[str, str], executable: set[str] | None = None) -> tuple[list[str], str, int]:
    """-> (versions, note, releases left out). The releases of the last 18 months, stable ones
    (pre-releases only when there is no stable one in the window), at most
    12: the first, the latest, both sides of every major-version step, and
    evenly spaced ones between. ``executable``: the releases known to ship
    an executable (npm's per-release ``bin``); the others are no server
    releases and are left out before choosing (None: not known, keep all)."""
    since = TODAY - dt.timedelta(days=WINDOW_DAYS)
    dated = {v: parse_time(t) for v, t in times.items() if v not in ("created", "modified")}
    window = [v for v, t in dated.items() if t and since <= t <= TODAY]
    recent = window if executable is None else [v for v in window if v in executable]
    stable = sorted((v for v in recent if not is_prerelease(v)), key=version_key)
    pre = not stable
    if pre:
        stable = sorted(recent, key=version_key)
    left_out = sum(1 for v in window if v not in recent and (pre or not is_prerelease(v)))
    left = [f"{left_out} without an executable left out"] if left_out else []
    n = len(stable)
    if n <= MAX_RELEASES:
        return stable, "; ".join((["pre-releases only"] if pre and stable else []) + left), left_out
    major = [version_key(v)[0][0] for v in stable]
    must = {0, n - 1}
    steps = [i for i in range(1, n) if major[i] != major[i - 1]]
    for i in steps:                     # first of the new major, then last of the old one
        if len(must) < MAX_RELEASES:
            must.add(i)
    for i in steps:
        if len(must) < MAX_RELEASES:
            must.add(i - 1)
    free = MAX_RELEASES - len(must)
    for j in range(1, free + 1):        # nearest unused index to each even mark
        mark = j * (n - 1) / (free + 1)
        best = min((i for i in range(n) if i not in must), key=lambda i: (abs(i - mark), i))
        must.add(best)
    return [stable[i] for i in sorted(must)], "; ".join([f"{MAX_RELEASES} of {n} in the window"] + left), left_out


def executable_releases(data: dict, wanted_bin: str | None) -> set[str] | None:
    """The npm releases that ship an executable (the recipe's ``bin`` when it
    names one); None when the metadata does not say (PyPI, an older fetch)."""
    bins = data.get("version_bins")
    if bins is None:
        return None
    return {v for v, names in bins.items() if names and (wanted_bin is None or wanted_bin in names)}


# -- build ---------------------------------------------------------------------
def read_tsv(path: Path) -> dict[tuple[str, str], dict]:
    if not path.exists():
        return {}
    with path.open(encoding="utf-8") as fh:
        return {(r["registry"], r["package"]): r for r in csv.DictReader(fh, delimiter="\t")}


def server_id(registry: str, name: str) -> str:
    """The package name without "@", "/" as "-" (a recipe's ``id`` settles a clash)."""
    return name.lstrip("@").replace("/", "-")


def cmd_build(args) -> int:
    judgements = read_tsv(HERE / "judgements.tsv")
    checks = read_tsv(HERE / "checks.tsv")
    recipes = load_yaml(read_text(HERE / "recipes.yaml"), str(HERE / "recipes.yaml"))["recipes"]
    rows, servers, problems = [], [], []
    earlier, planned = earlier_population()
    # a candidate to classify without metadata would leave the files written
    # half: write nothing (one classified before needs none)
    missing = [c for c in candidates(args.candidates) if (c["registry"], c["name"]) not in earlier
               and not meta_file(args.meta, c["registry"], c["name"]).exists()]
    if missing:
        print(f"classify: {len(missing)} candidates have no registry metadata in {args.meta} "
              f"(first {missing[0]['registry']} {missing[0]['name']}): run fetch first", file=sys.stderr)
        return 2
    for cand in candidates(args.candidates):
        reg, name = cand["registry"], cand["name"]
        if (reg, name) in earlier:          # classified before: its row and its releases stay
            row = _judged_again(earlier[(reg, name)], judgements.get((reg, name)),
                                recipes.get(f"{reg}:{name}", {}))
            rows.append(row)
            if row["class"] == "server":
                entry = planned[(reg, name)]
                servers.append(dict(server_entry(reg, name, recipes.get(f"{reg}:{name}", {}),
                                                 entry["package"]["versions"][:-1]), id=entry["id"]))
            continue
        data = json.loads(meta_file(args.meta, reg, name).read_text())
        judged = judgements.get((reg, name))
        if data.get("error"):
            ev_text, ev = f"registry: {data['error']}", None
        else:
            ev = evidence(cand, data)
            ev_text = evidence_text(ev, reg)
        if judged is None:
            cls, reason = default_class(ev)
            judged_note = ""
        else:
            cls, reason, judged_note = judged["class"], judged["reason"], judged.get("note", "")
        # a server's releases without an executable are no server releases (a library's plan is not used)
        executable = None if cls != "server" else executable_releases(data, recipes.get(f"{reg}:{name}", {}).get("bin"))
        versions, vnote, no_bin = ([], "", 0) if ev is None else plan_releases(data.get("time") or {}, executable)
        if cls == "server" and not versions:
            cls, reason = "excluded", "no release in the last 18 months" + (" with an executable" if no_bin else "")
        recipe = recipes.get(f"{reg}:{name}", {}) if cls == "server" else {}
        if cls == "server" and recipe.get("exclude"):
            cls, reason = "excluded", recipe["exclude"]
        check = checks.get((reg, name), {})
        notes = [n for n in (judged_note, recipe.get("note", ""), cls == "server" and python_note(ev), vnote and f"releases: {vnote}",
                             cls == "server" and f"{len(versions)} releases planned",
                             check.get("result") and f"latest {check.get('version')}: {check['result']}",
                             cls == "server" and not check and "latest release not checked yet") if n]
        rows.append({"registry": reg, "package": name, "class": cls, "evidence": ev_text,
                     "reason_if_excluded": "" if cls == "server" else reason,
                     "recipe_notes": "; ".join(notes)})
        if cls == "server":
            servers.append(server_entry(reg, name, recipe, versions))
    seen: dict[str, str] = {}
    for s in servers:
        if s["id"] in seen and f"{s['package']['registry']}:{s['package']['name']}" not in recipes:
            # the earlier candidate keeps its id (ids never change); the later one is named for its registry
            s["id"] = f"{s['id']}-{s['package']['registry']}"
        if s["id"] in seen:
            problems.append(f"server id {s['id']!r} of {s['package']['name']} is taken by {seen[s['id']]}: "
                            "give one an id in recipes.yaml")
        seen[s["id"]] = s["package"]["name"]
    for p in problems:
        print(p, file=sys.stderr)
    with (HERE / "classification.tsv").open("w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]), delimiter="\t", lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    # counted from the rows' notes, which keep it for a package classified before too
    left_out = sum(int(m.group(1)) for r in rows if r["class"] == "server"
                   for m in [re.search(r"(\d+) without an executable left out", r["recipe_notes"])] if m)
    write_servers(servers, ROOT / "data" / "servers" / "ecosystem.yaml", left_out)
    counts: dict[str, int] = {}
    for r in rows:
        key = r["class"] if r["class"] == "server" else f"{r['class']}: {r['reason_if_excluded']}"
        counts[key] = counts.get(key, 0) + 1
    for key, n in sorted(counts.items(), key=lambda kv: -kv[1]):
        print(f"{n:4d}  {key}")
    print(f"{len(rows)} candidates, {len(servers)} servers, "
          f"{sum(len(s['package']['versions']) - 1 for s in servers)} releases planned")
    return 1 if problems else 0


def earlier_population() -> tuple[dict, dict]:
    """The committed classification's rows and servers file's entries, by
    (registry, package): a package classified once keeps its row, its
    server id and its planned releases (the captures are of them, and the
    registry reached now may hold fewer of its releases), its recipe
    applied anew, a judgement or an ``exclude`` that now says it is no
    server too (``_judged_again``). Delete its row to classify it again."""
    rows = read_tsv(HERE / "classification.tsv")
    path = ROOT / "data" / "servers" / "ecosystem.yaml"
    entries = load_yaml(read_text(path), str(path))["servers"] if path.exists() else []
    planned = {(e["package"]["registry"], e["package"]["name"]): e for e in entries}
    # a server row whose entry is gone cannot be kept as it was: it is classified again
    return {k: r for k, r in rows.items() if r["class"] != "server" or k in planned}, planned


def _judged_again(row: dict, judged: dict | None, recipe: dict) -> dict:
    """A server classified before, after a hand judgement or a recipe's
    ``exclude`` said otherwise: the row with its new class and reason (its
    evidence and notes as they were), and no longer a server. Any other row
    as it was."""
    if row["class"] != "server":
        return row
    if judged is not None and judged["class"] != "server":
        return {**row, "class": judged["class"], "reason_if_excluded": judged["reason"]}
    if recipe.get("exclude"):
        return {**row, "class": "excluded", "reason_if_excluded": recipe["exclude"]}
    return row


def default_class(ev: dict | None) -> tuple[str, str]:
    """The rule for rows no judgement covers: a package with no executable is
    a library; one with an executable is taken as a server, to be confirmed
    by starting it (many servers bundle their SDK and declare no dependency;
    executables that are not servers are judged in judgements.tsv)."""
    if ev is None:
        return "excluded", "not on the registry"
    if not ev["bins"]:
        return "not-a-server", "library (no executable)"
    return "server", ""


def python_note(ev: dict | None) -> str:
    """Say so when the latest release's Requires-Python leaves out the crawler's interpreter."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    spec = (ev or {}).get("requires_python")
    if not spec:
        return ""
    try:
        ours = f"{sys.version_info.major}.{sys.version_info.minor}"
        if SpecifierSet(spec).contains(ours):
            return ""
    except InvalidSpecifier:
        return ""
    return f"Requires-Python {spec}: needs another interpreter than {ours}"


def server_entry(registry: str, name: str, recipe: dict, versions: list[str]) -> dict:
    # the planned releases, then every later one the registry serves: a
    # nightly sweep installs only what was published since
    package = {"registry": registry, "name": name, "versions": versions + [f">{versions[-1]}"]}
    if recipe.get("bin"):
        package["bin"] = recipe["bin"]
    entry = {"id": recipe.get("id") or server_id(registry, name), "package": package}
    for key in ("args", "env", "cwd", "node", "serial", "tool_set"):
        if recipe.get(key) is not None:
            entry[key] = recipe[key]
    return entry


HEADER = """\
# The ecosystem survey's population: every candidate of
# data/ecosystem/candidates.tsv classified as a server
# (data/ecosystem/classification.tsv holds every row and each exclusion's
# reason), with the releases of its last 18 months chosen by rule, and (the
# selector ending each list) every release published after them. Generated
# by `python -m scripts.ecosystem.classify build` from the registry metadata,
# data/ecosystem/judgements.tsv and data/ecosystem/recipes.yaml: edit those,
# not this file. An npm release that ships no executable is no server
# release: {left_out} such releases of these servers' windows are left out
# (classification.tsv counts them per package).
#
#   export MCPDELTA_DUMMY_TOKEN=mcpdelta-dummy-not-a-secret   # a dummy, never a real key
#   export PUPPETEER_SKIP_DOWNLOAD=1 PUPPETEER_SKIP_CHROMIUM_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 ONNXRUNTIME_NODE_INSTALL_CUDA=skip
#   mcpdelta crawl --servers data/servers/ecosystem.yaml --out /tmp/ecosystem-crawl
#
# Every key is a dummy: listing tools calls no remote API. Fixtures live in
# data/ecosystem/fixtures/; the servers run in this file's folder.
"""


def write_servers(servers: list[dict], path: Path, left_out: int) -> None:
    body = yaml.safe_dump({"servers": servers, "limits": {"timeout_s": 60, "concurrency": 2,
                                                          "total_timeout_s": 240, "install_timeout_s": 900}},
                          sort_keys=False, width=120, default_flow_style=None, allow_unicode=True)
    # whole or not at all: a crawl running from this file reads it again before each server
    temporary = path.with_suffix(".yaml.tmp")
    temporary.write_text(HEADER.format(left_out=left_out) + body, encoding="utf-8")
    temporary.replace(path)


# -- check ---------------------------------------------------------------------
def _ecosystem() -> dict:
    path = ROOT / "data" / "servers" / "ecosystem.yaml"
    return load_yaml(read_text(path), str(path))


def cmd_check(args) -> int:
    """Collect latest-release crawl results (crawl-log.jsonl) into checks.tsv."""
    servers = _ecosystem()["servers"]
    targets = {s["id"]: (s["package"]["registry"], s["package"]["name"]) for s in servers}
    results = read_tsv(HERE / "checks.tsv")
    for folder in args.crawls:
        log = Path(folder) / "crawl-log.jsonl"
        if not log.exists():
            continue
        for line in log.read_text().splitlines():
            rec = json.loads(line)
            if rec["id"] not in targets:
                continue
            reg, name = targets[rec["id"]]
            if rec["ok"] and rec.get("path"):
                manifest = json.loads((Path(folder) / rec["path"]).read_text())
                tools = manifest.get("tools")
                warn = "; ".join(rec.get("warnings") or [])[:200]
                if tools is None:  # the crawler records a failed tools/list as a partial success
                    result = f"failed tools/list (logged ok, partial): {warn}"
                else:
                    result = f"ok, {len(tools)} tools" + (f" (partial: {warn})" if warn else "")
            else:
                error = re.sub(r"\s+", " ", rec.get("error") or "")[:200]
                result = f"failed {rec.get('error_kind')}: {error}"
            results[(reg, name)] = {"registry": reg, "package": name, "version": rec["version"], "result": result}
    with (HERE / "checks.tsv").open("w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=["registry", "package", "version", "result"], delimiter="\t",
                           lineterminator="\n")
        w.writeheader()
        w.writerows(sorted(results.values(), key=lambda r: (r["registry"], r["package"])))
    return 0


def cmd_latest(args) -> int:
    """One servers file per server, its latest planned release only, for the recipe check."""
    data = _ecosystem()
    args.out.mkdir(parents=True, exist_ok=True)
    wanted = set(args.ids or [])
    for entry in data["servers"]:
        if wanted and entry["id"] not in wanted:
            continue
        entry = dict(entry, package=dict(entry["package"], versions=entry["package"]["versions"][-1:]))
        entry["cwd"] = str((ROOT / "data" / "servers" / entry.get("cwd", ".")).resolve())
        one = {"servers": [entry], "limits": data["limits"]}
        (args.out / f"{entry['id']}.yaml").write_text(yaml.safe_dump(one, sort_keys=False))
        print(args.out / f"{entry['id']}.yaml")    # in the servers file's order: most popular first
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("fetch")
    f.add_argument("--meta", type=Path, default=DEFAULT_META)
    f.add_argument("--jobs", type=int, default=6)
    f.add_argument("--refresh", action="store_true")
    b = sub.add_parser("build")
    b.add_argument("--meta", type=Path, default=DEFAULT_META)
    for cmd in (f, b):                  # another checkout (a worktree) names the shared list
        cmd.add_argument("--candidates", type=Path, default=CANDIDATES)
    c = sub.add_parser("check")
    c.add_argument("crawls", nargs="+")
    lt = sub.add_parser("latest")
    lt.add_argument("out", type=Path)
    lt.add_argument("ids", nargs="*")
    args = p.parse_args(argv)
    return {"fetch": cmd_fetch, "build": cmd_build, "check": cmd_check, "latest": cmd_latest}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
