"""PyPI releases into venvs of their own: the interpreter a release needs, and
the installer (``PackageCache.python_installer``: uv where it is found, else
pip) that resolves it as of its cut-off.

uv makes the venv (``uv venv --python INTERPRETER``) and installs into it
(``uv pip install --exclude-newer CUT-OFF``) from one cache shared by every
install and hard-linked into each venv, reading an index page from that
cache for ten minutes after fetching it (see ``_index_config``); pip makes
it with the interpreter's ``venv`` and installs with ``--uploaded-prior-to
CUT-OFF`` and a download cache of its own. Both resolve the same versions,
and neither reads the machine's configuration of itself (a pip config or
``UV_*`` settings may add an index, a constraint or a cut-off). A release
is run through the venv's ``bin/python`` (the scripts' ``#!`` names the
folder it was made in).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import importlib.metadata
import json
import os
import sys
from pathlib import Path

from .errors import CrawlError
from .toolchain import (choose_executable, empty_folder, full_version, index_only_env, interpreters, pip_reason,
                        py_matches, requires_python, run_process, uv_env, uv_reason)


async def install_pypi(cache, work: Path, name: str, version: str, before, bin_name, python=None) -> dict:
    """A venv of the interpreter asked for or, failing ``Requires-Python``, the
    oldest one on the machine that meets it; the release installed into it."""
    found = interpreters()
    if python is not None:
        if python not in found:
            raise CrawlError("install_failed", f"no Python {python} on this machine "
                                               f"(found: {', '.join(found) or 'none'})")
        return await _venv(cache, work, name, version, before, bin_name, python, found[python])
    own = f"{sys.version_info[0]}.{sys.version_info[1]}"
    try:
        return await _venv(cache, work, name, version, before, bin_name, own, sys.executable)
    except CrawlError as exc:
        spec = requires_python(exc.message)
        if exc.kind != "install_failed" or not spec:
            raise
        fits = [minor for minor in found if minor != own and py_matches(spec, full_version(minor, found[minor]))]
        if not fits:
            raise CrawlError("install_failed", f"{exc.message} (no interpreter on this machine meets "
                                               f"Requires-Python {spec}; found: {', '.join(found)})") from None
    empty_folder(work)
    return await _venv(cache, work, name, version, before, bin_name, fits[0], found[fits[0]])


async def _venv(cache, work: Path, name, version, before, bin_name, minor: str, interpreter: str) -> dict:
    kind, uv, warning = cache.python_installer()
    if kind == "uv":
        await _uv_install(cache, uv, work, name, version, before, minor, interpreter)
    else:
        await _pip_install(cache, work, name, version, before, minor, interpreter)
    scripts = console_scripts(work, name)
    if not scripts:
        raise CrawlError("install_failed", f"{name}=={version} declares no console script")
    chosen = choose_executable({s: s for s in scripts}, bin_name, name)
    # run through the venv's python: the script's #! names the temporary folder
    return {"argv": ["bin/python", f"bin/{chosen}"], "python": minor, "installer": kind,
            **({"warning": warning} if warning else {})}


INDEX_PAGES_FRESH_S = 600  # as pypi.org's pages say of themselves (``Cache-Control: max-age=600``)
ENTRY_POINTS_MAX_BYTES = 1 << 20  # a release's list of its commands; one bigger is not read


def console_scripts(venv: Path, name: str) -> list[str]:
    """The console scripts the release declares, read from its metadata in
    the venv (no interpreter started: the venv's own would take longer)."""
    found = importlib.metadata.distributions(name=name, path=[str(p) for p in venv.glob("lib/python*/site-packages")])
    dist = next(iter(found), None)
    if dist is None:
        return []
    folder = getattr(dist, "_path", None)  # its dist-info folder (a distribution found on a path has one)
    listing = Path(folder) / "entry_points.txt" if folder else None
    size = listing.stat().st_size if listing and listing.is_file() else 0
    if size > ENTRY_POINTS_MAX_BYTES:
        raise CrawlError("install_failed", f"{name}: its entry_points.txt is {size:,} bytes, over the "
                                           f"{ENTRY_POINTS_MAX_BYTES:,} read")
    return [e.name for e in dist.entry_points if e.group == "console_scripts"]


async def _uv_install(cache, uv: str, work: Path, name, version, before, minor: str, interpreter: str) -> None:
    """uv: a venv on ``interpreter``, then the release resolved as pip would
    (``--exclude-newer`` is pip's ``--uploaded-prior-to``), from one shared
    cache hard-linked into the venv."""
    env = uv_env()
    code, _, err = await run_process([uv, "venv", "--no-config", "--quiet", "--no-python-downloads",
                                      "--python", interpreter, str(work)], cache.timeout, env=env)
    if code != 0:
        raise CrawlError("install_failed", f"venv for {name} (Python {minor}): {uv_reason(err)}")
    # No --compile-bytecode (pip's default): compiling every module of every
    # dependency was most of an install (chroma-mcp 0.2.5 from a warm cache:
    # 51.6 s with it, 11.9 s without), while the server's first start compiles
    # only what it imports (chroma-mcp: about 2 s, 1,026 modules)
    argv = [uv, "pip", "install", "--no-config", "--config-file", str(_index_config(cache)), "--quiet",
            "--no-progress", "--python", str(work / "bin" / "python"), "--cache-dir", str(cache.downloads("uv")),
            "--link-mode", "hardlink"]
    if before:
        argv += ["--exclude-newer", before]
    if not before or before > _fresh_since():
        # a page read from the cache may predate this cut-off and lack what
        # it allows; uv's --refresh still reads a page it holds as fresh
        argv.append("--no-cache")
    argv += ["--", f"{name}=={version}"]  # a name is never read as an option (``-r FILE``)
    code, _, err = await run_process(argv, cache.timeout, env=env)
    if code != 0:
        raise CrawlError("install_failed", f"uv pip install {name}=={version} (Python {minor}): "
                                           f"{uv_reason(err) or 'failed'}")


def _index_config(cache) -> Path:
    """uv's configuration for the index: its version lists read from the
    cache for ``INDEX_PAGES_FRESH_S`` after they were fetched, whatever the
    index says. pypi.org says the same; an index that says nothing (a
    mirror) would otherwise be asked again about every page of every
    install, one dependency level after another. Sound for a cut-off older
    than that: a page fetched since the cut-off lists every file uploaded
    before it (an install with a younger one reads no cache, see
    ``_uv_install``)."""
    text = (f"[[index]]\nurl = {json.dumps(cache.pypi_url + '/simple/')}\ndefault = true\n"
            f'cache-control = {{ api = "max-age={INDEX_PAGES_FRESH_S}" }}\n')
    path = cache.root / "downloads" / f"uv-index-{hashlib.sha256(text.encode()).hexdigest()[:12]}.toml"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(text)
        os.replace(tmp, path)  # crawls sharing the cache each write the same text
    return path


def _fresh_since() -> str:
    """The oldest cut-off every page read fresh from uv's cache was fetched
    after (the format of a cut-off, compared as text)."""
    when = dt.datetime.now(dt.timezone.utc) - dt.timedelta(seconds=INDEX_PAGES_FRESH_S)
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


async def _pip_install(cache, work: Path, name, version, before, minor: str, interpreter: str) -> None:
    code, _, err = await run_process([interpreter, "-m", "venv", "--without-pip", str(work)], cache.timeout)
    if code != 0:
        raise CrawlError("install_failed", f"venv for {name} (Python {minor}): {pip_reason(err)}")
    py = str(work / "bin" / "python")
    argv = [sys.executable, "-m", "pip", "--python", py, "install", "--no-input",
            "--disable-pip-version-check", "--quiet", "--cache-dir", str(cache.downloads("pip"))]
    if cache.pypi_url != "https://pypi.org":
        argv += ["--index-url", f"{cache.pypi_url}/simple/"]
    if before:
        argv.append(f"--uploaded-prior-to={before}")
    argv += ["--", f"{name}=={version}"]  # a name is never read as an option
    env = index_only_env() if before or cache.pypi_url != "https://pypi.org" else None
    code, _, err = await run_process(argv, cache.timeout, env=env)
    if code != 0 and before and "no such option" in err:
        # never fall back to today's dependencies: that is the flaw a
        # time-travel install exists to avoid
        raise CrawlError("install_failed", "this pip has no --uploaded-prior-to; installing a release "
                         "as of its publish date needs pip 26.0 or newer")
    if code != 0:
        raise CrawlError("install_failed", f"pip install {name}=={version} (Python {minor}): "
                                           f"{pip_reason(err) or 'failed'}")
