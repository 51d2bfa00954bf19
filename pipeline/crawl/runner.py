"""Crawl many targets: sweeps expanded, installs, captures, retries, files.

``crawl(targets, limits, out_dir)`` returns one ``CaptureRecord`` per
attempt (success or classified failure) and writes
``out_dir/<id>/<version>.json`` for every successful capture plus
``out_dir/crawl-log.jsonl``, one line per record as it finishes.

Retries (tenacity) cover transient faults only: connection refused or
reset, HTTP 429 and 5xx (waiting what Retry-After asks, capped), and
timeouts of remote servers. A local server that hangs is not retried.
The total time limit of a server covers every attempt.
"""

from __future__ import annotations

import asyncio
import copy
import datetime as dt
import json
import os
import time
from pathlib import Path
from typing import Callable

from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt

from .errors import CrawlError
from .http import StreamableHttpTransport
from .model import ClientIdentity, CaptureRecord, Limits, PackageSpec, Target
from .packages import PackageCache, default_cache, select
from .servers import MissingVariable, expand, redact, safe_name
from .session import capture
from .sse import LegacySseTransport
from .stdio import StdioTransport

Progress = Callable[[CaptureRecord, int, int], None]


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _is_transient(exc: BaseException) -> bool:
    return isinstance(exc, CrawlError) and exc.transient


async def expand_sweeps(targets: list[Target], cache: PackageCache) -> tuple[list[tuple[Target, str | None]], list[CaptureRecord]]:
    """Sweep entries -> one target per selected version; failed lookups -> records."""
    jobs: list[tuple[Target, str | None]] = []
    failed: list[CaptureRecord] = []
    for t in targets:
        spec = t.package
        if spec is None or t.problem:
            jobs.append((t, None))
            continue
        try:
            published = await cache.published(spec.registry, spec.name)
        except CrawlError as exc:
            if not isinstance(spec.versions, list):
                failed.append(_failure(t, str(spec.versions), exc, 0))
                continue
            published = {}
        versions = select(list(published), spec.versions)
        if not versions:
            failed.append(_failure(t, str(spec.versions), CrawlError(
                "version_lookup", f"no published version of {spec.name} matches {spec.versions!r}"), 0))
        for v in versions:
            one = copy.copy(t)
            one.version = v
            one.package = PackageSpec(spec.registry, spec.name, [v], spec.bin)
            jobs.append((one, published.get(v)))
    return jobs, failed


def _failure(t: Target, version: str, exc: CrawlError, ms: int) -> CaptureRecord:
    return CaptureRecord(id=t.id, version=version, ok=False, error_kind=exc.kind, error=exc.message,
                         duration_ms=ms, captured_at=_now(), transport=t.transport)


def make_transport(t: Target, command: str | None, args: list[str], env: dict, headers: dict, limits: Limits):
    if t.transport == "stdio":
        return StdioTransport(command, args, env, t.cwd, limits)
    if t.transport == "sse":
        return LegacySseTransport(t.url, headers, limits)
    return StreamableHttpTransport(t.url, headers, limits)


async def capture_target(t: Target, limits: Limits, cache: PackageCache | None,
                         published_at: str | None = None, client: ClientIdentity | None = None) -> CaptureRecord:
    started = time.monotonic()
    client = client or ClientIdentity()
    rec = CaptureRecord(id=t.id, version=t.version or "", ok=False, error_kind=None, error=None,
                        duration_ms=0, captured_at=_now(), transport=t.transport,
                        offered_protocol=client.protocol_version, published_at=published_at,
                        client=client.client_info())
    secrets: set[str] = set()
    last = {}
    try:
        if t.problem:
            raise CrawlError("bad_target", t.problem)
        command, args = t.command, list(t.args)
        if t.package:
            if cache is None:
                raise CrawlError("install_failed", "no package cache configured")
            info = await cache.install(t.package.registry, t.package.name, t.version or "",
                                       published_at, t.package.bin)
            rec.published_at = info.get("published_at") or published_at
            command, args = info["argv"][0], info["argv"][1:] + args
        try:
            env = {k: expand(v, secrets) for k, v in t.env.items()}
            headers = {k: expand(v, secrets) for k, v in t.headers.items()}
            if t.url:
                t = copy.copy(t)
                t.url = expand(t.url, secrets)
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
        try:
            async with asyncio.timeout(limits.total_timeout_s):
                async for attempt in retrying:
                    with attempt:
                        rec.attempts += 1
                        transport = make_transport(t, command, args, env, headers, limits)
                        last["transport"] = transport
                        try:
                            manifest, notes = await capture(transport, limits, client)
                        finally:
                            await transport.close()
        except TimeoutError:
            raise CrawlError("timeout", f"total time limit of {limits.total_timeout_s:g}s reached") from None
        rec.ok = True
        rec.protocol = notes.protocol
        rec.offered_protocol = notes.offered_protocol
        rec.manifest = _scrub(manifest, secrets) if secrets else manifest
        if not t.version:
            info = manifest.get("serverInfo")
            sv = info.get("version") if isinstance(info, dict) else None
            rec.version = sv if isinstance(sv, str) and sv.strip() else rec.captured_at.replace(":", "")
        if notes.truncated or notes.rejected:
            rec.error_kind = "truncated" if notes.truncated else "partial"
            rec.error = "; ".join(notes.truncated + notes.rejected)
            rec.warnings.extend(notes.truncated + notes.rejected)
    except CrawlError as exc:
        rec.ok = False
        rec.error_kind, rec.error = exc.kind, exc.message
        if not rec.version:
            rec.version = "unknown"
        tail = last["transport"].stderr_tail().strip() if "transport" in last else ""
        rec.stderr_tail = tail[-500:] or None
    rec.duration_ms = int((time.monotonic() - started) * 1000)
    rec.error = redact(rec.error, secrets)
    rec.stderr_tail = redact(rec.stderr_tail, secrets)
    rec.warnings = [redact(w, secrets) for w in rec.warnings]
    return rec


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
    folder = out_dir / safe_name(rec.id)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{safe_name(rec.version)}.json"
    tmp = folder / f".{path.name}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps(rec.manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


async def crawl(targets: list[Target], limits: Limits, out_dir: str | Path, *,
                cache: PackageCache | None = None, progress: Progress | None = None,
                on_total: Callable[[int], None] | None = None,
                client: ClientIdentity | None = None) -> list[CaptureRecord]:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    cache = cache or PackageCache(default_cache(), limits.install_timeout_s)
    jobs, records = await expand_sweeps(targets, cache)
    total = len(jobs) + len(records)
    if on_total:
        on_total(total)
    sem = asyncio.Semaphore(limits.concurrency)
    log_path = out_dir / "crawl-log.jsonl"
    done = 0
    with open(log_path, "w", encoding="utf-8") as log:
        def finish(rec: CaptureRecord) -> None:
            nonlocal done
            if rec.ok and rec.manifest is not None:
                rec.path = write_manifest(out_dir, rec).relative_to(out_dir).as_posix()
            log.write(json.dumps(rec.log_row(), ensure_ascii=False) + "\n")
            log.flush()
            done += 1
            if progress:
                progress(rec, done, total)

        for rec in records:
            finish(rec)

        async def one(target: Target, published_at: str | None) -> CaptureRecord:
            async with sem:
                rec = await capture_target(target, limits, cache, published_at, client)
            finish(rec)
            return rec

        records += await asyncio.gather(*(one(t, p) for t, p in jobs))
    return records
