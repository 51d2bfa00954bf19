"""``mcpdelta crawl --servers FILE --out DIR``: capture manifests from MCP servers.

Writes ``DIR/<id>/<version>.json`` per successful capture and
``DIR/crawl-log.jsonl`` (one line per attempt, failures included). Exit 0
when the crawl ran, whatever the servers did; 2 for bad input.

``--client-name``, ``--client-version`` and ``--protocol-version`` change
the identity the crawler presents in ``initialize`` (``clientInfo`` and the
protocol revision offered first), for a second capture that tells flaky or
client-dependent output from a release change; each row of the log records
the ``client`` it used and the ``offered_protocol``.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from pipeline.errors import InputError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--servers", required=True, metavar="FILE",
                        help="servers.yaml, or an MCP registry server.json")
    parser.add_argument("--out", required=True, metavar="DIR", help="folder for <id>/<version>.json and crawl-log.jsonl")
    parser.add_argument("--concurrency", type=int, metavar="N", help="servers crawled at once (overrides limits)")
    parser.add_argument("--timeout", type=float, metavar="SECONDS",
                        help="start and per-request timeout (overrides limits.timeout_s)")
    parser.add_argument("--cache", metavar="DIR", help="package cache for version sweeps "
                        "(default: $MCPDELTA_CACHE or ~/.cache/mcpdelta/packages)")
    parser.add_argument("--offline", action="store_true",
                        help="no registry look-ups or installs: sweeps use the cache only")
    parser.add_argument("--only", action="append", metavar="ID", help="crawl only this server id (repeatable)")
    parser.add_argument("--client-name", metavar="NAME",
                        help="clientInfo.name sent in initialize (default: mcpdelta-crawler); with "
                             "--client-version and --protocol-version, a second identity for a re-capture")
    parser.add_argument("--client-version", metavar="VERSION",
                        help="clientInfo.version sent in initialize (default: mcpdelta's version)")
    parser.add_argument("--protocol-version", metavar="REVISION",
                        help="the protocol revision offered first, e.g. 2025-06-18 (default: the newest known)")


def run(args: argparse.Namespace) -> int:
    from .model import ClientIdentity
    from .packages import PackageCache, default_cache
    from .runner import crawl
    from .servers import load

    targets, limits = load(args.servers)
    if args.only:
        unknown = set(args.only) - {t.id for t in targets}
        if unknown:
            raise InputError(args.servers, f"no server with id {sorted(unknown)[0]!r}")
        targets = [t for t in targets if t.id in set(args.only)]
    if args.concurrency is not None:
        if args.concurrency < 1:
            raise InputError("--concurrency", "must be at least 1")
        limits.concurrency = args.concurrency
    if args.timeout is not None:
        if args.timeout <= 0:
            raise InputError("--timeout", "must be positive")
        limits.start_timeout_s = limits.request_timeout_s = args.timeout
    client = ClientIdentity()
    for flag, value, attr in (("--client-name", args.client_name, "name"),
                              ("--client-version", args.client_version, "version"),
                              ("--protocol-version", args.protocol_version, "protocol_version")):
        if value is not None:
            if not value.strip():
                raise InputError(flag, "must not be empty")
            setattr(client, attr, value)
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise InputError(args.out, "exists and is not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(args.out, f"cannot create: {exc.strerror or exc}") from None
    cache = PackageCache(Path(args.cache) if args.cache else default_cache(), limits.install_timeout_s,
                         offline=args.offline)

    progress = _TtyProgress() if sys.stderr.isatty() else None
    try:
        records = asyncio.run(crawl(targets, limits, out, cache=cache,
                                    progress=progress.update if progress else None,
                                    on_total=progress.start if progress else None, client=client))
    finally:
        if progress:
            progress.stop()
    ok = sum(r.ok for r in records)
    print(f"crawled {len(records)} capture(s): {ok} ok, {len(records) - ok} failed; "
          f"manifests and crawl-log.jsonl in {out}")
    for r in records:
        if not r.ok:
            print(f"  {r.id} {r.version}: {r.error_kind}: {r.error}", file=sys.stderr)
    return 0


class _TtyProgress:
    """A rich progress bar on stderr (only used when stderr is a terminal)."""

    def __init__(self):
        self._bar = None
        self._task = None

    def start(self, total: int) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self._bar = Progress(TextColumn("crawl"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                             TextColumn("{task.description}"), console=Console(stderr=True), transient=True)
        self._bar.start()
        self._task = self._bar.add_task("", total=total)

    def update(self, rec, done: int, total: int) -> None:
        if self._bar is not None:
            state = "ok" if rec.ok else rec.error_kind
            self._bar.update(self._task, completed=done, description=f"{rec.id} {rec.version}: {state}")

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.stop()
