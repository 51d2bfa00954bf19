"""Registry look-ups: which versions a package has published, and when.

Plain HTTP, many at a time over one connection pool, each answer's
validators (``ETag``, ``Last-Modified``) kept beside the version list it
gave (``lookup.json`` next to ``versions.json``). The next look-up sends
them back; a ``304 Not Modified`` reuses the list without a body, so a
nightly pass over thousands of packages with nothing new moves a few
hundred bytes per package.

- npm: the packument (``GET <registry>/<name>``), its ``time`` field as
  ``npm view NAME time`` prints it, from the registry npm is configured
  with (``registry`` and ``@scope:registry`` of ``npm config list``, read
  once). A registry that answers 401, 403 or 404, or cannot be reached, is
  asked again through ``npm view`` itself: npm holds whatever credentials
  and proxy a private package needs, and says why a name is missing.
- PyPI: the JSON API (``GET <index>/pypi/<name>/json``), the earliest
  upload of each version's files that are not yanked.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import threading
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from .errors import CrawlError
from .package_names import name_problem
from .toolchain import npm_reason, run_process

# a registry that stalls is not waited for as long as an install
LOOKUP_TIMEOUT_S = 60.0
_TRANSIENT = {429, 500, 502, 503, 504}


class Lookups:
    """One look-up pass: a shared connection pool, its worker threads (a plain
    client in threads costs a quarter of the CPU of an event-loop one per
    request, which counts at thousands of packages), npm's registry settings.

        async with Lookups(cache, concurrency=16) as lookups:
            times = await lookups.fetch("npm", "@scope/pkg")
    """

    def __init__(self, cache, concurrency: int = 16):
        self.cache = cache
        self.concurrency = max(1, concurrency)
        self._client: httpx.Client | None = None
        self._pool: ThreadPoolExecutor | None = None
        self._npm_config: dict | None = None
        self._npm_lock = asyncio.Lock()

    async def __aenter__(self) -> "Lookups":
        self._client = httpx.Client(
            timeout=min(self.cache.timeout, LOOKUP_TIMEOUT_S), follow_redirects=True,
            limits=httpx.Limits(max_connections=self.concurrency, max_keepalive_connections=self.concurrency))
        self._pool = ThreadPoolExecutor(self.concurrency, thread_name_prefix="mcpdelta-lookup")
        return self

    async def __aexit__(self, *exc) -> None:
        # a pass that was stopped does not wait for the requests in flight:
        # closing the client ends them
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._client.close()

    async def fetch(self, registry: str, name: str) -> dict[str, str | None]:
        """{version: publish time}, kept in the package's cache folder with the
        answer's validators (or, when the registry says nothing changed, the
        list kept last time)."""
        problem = name_problem(registry, name)
        if problem:  # a name from elsewhere than a servers file (which refuses it at its load)
            raise CrawlError("version_lookup", f"{registry}: {problem}")
        url = await self._npm_url(name) if registry == "npm" else pypi_url(self.cache.pypi_url, name)
        loop = asyncio.get_running_loop()
        try:
            times = await loop.run_in_executor(self._pool, self._fetch, registry, name, url)
        except CrawlError:
            if registry != "npm":
                raise
            times = None  # a proxy or certificate npm is configured with and this client is not
        if times is None:
            # npm's own credentials for a private package, and its own words for a missing one
            times = await npm_view_times(name, self.cache.timeout)
            await loop.run_in_executor(self._pool, keep, self.cache.dir(registry, name), times, {})
        return times

    def _fetch(self, registry: str, name: str, url: str) -> dict | None:
        """The list, in a worker thread; None: ask npm."""
        folder = self.cache.dir(registry, name)
        known = _validators(folder, url)
        resp = self._get(url, known)
        if resp.status_code == 304 and known:
            cached = _read_json(folder / "versions.json")
            if isinstance(cached, dict):
                return cached
            resp = self._get(url, {})  # the list went missing meanwhile: ask in full
        what = f"npm registry {name}" if registry == "npm" else f"PyPI {name}"
        if registry == "npm" and resp.status_code in (401, 403, 404):
            return None
        if resp.status_code != 200:
            raise CrawlError("version_lookup", f"{what}: HTTP {resp.status_code}")
        times = (_npm_times if registry == "npm" else _pypi_times)(resp.content, what)
        keep(folder, times, {"url": url, "etag": resp.headers.get("etag"),
                             "last_modified": resp.headers.get("last-modified")})
        return times

    def _get(self, url: str, known: dict) -> httpx.Response:
        """GET with the validators ``known``; a busy registry (429, 5xx) or a
        dropped connection is asked up to twice more."""
        headers = {"Accept": "application/json"}
        if known.get("etag"):
            headers["If-None-Match"] = known["etag"]
        if known.get("last_modified"):
            headers["If-Modified-Since"] = known["last_modified"]
        for attempt in range(3):
            try:
                resp = self._client.get(url, headers=headers)
            except httpx.HTTPError as exc:
                if attempt == 2:
                    raise CrawlError("version_lookup", f"{url}: {type(exc).__name__}") from None
            else:
                if resp.status_code not in _TRANSIENT or attempt == 2:
                    return resp
            time.sleep(1 + attempt)
        raise AssertionError("unreachable")

    async def _npm_url(self, name: str) -> str:
        async with self._npm_lock:
            if self._npm_config is None:
                self._npm_config = await npm_registries(self.cache.timeout)
        scope = name.split("/", 1)[0] if name.startswith("@") and "/" in name else None
        base = (scope and self._npm_config.get(f"{scope}:registry")) or self._npm_config["registry"]
        return base.rstrip("/") + "/" + urllib.parse.quote(name, safe="@").replace("/", "%2f")


def pypi_url(index: str, name: str) -> str:
    """The JSON API's URL of one project, the name quoted as one path segment."""
    return f"{index}/pypi/{urllib.parse.quote(name, safe='')}/json"


