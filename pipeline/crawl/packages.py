"""Version sweeps: list a package's published versions, pick some, install each.

Selectors: an explicit list, ``"latest"``, ``"all"``, ``"last N"``, or a
range of comparisons such as ``">=0.6"`` or ``">=0.3.0, <2"`` (pre-releases
only when listed explicitly).

Each version is installed once into the cache, as it resolved when it was
published (npm ``--before``, pip ``--uploaded-prior-to`` at the publish
time), so old releases get the dependencies they were tested with:

    <cache>/npm/<name>/<version>/   npm install --prefix
    <cache>/pypi/<name>/<version>/  a venv, pip install <name>==<version>

A finished install leaves ``install.json`` (command, publish time); the
version list of each package is cached too, so a sweep whose versions are
all in the cache runs offline.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import os
import re
import shutil
import signal
import sys
import tempfile
from pathlib import Path

from .errors import CrawlError, short
from .servers import safe_name

_CLAUSE = re.compile(r"^(>=|<=|==|!=|>|<|=)?\s*v?([0-9][0-9A-Za-z.+-]*)$")


def default_cache() -> Path:
    if os.environ.get("MCPDELTA_CACHE"):
        return Path(os.environ["MCPDELTA_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "mcpdelta" / "packages"


def version_key(version: str) -> tuple:
    """Release numbers first; a pre-release sorts before its release."""
    main = re.split(r"[-+]|(?<=\d)(?=[a-zA-Z])", version, maxsplit=1)[0]
    nums = tuple(int(p) if p.isdigit() else 0 for p in main.split("."))
    return nums + (0,) * (4 - len(nums)), 0 if is_prerelease(version) else 1, version


def is_prerelease(version: str) -> bool:
    return bool(re.search(r"[-a-zA-Z]", version.split("+")[0]))


def check_selector(selector: str) -> str | None:
    s = selector.strip()
    if s in ("latest", "all") or re.fullmatch(r"last\s+[1-9][0-9]*", s):
        return None
    for clause in filter(None, re.split(r"[,\s]+(?=[<>=!v0-9])", s)):
        if not _CLAUSE.match(clause.strip()):
            return f"cannot read {selector!r} (a list, 'latest', 'last N' or a range like '>=0.6')"
    return None


def select(available: list[str], selector) -> list[str]:
    """Pick versions from the published ones, oldest first."""
    if isinstance(selector, list):
        return list(selector)
    stable = sorted((v for v in available if not is_prerelease(v)), key=version_key)
    s = selector.strip()
    if s == "latest":
        return stable[-1:]
    if s == "all":
        return stable
    m = re.fullmatch(r"last\s+([0-9]+)", s)
    if m:
        return stable[-int(m.group(1)):]
    out = stable
    for clause in filter(None, re.split(r"[,\s]+(?=[<>=!v0-9])", s)):
        op, ver = _CLAUSE.match(clause.strip()).groups()
        ref = version_key(ver)[0]
        test = {">=": lambda k: k >= ref, "<=": lambda k: k <= ref, ">": lambda k: k > ref,
                "<": lambda k: k < ref, "!=": lambda k: k != ref}.get(op or "==", lambda k: k == ref)
        out = [v for v in out if test(version_key(v)[0])]
    return out


async def run_process(argv: list[str], timeout: float, cwd: str | None = None,
                      env: dict | None = None) -> tuple[int, str, str]:
    """Run a helper command in its own process group; kill the group on timeout."""
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, cwd=cwd, env=env, start_new_session=True)
    except OSError as exc:
        raise CrawlError("install_failed", f"cannot run {argv[0]}: {exc.strerror or exc}") from None
    try:
        out, err = await asyncio.wait_for(proc.communicate(), timeout)
    except (asyncio.TimeoutError, TimeoutError, asyncio.CancelledError) as exc:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        await proc.wait()
        if isinstance(exc, asyncio.CancelledError):
            raise
        raise CrawlError("timeout", f"{Path(argv[0]).name} {argv[1] if len(argv) > 1 else ''}: "
                                    f"no result within {timeout:g}s") from None
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # helpers it left behind
        except (ProcessLookupError, PermissionError):
            pass
    return proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


def _index_only_env() -> dict:
    """The environment for a time-travel pip install: the package index only.
    pip cannot date a local wheel folder or a ``file://`` index, so it lets
    their newer releases past ``--uploaded-prior-to``; a machine's pip
    config or ``PIP_FIND_LINKS`` may add both."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PIP_FIND_LINKS", "PIP_EXTRA_INDEX_URL", "PIP_CONSTRAINT")}
    env["PIP_CONFIG_FILE"] = os.devnull
    return env


