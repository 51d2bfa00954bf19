"""Crawl many targets: sweeps expanded, installs, captures, retries, files.

``crawl(targets, limits, out_dir)`` returns one ``CaptureRecord`` per
attempt (success or classified failure) and writes
``out_dir/<id>/<version>.json`` for every successful capture plus
``out_dir/crawl-log.jsonl``, one line per record as it finishes (appended,
so the log and the manifests of a folder crawled twice agree).

Every server runs with a fresh ``HOME`` and cache folders (removed after
its capture) and ``PYTHONHASHSEED=0``; the capture's ``${VAR}`` values are
redacted from everything written, before any excerpt is cut.

Retries (tenacity) cover transient faults only: connection refused or
reset, HTTP 429 and 5xx (waiting what Retry-After asks, capped), and
timeouts of remote servers. A local server that hangs is not retried; one
that exits naming environment variables it lacks is started again with
placeholder values for them (``placeholders.py``; its recipe and warnings
say which). The total time limit of a server covers every attempt and
start. A package's install is tried again only after a timeout or a
registry's 5xx (``errors.install_retryable``); its time, failed or not, is
``install_ms``.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import datetime as dt
import json
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Callable

from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt

from mcpdelta.errors import InputError
from mcpdelta.files import make_folder, open_append, write_file
from mcpdelta.inputs import load_json, read_bytes
from mcpdelta.names import path_in

from .errors import CrawlError, cause, cause_lines, install_retryable, short
from .http import StreamableHttpTransport
from .model import ClientIdentity, CaptureRecord, Limits, PackageSpec, Target
from .package_names import is_selector
from .npm_reuse import Turns, adopt, check_install, same_capture, sampled
from .packages import PackageCache, default_cache, runtime_env, select_noted
from .placeholders import MAX_NAMES, MAX_ROUNDS, value_for, wanted
from .probes import ProbePolicy
from .redact import redact, use_secrets
from .recipe import VAR, with_placeholders
from .servers import MissingVariable, expand, safe_name
from .session import DiscoverBroke, capture
from .sse import LegacySseTransport
from .stdio import StdioTransport
from .toolchain import failed_output

Progress = Callable[[CaptureRecord, int, int], None]


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _is_transient(exc: BaseException) -> bool:
    return isinstance(exc, CrawlError) and exc.transient


async def expand_sweeps(targets: list[Target], cache: PackageCache, concurrency: int = 16,
                        held=frozenset()) -> tuple[list[tuple[Target, str | None]], list[CaptureRecord]]:
    """Sweep entries -> one target per selected version; failed lookups -> records.

    The registry look-ups run ``concurrency`` at a time, one per package (a
    second nightly run over a population it holds is nothing but look-ups);
    a sweep that names its versions (no selector among them, such as
    "> 1.4") and whose every (id, version) is in ``held`` needs none. The
    jobs come out in the order of ``targets``."""
    def needs_lookup(t: Target) -> bool:
        if t.package is None or t.problem:
            return False
        listed = t.package.versions
        return not (isinstance(listed, list) and not any(map(is_selector, listed))
                    and all((t.id, v) in held for v in listed))

    names = sorted({(t.package.registry, t.package.name) for t in targets if needs_lookup(t)})
    # one look-up per package, however many entries sweep it
    found = dict(zip(names, await cache.published_many(names, concurrency)))
    jobs: list[tuple[Target, str | None]] = []
    failed: list[CaptureRecord] = []
    for t in targets:
        spec = t.package
        if spec is None or t.problem:
            jobs.append((t, None))
            continue
        published = found.get((spec.registry, spec.name), {})  # none needed: every version held
        if isinstance(published, CrawlError):
            if not isinstance(spec.versions, list):
                failed.append(_failure(t, str(spec.versions), published, 0))
                continue
            published = {}
        versions, note = select_noted(list(published), spec.versions)
        if not versions:
            failed.append(_failure(t, str(spec.versions), CrawlError(
                "version_lookup", f"no published version of {spec.name} matches {spec.versions!r}"
                                  + (f": {note}" if note else ""))))
        for v in versions:
            one = copy.copy(t)
            one.version = v
            one.notes = t.notes + ([note] if note else [])
            one.package = PackageSpec(spec.registry, spec.name, [v], spec.bin, spec.python, spec.node)
            jobs.append((one, published.get(v)))
    return jobs, failed


def _failure(t: Target, version: str, exc: CrawlError, ms: int = 0) -> CaptureRecord:
    return CaptureRecord(id=t.id, version=version, ok=False, error_kind=exc.kind, error=exc.message,
                         duration_ms=ms, captured_at=_now(), transport=t.transport, recipe=t.recipe)


def lists_no_tools(manifest: dict) -> bool:
    """A capture that is no capture: the server advertises the tools
    capability and listed none (a server that lists its tools only once it
    is configured, started without that configuration). Recorded as a
    failure of its own kind, ``empty``; ``sql/empty_captures.sql`` reads the
    lake the same way, and also calls a capture empty when another release
    of the server lists tools."""
    capabilities = manifest.get("capabilities")
    return isinstance(capabilities, dict) and "tools" in capabilities and manifest.get("tools") == []


def make_transport(t: Target, command: str | None, args: list[str], env: dict, headers: dict, limits: Limits,
                   secret_headers: frozenset = frozenset()):
    if t.transport == "stdio":
        return StdioTransport(command, args, env, t.cwd, limits)
    if t.transport == "sse":
        return LegacySseTransport(t.url, headers, limits, secret_headers)
    return StreamableHttpTransport(t.url, headers, limits, secret_headers)


def isolated_env(home: Path) -> dict[str, str]:
    """A fresh HOME and cache folders for one server, and a fixed hash seed:
    what a server writes stays out of the real home, and a default built from
    a Python set is ordered the same in every capture. Package managers'
    download caches stay where they were, so ``npx``/``uvx`` commands do not
    download again for every capture."""
    env = {"HOME": str(home), "USERPROFILE": str(home), "PYTHONHASHSEED": "0"}
    for var, sub in (("XDG_CACHE_HOME", ".cache"), ("XDG_CONFIG_HOME", ".config"),
                     ("XDG_DATA_HOME", ".local/share"), ("XDG_STATE_HOME", ".local/state"),
                     ("TMPDIR", "tmp")):
        (home / sub).mkdir(parents=True, exist_ok=True)
        env[var] = str(home / sub)
    real_home = os.path.expanduser("~")
    env.setdefault("npm_config_cache", os.environ.get("npm_config_cache") or os.path.join(real_home, ".npm"))
    env.setdefault("PIP_CACHE_DIR", os.environ.get("PIP_CACHE_DIR") or os.path.join(real_home, ".cache", "pip"))
    env.setdefault("UV_CACHE_DIR", os.environ.get("UV_CACHE_DIR") or os.path.join(real_home, ".cache", "uv"))
    npmrc = os.environ.get("npm_config_userconfig") or os.path.join(real_home, ".npmrc")
    if os.path.exists(npmrc):  # the registry npx installs from, as configured
        env["npm_config_userconfig"] = npmrc
    return env


class Gate:
    """Where one job waits its turn: ``installing()`` around its package
    install, ``hold_capture()`` before starting its server (each takes its
    locks and semaphores in order), ``release()`` when it is done."""

    def __init__(self, install=(), capture=()):
        self._install, self._capture = tuple(install), tuple(capture)
        self._held: list = []

    @contextlib.asynccontextmanager
    async def installing(self):
        async with contextlib.AsyncExitStack() as stack:
            for lock in self._install:
                await stack.enter_async_context(lock)
            yield

    async def hold_capture(self) -> None:
        for lock in self._capture:
            await lock.acquire()
            self._held.append(lock)

    def release(self) -> None:
        while self._held:
            self._held.pop().release()


async def capture_target(t: Target, limits: Limits, cache: PackageCache | None,
                         published_at: str | None = None, client: ClientIdentity | None = None,
                         probe_policy: ProbePolicy = ProbePolicy(), gate: Gate | None = None,
                         installed: dict | None = None) -> CaptureRecord:
    """``installed``: the package's install made already (``_check_reuse``'s)."""
    started = time.monotonic()
    gate = gate or Gate()
    client = client or ClientIdentity()
    rec = CaptureRecord(id=t.id, version=t.version or "", ok=False, error_kind=None, error=None,
                        duration_ms=0, captured_at=_now(), transport=t.transport,
                        offered_protocol=client.protocol_version, published_at=published_at,
                        client=client.client_info(), warnings=list(t.notes), recipe=t.recipe)
    secrets: set[str] = set()
    use_secrets(secrets)  # every excerpt cut from here on redacts them first
    last = {}
    placeholders: dict[str, str] = {}  # variables the server asked for, set to fake values
    home = Path(tempfile.mkdtemp(prefix="mcpdelta-home-"))
    try:
        if t.problem:
            raise CrawlError("bad_target", t.problem)
        command, args = t.command, list(t.args)
        runtime = {}  # PATH for a package with its own Node.js
        if t.package:
            if cache is None:
                raise CrawlError("install_failed", "no package cache configured")
            if installed is not None:
                info = installed
            else:
                async with gate.installing():
                    info = await _install(t, cache, published_at, limits, rec)
            rec.install_ms = int(info.get("install_ms") or 0)
            rec.published_at = info.get("published_at") or published_at
            rec.install_retry = info.get("retry")
            rec.python = info.get("python")
            rec.node = info.get("node")
            rec.install_reused = info.get("reused_from")
            if info.get("warning"):
                rec.warnings.append(info["warning"])
            command, args = info["argv"][0], info["argv"][1:] + args
            runtime = runtime_env(info)
        try:
            env = {**isolated_env(home), **runtime,
                   **{k: expand(v, secrets) for k, v in t.env.items()}}
            headers = {k: expand(v, secrets) for k, v in t.headers.items()}
            secret_headers = frozenset(k.lower() for k, v in t.headers.items() if VAR.search(v))
            if t.url or (t.cwd and VAR.search(t.cwd)):
                t = copy.copy(t)
                t.url = t.url and expand(t.url, secrets)
                t.cwd = t.cwd and os.path.abspath(expand(t.cwd, secrets))
            if t.package and t.recipe and t.recipe.get("cwd") is None and not t.recipe.get("fixtures"):
                t = copy.copy(t)
                t.cwd = str(home)  # an installed package reads nothing beside the servers file (servers.py)
        except MissingVariable as exc:
            raise CrawlError("missing_env", str(exc)) from None

        def wait(state) -> float:
            exc = state.outcome.exception()
            delay = min(limits.max_backoff_s, limits.backoff_s * 2 ** (state.attempt_number - 1))
            if getattr(exc, "retry_after", None) is not None:
                delay = min(exc.retry_after, limits.max_retry_after_s)
            return delay

        def note_retry(state) -> None:  # called only when a retry will happen
            exc = state.outcome.exception()
            rec.warnings.append(f"attempt {state.attempt_number}: {exc.kind}: {exc.message}; "
                                f"retried after {state.next_action.sleep:g}s")

        retrying = AsyncRetrying(retry=retry_if_exception(_is_transient), stop=stop_after_attempt(limits.retries + 1),
                                 wait=wait, before_sleep=note_retry, reraise=True)
        await gate.hold_capture()  # the time limit starts once the capture has its slot
        capture_started = time.monotonic()
        try:
            async with asyncio.timeout(limits.total_timeout_s):
                async for attempt in retrying:
                    with attempt:
                        manifest, notes = await _one_capture(t, command, args, env, headers, secret_headers,
                                                             limits, client, rec, last, probe_policy,
                                                             placeholders)
        except TimeoutError:
            raise CrawlError("timeout", f"total time limit of {limits.total_timeout_s:g}s reached") from None
        finally:
            rec.capture_ms = int((time.monotonic() - capture_started) * 1000)
        if lists_no_tools(manifest):
            why = cause(last["transport"].stderr_tail()) if "transport" in last else ""
            raise CrawlError("empty", "listed no tools, though it advertises the tools capability"
                                      + (f"; stderr: {why}" if why else "; nothing on stderr"))
        rec.ok = True
        rec.protocol = notes.protocol
        rec.offered_protocol = notes.offered_protocol
        rec.handshake = notes.handshake
        rec.manifest = _scrub(manifest, secrets) if secrets else manifest
        if not t.version:
            info = manifest.get("serverInfo")
            sv = info.get("version") if isinstance(info, dict) else None
            rec.version = sv if isinstance(sv, str) and sv.strip() else rec.captured_at.replace(":", "")
        if notes.truncated or notes.rejected:
            rec.error_kind = "truncated" if notes.truncated else "partial"
            rec.error = "; ".join(notes.truncated + notes.rejected)
            rec.warnings.extend(notes.truncated + notes.rejected)
        rec.warnings.extend(f"not implemented by the server (a note, not a failure): {u}" for u in notes.unsupported)
        rec.warnings.extend(notes.probe_notes)
        if notes.discover_note and notes.handshake == "initialize":
            rec.warnings.append(f"fell back to initialize: {notes.discover_note}")
        elif notes.discover_note:
            rec.warnings.append(f"server/discover answered late: {notes.discover_note}")
    except Exception as exc:  # noqa: BLE001 - whatever one server does is that server's failure
        if not isinstance(exc, CrawlError):  # what a package or a server did that nothing foresaw
            exc = CrawlError("internal_error", f"{type(exc).__name__}: {short(str(exc))}")
        rec.ok = False
        rec.error_kind, rec.error = exc.kind, exc.message
        if not rec.version:
            rec.version = "unknown"
        # the server's stderr, or, for a failed install, the installer's
        tail = last["transport"].stderr_tail() if "transport" in last else failed_output.get()
        rec.error_lines = cause_lines(tail, limit=200) or list(getattr(exc, "lines", []))
        tail = tail.strip()
        rec.stderr_tail = tail[-4000:] or None  # already redacted, on the raw bytes
    finally:
        gate.release()
        shutil.rmtree(home, ignore_errors=True)
    rec.recipe = with_placeholders(rec.recipe, placeholders)  # a success or not, the recipe it ran under
    transport = last.get("transport")
    confinement = getattr(transport, "confinement", None)
    if confinement is not None and confinement.ended:
        rec.warnings.append(f"ended {confinement.ended} process(es) the server left running outside its process "
                            f"group and environment ({confinement.kind})")
    if transport is not None and getattr(transport, "noise_lines", 0):
        rec.noise_lines = transport.noise_lines
        rec.warnings.append(f"skipped {transport.noise_lines} stdout line(s) that are not JSON-RPC "
                            f"(the first: {transport.noise_sample!r})")
    rec.duration_ms = int((time.monotonic() - started) * 1000)
    rec.error = redact(rec.error, secrets)
    rec.stderr_tail = redact(rec.stderr_tail, secrets)
    rec.warnings = [redact(w, secrets) for w in rec.warnings]
    rec.error_lines = [redact(w, secrets) for w in rec.error_lines]
    return rec


async def _install(t: Target, cache: PackageCache, published_at: str | None, limits: Limits,
                   rec: CaptureRecord) -> dict:
    """The package's install, tried again only where that can help (a timeout,
    a registry's 5xx: ``install_retryable``); a failed one's time is its
    ``install_ms``, and each retry a warning."""
    started = time.monotonic()
    attempt = 1
    while True:
        failed_output.set("")  # what the installer says when this attempt fails
        try:
            info = await cache.install(t.package.registry, t.package.name, t.version or "", published_at,
                                       t.package.bin, python=t.package.python, node=t.package.node)
            failed_output.set("")  # an earlier cut-off's failure is not this capture's
            return info
        except CrawlError as exc:
            rec.install_ms = int((time.monotonic() - started) * 1000)
            if attempt > limits.retries or not install_retryable(exc):
                raise
            delay = min(limits.max_backoff_s, limits.backoff_s * 2 ** (attempt - 1))
            rec.warnings.append(f"install attempt {attempt}: {exc.kind}: {exc.message}; retried after {delay:g}s")
            await asyncio.sleep(delay)
            attempt += 1


async def _check_reuse(t: Target, rec: CaptureRecord, cache: PackageCache, published_at: str | None,
                       limits: Limits, client, probe_policy, gate: Gate) -> CaptureRecord:
    """A release installed over an earlier one's copy, on the run's sample
    (its first such release, then 1 in ``reuse_check_every``), installed
    plainly and captured again: the same capture, or the plain one kept and
    the reuse turned off for the rest of the run, said in its log row."""
    first = cache.reuse_checked == 0
    if cache.reuse_off or not (first or sampled(t.package.name, t.version or "", cache.reuse_check_every)):
        return rec
    cache.reuse_checked += 1
    started = time.monotonic()
    spec = t.package
    try:
        async with gate.installing():
            info = await check_install(cache, spec.registry, spec.name, t.version or "", rec.published_at,
                                       spec.bin, spec.node)
    except CrawlError as exc:
        rec.install_check = short(f"inconclusive: the plain install failed: {exc.kind}: {exc.message}", 600)
        rec.install_check_ms = int((time.monotonic() - started) * 1000)
        return rec
    folder = info.pop("folder")
    try:
        plain = await capture_target(t, limits, cache, published_at, client, probe_policy, gate, installed=info)
        rec.install_check_ms = int((time.monotonic() - started) * 1000)
        if not plain.ok:
            rec.install_check = short(f"inconclusive: the plain install's capture failed: {plain.error_kind}: "
                                      f"{plain.error}", 600)
            return rec
        differs = same_capture(rec.manifest, plain.manifest)
        if differs is None:
            rec.install_check = "equal"
            return rec
        why = f"{t.id} {t.version}: installed over {rec.install_reused}, {differs}"
        cache.reuse_off = why
        _keep_plain(cache, t, published_at, folder)
        plain.install_ms, plain.install_reused = rec.install_ms, None
        plain.install_check, plain.install_check_ms = f"differs: {short(differs, 600)}", rec.install_check_ms
        plain.warnings.append(f"install check: the capture over the install of {rec.install_reused} differed from "
                              f"a plain install's ({short(differs, 300)}): the plain one kept, and installs over "
                              f"an earlier release are off for the rest of the run")
        return plain
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _keep_plain(cache: PackageCache, t: Target, published_at: str | None, folder: str) -> None:
    """The checked plain install in place of the reused one, for later passes."""
    spec = t.package
    final = cache.install_dir(spec.registry, spec.name, t.version or "", published_at, spec.bin, spec.python,
                              spec.node)
    try:
        adopt(folder, final)
    except OSError:
        pass  # the reused one stays; this run installs over earlier releases no more


async def _one_capture(t, command, args, env, headers, secret_headers, limits, client, rec, last, probe_policy,
                       placeholders):
    """One attempt; a server that dies or answers garbage on ``server/discover``
    is started again and asked with ``initialize``; a local server that dies
    naming variables it lacks is started again with ``placeholders`` for
    them (``placeholders.py``; they stay set for later attempts)."""
    discover = True
    rounds = 0
    rec.attempts += 1
    while True:
        transport = make_transport(t, command, args, {**env, **placeholders}, headers, limits, secret_headers)
        last["transport"] = transport
        try:
            try:
                return await capture(transport, limits, client, discover=discover, probes=t.probes,
                                     probe_policy=probe_policy)
            finally:
                await transport.close()  # before stderr is read: all of it is in
        except CrawlError as exc:
            if rounds < MAX_ROUNDS and _add_placeholders(exc, transport, env, placeholders, rec):
                rounds += 1
                continue
            if not (isinstance(exc, DiscoverBroke) and discover):
                raise
            rec.warnings.append(f"started again for initialize: {exc.message}")
            discover = False


def _add_placeholders(exc: CrawlError, transport, env: dict, placeholders: dict, rec: CaptureRecord) -> bool:
    """After a local server exited: set the variables its stderr says it
    lacks to placeholders, within ``MAX_NAMES`` in all, and say so in a
    warning; False when there are none to set."""
    if exc.kind != "server_exited" or transport.remote:
        return False
    asked = wanted(transport.stderr_tail(), {**os.environ, **env, **placeholders})
    names = list(asked)[: MAX_NAMES - len(placeholders)]
    if not names:
        return False
    placeholders.update((name, value_for(name)) for name in names)
    rec.warnings.append(f"started again with placeholder values for {', '.join(names)} "
                        f"({', '.join(f'{n}={placeholders[n]}' for n in names)}): the server exited "
                        f"naming them on stderr ({short(asked[names[0]], 300)})")
    return True


def _scrub(value, secrets: set[str]):
    """Resolved secrets never reach a file, even when a server echoes them."""
    if isinstance(value, str):
        return redact(value, secrets)
    if isinstance(value, list):
        return [_scrub(v, secrets) for v in value]
    if isinstance(value, dict):
        return {redact(k, secrets): _scrub(v, secrets) for k, v in value.items()}
    return value


def write_manifest(out_dir: Path, rec: CaptureRecord) -> Path:
    """The capture as ``out_dir/<id>/<version>.json``, written whole (a capture
    folder that is a link elsewhere is refused)."""
    path = manifest_path(out_dir, rec.id, rec.version)
    make_folder(out_dir, path.parent.name)
    write_file(path, json.dumps(rec.manifest, indent=2, ensure_ascii=False) + "\n")
    return path


def manifest_path(out_dir: Path, server_id: str, version: str) -> Path:
    """Where a capture goes: the id and the version spelled as safe names
    (``mcpdelta.names``), each checked as one."""
    return Path(path_in(path_in(out_dir, safe_name(server_id), what="server id"),
                        safe_name(version), ".json", what="version"))


def good_captures(out_dir: Path) -> set[tuple[str, str]]:
    """(id, version) pairs the out folder holds a good capture of: the manifest
    file is there and the last log row of that pair is a clean success."""
    last: dict[tuple[str, str], dict] = {}
    try:
        data = read_bytes(out_dir / "crawl-log.jsonl", what="crawl log")
    except InputError:
        return set()
    for line in data.splitlines():
        try:
            row = load_json(line, "a crawl-log line")  # bounded: the folder may come from anyone
            last[(str(row["id"]), str(row["version"]))] = row
        except (InputError, KeyError, TypeError):
            continue
    return {key for key, row in last.items()
            if row.get("ok") is True and not row.get("error_kind") and manifest_path(out_dir, *key).is_file()}


async def crawl(targets: list[Target], limits: Limits, out_dir: str | Path, *,
                cache: PackageCache | None = None, progress: Progress | None = None,
                on_total: Callable[[int], None] | None = None,
                client: ClientIdentity | None = None, recapture: bool = False,
                release_installs: bool = False, skipped: list | None = None,
                captured=(), probe_policy: ProbePolicy = ProbePolicy()) -> list[CaptureRecord]:
    """Capture every target; see the module's docstring.

    A version sweep skips every (package, version) ``out_dir`` already holds a
    good capture of (published releases do not change), or that ``captured``
    names (for example a lake's good captures), unless ``recapture``; the
    pairs skipped are appended to ``skipped``. ``probe_policy`` says which
    tools the probes may call (``probes.ProbePolicy``). Servers run from a command
    or a URL are captured every time. ``release_installs`` removes each
    package install once its capture is done (the last pass that needs it).
    The log is appended to: one line per attempt, across runs."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    cache = cache or PackageCache(default_cache(), limits.install_timeout_s)
    have = set() if recapture else good_captures(out_dir) | {(str(i), str(v)) for i, v in captured}
    jobs, records = await expand_sweeps(targets, cache, limits.lookup_concurrency, have)
    if have:
        keep = []
        for t, published in jobs:
            if t.package is not None and (t.id, t.version) in have:
                if skipped is not None:
                    skipped.append((t.id, t.version))
            else:
                keep.append((t, published))
        jobs = keep
    total = len(jobs) + len(records)
    if on_total:
        on_total(total)
    # installs (network, disk) and captures (CPU) on their own limits; at most
    # this many releases are installed and not yet captured at a time
    installs = asyncio.Semaphore(limits.install_concurrency)
    captures = asyncio.Semaphore(limits.concurrency)
    in_flight = asyncio.Semaphore(limits.install_concurrency + limits.concurrency)
    log_path = out_dir / "crawl-log.jsonl"
    done = 0
    written: dict[Path, tuple[str, str]] = {}
    with open_append(log_path) as log:  # never through a link
        def finish(rec: CaptureRecord) -> None:
            nonlocal done
            if rec.ok and rec.manifest is not None:
                try:
                    path = manifest_path(out_dir, rec.id, rec.version)
                    other = written.setdefault(path, (rec.id, rec.version))
                    if other != (rec.id, rec.version):  # two versions (or ids) meeting in one file name
                        raise InputError(f"{rec.id} {rec.version}", f"{other[0]} {other[1]} would write the "
                                         f"same file {path.relative_to(out_dir).as_posix()}; not written")
                    rec.path = write_manifest(out_dir, rec).relative_to(out_dir).as_posix()
                except InputError as exc:  # a name or a folder that cannot be written: that capture's failure
                    rec.ok, rec.manifest, rec.error_kind, rec.error = False, None, "bad_target", str(exc)
            log.write(json.dumps(rec.log_row(), ensure_ascii=False) + "\n")
            log.flush()
            done += 1
            if progress:
                progress(rec, done, total)

        for rec in records:
            finish(rec)

        # a serial server's versions wait for each other before taking a capture slot
        serial = {t.id: asyncio.Lock() for t, _ in jobs if t.serial}
        # an npm package's releases install one after another, earliest published
        # first, each over the one before it (npm_reuse); waiting, none holds an install slot
        package = {(t.package.registry, t.package.name): Turns() for t, _ in jobs
                   if cache.npm_reuse and t.package is not None and t.package.registry == "npm"}

        async def one(target: Target, published_at: str | None) -> CaptureRecord:
            spec = target.package
            async with in_flight:
                turns = spec and package.get((spec.registry, spec.name))
                turn = turns.turn(published_at) if turns else None
                gate = Gate([lock for lock in (turn, installs) if lock],
                            [lock for lock in (serial.get(target.id), captures) if lock is not None])
                try:
                    rec = await capture_target(target, limits, cache, published_at, client, probe_policy, gate)
                finally:
                    if turn:
                        await turn.done()
                if rec.ok and rec.install_reused and rec.install_ms:  # made now, over an earlier release
                    rec = await _check_reuse(target, rec, cache, published_at, limits, client, probe_policy,
                                             Gate([installs], [lock for lock in (serial.get(target.id), captures)
                                                               if lock is not None]))
                if release_installs and target.package is not None:
                    cache.release(target.package.registry, target.package.name, target.version or "",
                                  target.package.bin, target.package.python)
            finish(rec)
            return rec

        records += await asyncio.gather(*(one(t, p) for t, p in jobs))
    return records
