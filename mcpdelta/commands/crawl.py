"""``mcpdelta crawl --servers FILE --out DIR``: capture manifests from MCP servers.

Writes ``DIR/<id>/<version>.json`` per successful capture and
``DIR/crawl-log.jsonl`` (one line per attempt, failures included, appended
across runs). A version sweep skips the releases DIR already holds a good
capture of unless ``--recapture``.

Exit status: 0 every capture succeeded; 1 at least one failed (each failure
a log row and a line on stderr); 2 bad input; 130 / 143 the crawl was
stopped by SIGINT / SIGTERM (every server it started is ended first).

``--client-name``, ``--client-version`` and ``--protocol-version`` change
the identity the crawler presents in ``initialize`` (``clientInfo`` and the
protocol revision offered first), for a second capture that tells flaky or
client-dependent output from a release change; each row of the log records
the ``client`` it used and the ``offered_protocol``.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from pathlib import Path

from mcpdelta.commands import options
from mcpdelta.errors import InputError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--servers", required=True, metavar="FILE",
                        help="servers.yaml, or an MCP registry server.json")
    parser.add_argument("--out", required=True, metavar="DIR", help="folder for <id>/<version>.json and crawl-log.jsonl")
    parser.add_argument("--concurrency", type=int, metavar="N",
                        help="servers captured at once (overrides limits.concurrency; installs run "
                             "limits.install_concurrency at a time)")
    parser.add_argument("--timeout", type=float, metavar="SECONDS",
                        help="start and per-request timeout (overrides limits.timeout_s)")
    parser.add_argument("--cache", metavar="DIR", help="package cache for version sweeps "
                        "(default: $MCPDELTA_CACHE or ~/.cache/mcpdelta/packages)")
    parser.add_argument("--offline", action="store_true",
                        help="no registry look-ups or installs: sweeps use the cache only")
    parser.add_argument("--only", action="append", metavar="ID", help="crawl only this server id (repeatable)")
    parser.add_argument("--only-from", metavar="FILE",
                        help="crawl only the server ids FILE lists, one a line (the survey's runner names "
                             "each server so, where no process that kills by name can read it)")
    parser.add_argument("--client-name", metavar="NAME",
                        help="clientInfo.name sent in initialize (default: mcpdelta-crawler); with "
                             "--client-version and --protocol-version, a second identity for a re-capture")
    parser.add_argument("--client-version", metavar="VERSION",
                        help="clientInfo.version sent in initialize (default: mcpdelta's version)")
    parser.add_argument("--protocol-version", metavar="REVISION",
                        help="the protocol revision offered first, e.g. 2025-06-18 (initialize only) or "
                             "2026-07-28 (server/discover, then initialize; the default)")
    parser.add_argument("--recapture", action="store_true",
                        help="capture again the package releases --out already holds a good capture of")
    parser.add_argument("--release-installs", action="store_true",
                        help="remove each package install once it is captured (the last pass that needs it)")
    parser.add_argument("--npm-reuse", action="store_true",
                        help="install each npm release over a copy of the install of the latest one published "
                             "before it (faster; it may change a capture: see --reuse-check-every)")
    parser.add_argument("--reuse-check-every", type=int, metavar="N", default=10,
                        help="with --npm-reuse: capture the first release installed over an earlier one, and 1 "
                             "in N after it, from a plain install too; a difference turns the reuse off "
                             "(0: the first only)")
    options.add_allow_destructive_probes(parser)
    parser.add_argument("--download-cache-gb", type=float, metavar="GB", default=20.0,
                        help="bound of npm's and pip's download caches under --cache (default 20)")


def run(args: argparse.Namespace) -> int:
    from mcpdelta.crawl.model import ClientIdentity
    from mcpdelta.crawl.packages import PackageCache, default_cache
    from mcpdelta.crawl.probes import ProbePolicy
    from mcpdelta.crawl.runner import crawl
    from mcpdelta.crawl.servers import load, read_ids
    from mcpdelta.crawl.stdio import kill_all

    targets, limits = load(args.servers)
    if args.only_from:
        args.only = [*(args.only or ()), *read_ids(args.only_from)]
    if args.only:
        unknown = set(args.only) - {t.id for t in targets}
        if unknown:
            raise InputError(args.servers, f"no server with id {sorted(unknown)[0]!r}")
        targets = [t for t in targets if t.id in set(args.only)]
    _demo_needs_survey(targets)
    if args.concurrency is not None:
        if args.concurrency < 1:
            raise InputError("--concurrency", "must be at least 1")
        limits.concurrency = args.concurrency
    if args.timeout is not None:
        if args.timeout <= 0:
            raise InputError("--timeout", "must be positive")
        limits.start_timeout_s = limits.request_timeout_s = args.timeout
    from mcpdelta.crawl.model import MODERN_PROTOCOL_VERSIONS

    client = ClientIdentity()
    for flag, value, attr in (("--client-name", args.client_name, "name"),
                              ("--client-version", args.client_version, "version"),
                              ("--protocol-version", args.protocol_version, "protocol_version")):
        if value is not None:
            if not value.strip():
                raise InputError(flag, "must not be empty")
            setattr(client, attr, value)
    if args.protocol_version is not None:  # a modern revision: discover first; an older one: initialize only
        if args.protocol_version in MODERN_PROTOCOL_VERSIONS:
            client.modern_version, client.protocol_version = args.protocol_version, ClientIdentity().protocol_version
        else:
            client.modern_version = None
    if not (args.download_cache_gb > 0 and args.download_cache_gb < float("inf")):
        raise InputError("--download-cache-gb", "must be a positive number")
    if args.reuse_check_every < 0:
        raise InputError("--reuse-check-every", "must be 0 or more")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise InputError(args.out, "exists and is not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(args.out, f"cannot create: {exc.strerror or exc}") from None
    cache = PackageCache(Path(args.cache) if args.cache else default_cache(), limits.install_timeout_s,
                         offline=args.offline, download_cache_bytes=int(args.download_cache_gb * 1024 ** 3),
                         npm_reuse=args.npm_reuse, reuse_check_every=args.reuse_check_every)

    progress = _TtyProgress() if sys.stderr.isatty() else None
    skipped: list = []
    stopped: list[int] = []

    async def main():
        task = asyncio.current_task()
        loop = asyncio.get_running_loop()

        def stop(signum: int) -> None:
            if not stopped:
                stopped.append(signum)
                task.cancel()

        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stop, signum)
        try:
            return await crawl(targets, limits, out, cache=cache, progress=progress.update if progress else None,
                               on_total=progress.start if progress else None, client=client,
                               recapture=args.recapture, release_installs=args.release_installs, skipped=skipped,
                               probe_policy=ProbePolicy(allow_destructive=args.allow_destructive_probes))
        finally:
            for signum in (signal.SIGTERM, signal.SIGINT):
                loop.remove_signal_handler(signum)

    try:
        records = asyncio.run(main())
    except asyncio.CancelledError:
        records = None
    finally:
        kill_all()  # whatever a stopped crawl left running
        if progress:
            progress.stop()
    if stopped:
        name = signal.Signals(stopped[0]).name
        print(f"crawl stopped by {name}; every server it started has been ended; "
              f"the captures finished so far are in {out}", file=sys.stderr)
        return 128 + stopped[0]
    ok = sum(r.ok for r in records)
    note = f"; {len(skipped)} already captured (skipped; --recapture to capture again)" if skipped else ""
    print(f"crawled {len(records)} capture(s): {ok} ok, {len(records) - ok} failed{note}; "
          f"manifests and crawl-log.jsonl in {out}")
    from mcpdelta.safe import visible  # ids, versions and errors come from the servers

    for r in records:
        if not r.ok:
            print(visible(f"  {r.id} {r.version}: {r.error_kind}: {r.error}"), file=sys.stderr)
    return 1 if ok < len(records) else 0


def _demo_needs_survey(targets) -> None:
    """The embedded demo servers are written with the mcp SDK and run on this
    interpreter: without the survey extra each would die on an import, so the
    crawl is refused in one line naming the extra."""
    import importlib.util
    import os

    from mcpdelta.resources import DATA_DIR

    demo = os.path.realpath(DATA_DIR / "demo") + os.sep
    runs_demo = any(os.path.realpath(os.path.join(t.cwd or ".", a)).startswith(demo)
                    for t in targets if t.transport == "stdio" for a in t.args)
    missing = [m for m in ("mcp", "pydantic") if importlib.util.find_spec(m) is None] if runs_demo else []
    if missing:
        raise InputError("the demo servers", f"they need the survey extra ({missing[0]} is not installed): "
                                             "pip install 'mcpdelta[survey]'")


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
            from mcpdelta.progress import plain

            state = "ok" if rec.ok else rec.error_kind
            self._bar.update(self._task, completed=done, description=plain(f"{rec.id} {rec.version}: {state}"))

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.stop()