def _npm_reason(err: str) -> str:
    """npm's error code and first message line, e.g. "ETARGET: No matching version found
    for x@1 with a date before ..." (its last line only points at a log file)."""
    code, message = None, None
    for line in err.splitlines():
        m = re.match(r"npm (?:error|ERR!) (\S+)(?: (.*))?$", line.strip())
        if not m:
            continue
        if m.group(1) == "code" and code is None:
            code = (m.group(2) or "").strip() or None
        elif message is None and m.group(2) and not m.group(0).startswith(("npm error A complete log",
                                                                          "npm ERR! A complete log")):
            message = m.group(2).strip() if m.group(1) in (code, (code or "").lower()) else f"{m.group(1)} {m.group(2)}".strip()
    if message:
        return short(f"{code}: {message}" if code else message, 300)
    return _last_line(err)


def _last_line(text: str) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return short(lines[-1], 160) if lines else ""


class PackageCache:
    def __init__(self, root: Path, timeout: float, offline: bool = False):
        self.root, self.timeout, self.offline = Path(root), timeout, offline

    def dir(self, registry: str, name: str) -> Path:
        return self.root / registry / safe_name(name)

    # -- published versions ----------------------------------------------
    async def published(self, registry: str, name: str) -> dict[str, str | None]:
        """{version: publish time (ISO, UTC) or None}; the cache when offline or unreachable."""
        cache_file = self.dir(registry, name) / "versions.json"
        problem = "offline"
        if not self.offline:
            try:
                found = await (self._npm_versions(name) if registry == "npm" else self._pypi_versions(name))
                cache_file.parent.mkdir(parents=True, exist_ok=True)
                _write_json(cache_file, found)
                return found
            except CrawlError as exc:
                problem = exc.message
        if cache_file.exists():
            return json.loads(cache_file.read_text())
        installed = {p.parent.name: None for p in self.dir(registry, name).glob("*/install.json")}
        if installed:
            return installed
        raise CrawlError("version_lookup", f"cannot list versions of {registry} package {name}: {problem}")

    async def _npm_versions(self, name: str) -> dict[str, str | None]:
        npm = shutil.which("npm")
        if not npm:
            raise CrawlError("version_lookup", "npm is not installed")
        code, out, err = await run_process([npm, "view", name, "time", "--json"], self.timeout)
        if code != 0:
            raise CrawlError("version_lookup", f"npm view {name}: {_last_line(err) or 'failed'}")
        times = json.loads(out or "{}")
        return {v: t for v, t in times.items() if v not in ("created", "modified")}

    async def _pypi_versions(self, name: str) -> dict[str, str | None]:
        import httpx

        url = f"https://pypi.org/pypi/{name}/json"
        try:
            async with httpx.AsyncClient(timeout=self.timeout, follow_redirects=True) as client:
                resp = await client.get(url)
        except httpx.HTTPError as exc:
            raise CrawlError("version_lookup", f"PyPI {name}: {type(exc).__name__}") from None
        if resp.status_code != 200:
            raise CrawlError("version_lookup", f"PyPI {name}: HTTP {resp.status_code}")
        out: dict[str, str | None] = {}
        for version, files in resp.json().get("releases", {}).items():
            live = [f for f in files if not f.get("yanked")]
            if live:
                out[version] = min(f.get("upload_time_iso_8601") or "" for f in live) or None
        return out

    # -- installs ----------------------------------------------------------
    async def install(self, registry: str, name: str, version: str, published_at: str | None,
                      bin_name: str | None) -> dict:
        """-> {"argv": [absolute paths], "published_at": ...}; cached after the first time."""
        final = self.dir(registry, name) / safe_name(version)
        marker = final / "install.json"
        if marker.exists():
            return _absolute(json.loads(marker.read_text()), final)
        if self.offline:
            raise CrawlError("install_failed", f"{name}@{version} is not in the cache and the crawl is offline")
        final.parent.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=f".{safe_name(version)}-", dir=final.parent))
        try:
            if registry == "npm":
                info = await self._install_npm(work, name, version, published_at, bin_name)
            else:
                info = await self._install_pypi(work, name, version, published_at, bin_name)
            info.update({"registry": registry, "name": name, "version": version, "published_at": published_at})
            _write_json(work / "install.json", info)
            try:
                os.replace(work, final)
            except OSError:  # another crawl finished it first
                if not marker.exists():
                    raise
            return _absolute(json.loads(marker.read_text()), final)
        finally:
            if work.exists():
                shutil.rmtree(work, ignore_errors=True)

    async def _install_npm(self, work: Path, name: str, version: str, published_at, bin_name) -> dict:
        npm = shutil.which("npm")
        if not npm:
            raise CrawlError("install_failed", "npm is not installed")
        argv = [npm, "install", "--prefix", str(work), "--no-audit", "--no-fund", "--no-save",
                "--loglevel=error", f"{name}@{version}"]
        before = _after(published_at)
        if before:
            argv.append(f"--before={before}")
        code, _, err = await run_process(argv, self.timeout)
        if code != 0:
            raise CrawlError("install_failed", f"npm install {name}@{version}: {_npm_reason(err) or 'failed'}")
        pkg = json.loads((work / "node_modules" / name / "package.json").read_text())
        bins = pkg.get("bin")
        if isinstance(bins, str):
            bins = {name.split("/")[-1]: bins}
        if not bins:
            raise CrawlError("install_failed", f"{name}@{version} has no executable ('bin')")
        chosen = _choose(bins, bin_name, name)
        return {"argv": [f"node_modules/.bin/{chosen}"]}

    async def _install_pypi(self, work: Path, name: str, version: str, published_at, bin_name) -> dict:
        code, _, err = await run_process([sys.executable, "-m", "venv", "--without-pip", str(work)], self.timeout)
        if code != 0:
            raise CrawlError("install_failed", f"venv for {name}: {_last_line(err)}")
        py = str(work / "bin" / "python")
        base = [sys.executable, "-m", "pip", "--python", py, "install", "--no-input",
                "--disable-pip-version-check", "--quiet", f"{name}=={version}"]
        before = _after(published_at)
        argv = base + ([f"--uploaded-prior-to={before}"] if before else [])
        env = _index_only_env() if before else None
        code, _, err = await run_process(argv, self.timeout, env=env)
        if code != 0 and before and "no such option" in err:
            # never fall back to today's dependencies: that is the flaw a
            # time-travel install exists to avoid
            raise CrawlError("install_failed", "this pip has no --uploaded-prior-to; installing a release "
                             "as of its publish date needs pip 26.0 or newer")
        if code != 0:
            raise CrawlError("install_failed", f"pip install {name}=={version}: {_last_line(err) or 'failed'}")
        probe = ("import importlib.metadata as m, json, sys; d = m.distribution(sys.argv[1]); "
                 "print(json.dumps([e.name for e in d.entry_points if e.group == 'console_scripts']))")
        code, out, err = await run_process([py, "-c", probe, name], self.timeout)
        scripts = json.loads(out) if code == 0 and out.strip() else []
        if not scripts:
            raise CrawlError("install_failed", f"{name}=={version} declares no console script")
        chosen = _choose({s: s for s in scripts}, bin_name, name)
        # run through the venv's python: the script's #! names the temporary folder
        return {"argv": ["bin/python", f"bin/{chosen}"]}


def _choose(bins: dict, wanted: str | None, package: str) -> str:
    if wanted:
        if wanted not in bins:
            raise CrawlError("install_failed", f"no executable {wanted!r} (has: {', '.join(sorted(bins))})")
        return wanted
    if len(bins) == 1:
        return next(iter(bins))
    plain = package.split("/")[-1]
    for candidate in (plain, plain.replace("_", "-")):
        if candidate in bins:
            return candidate
    return sorted(bins)[0]


def _absolute(info: dict, final: Path) -> dict:
    info = dict(info)
    info["argv"] = [str(final / part) for part in info["argv"]]
    return info


def _after(published_at: str | None) -> str | None:
    """One minute after the publish time (the release itself must be included)."""
    if not published_at:
        return None
    try:
        when = dt.datetime.fromisoformat(published_at.replace("Z", "+00:00"))
    except ValueError:
        return None
    return (when + dt.timedelta(minutes=1)).astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _write_json(path: Path, data) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True))
    os.replace(tmp, path)