def keep(folder: Path, times: dict, validators: dict) -> None:
    """The version list, then the validators of the answer that gave it ({}: none)."""
    folder.mkdir(parents=True, exist_ok=True)
    _write(folder / "versions.json", json.dumps(times, indent=1, sort_keys=True))
    path = folder / "lookup.json"
    if validators.get("etag") or validators.get("last_modified"):
        _write(path, json.dumps(validators, sort_keys=True))
    else:
        path.unlink(missing_ok=True)


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def _validators(folder: Path, url: str) -> dict:
    """The validators of the last answer from ``url``, when its version list is still there."""
    found = _read_json(folder / "lookup.json")
    if not isinstance(found, dict) or found.get("url") != url or not (folder / "versions.json").is_file():
        return {}
    return {k: v for k, v in found.items() if k in ("etag", "last_modified") and isinstance(v, str) and v}


def _read_json(path: Path):
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


async def npm_registries(timeout: float) -> dict:
    """npm's ``registry`` and ``@scope:registry`` settings (its config files and environment)."""
    npm = shutil.which("npm")
    if not npm:
        raise CrawlError("version_lookup", "npm is not installed")
    code, out, err = await run_process([npm, "config", "list", "--json"], min(timeout, LOOKUP_TIMEOUT_S))
    try:
        config = json.loads(out) if code == 0 else None
    except ValueError:
        config = None
    if not isinstance(config, dict) or not isinstance(config.get("registry"), str):
        raise CrawlError("version_lookup", f"npm config list: {npm_reason(err) or 'no registry configured'}")
    return {k: v for k, v in config.items() if isinstance(v, str) and (k == "registry" or k.endswith(":registry"))}


async def npm_view_times(name: str, timeout: float) -> dict[str, str | None]:
    npm = shutil.which("npm")
    if not npm:
        raise CrawlError("version_lookup", "npm is not installed")
    code, out, err = await run_process([npm, "view", "--json", "--", name, "time"], timeout)
    if code != 0:
        raise CrawlError("version_lookup", f"npm view {name}: {npm_reason(err) or 'failed'}")
    times = _loads(out or "{}", f"npm view {name}")
    if not isinstance(times, dict):
        raise CrawlError("version_lookup", f"npm view {name}: no publish times in its answer")
    return {v: t for v, t in times.items() if v not in ("created", "modified") and isinstance(t, str)}


def _npm_times(body, what: str) -> dict[str, str | None]:
    doc = _loads(body, what)
    times = doc.get("time") if isinstance(doc, dict) else None
    if not isinstance(times, dict):
        raise CrawlError("version_lookup", f"{what}: no publish times in its answer")
    return {v: t for v, t in times.items() if v not in ("created", "modified") and isinstance(t, str)}


def _pypi_times(body, what: str) -> dict[str, str | None]:
    doc = _loads(body, what)
    releases = doc.get("releases") if isinstance(doc, dict) else None
    if not isinstance(releases, dict):
        raise CrawlError("version_lookup", f"{what}: no releases in its answer")
    out: dict[str, str | None] = {}
    for version, files in releases.items():
        live = [f for f in files if isinstance(f, dict) and not f.get("yanked")] if isinstance(files, list) else []
        if live:
            out[version] = min(f.get("upload_time_iso_8601") or "" for f in live) or None
    return out


def _loads(body, what: str):
    try:
        return json.loads(body)
    except ValueError:
        raise CrawlError("version_lookup", f"{what}: the answer is not JSON") from None
