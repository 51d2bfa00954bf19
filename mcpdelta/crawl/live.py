"""One live capture for commands that compare a running server to a
baseline (``verify-lock --servers FILE --server ID``)."""

import asyncio
import sys
import tempfile

from mcpdelta.errors import InputError
from mcpdelta.safe import visible


def capture_live(servers_file: str, server_id: str, offline: bool = False, probes=None,
                 allow_destructive_probes: bool = False) -> dict:
    """The manifest of one server of a servers file, captured now (with
    ``probes``, a list of ``probes.Probe``, in place of the file's own). A
    server that cannot be captured is an ``InputError`` naming it and the reason.

    This is the capture of the CI gates (``ci``, ``verify-lock --servers``, a
    ``live:`` side), whose servers file and lockfile a pull request can
    change: a probe calls only a tool annotated read-only and not
    destructive, unless ``allow_destructive_probes``."""
    from pathlib import Path

    from mcpdelta.crawl.packages import PackageCache, default_cache
    from mcpdelta.crawl.probes import ProbePolicy
    from mcpdelta.crawl.runner import crawl
    from mcpdelta.crawl.servers import load

    targets, limits = load(servers_file)
    chosen = [t for t in targets if t.id == server_id]
    if not chosen:
        raise InputError(servers_file, f"no server with id {server_id!r}")
    if len(chosen) > 1:  # a sweep: the lockfile pins one version, the newest
        chosen = chosen[-1:]
    if probes is not None:
        chosen[0].probes = probes
    cache = PackageCache(Path(default_cache()), limits.install_timeout_s, offline=offline)
    with tempfile.TemporaryDirectory(prefix="mcpdelta-live-") as out:
        records = asyncio.run(crawl(chosen, limits, out, cache=cache,
                                    probe_policy=ProbePolicy(read_only=True,
                                                             allow_destructive=allow_destructive_probes)))
    record = records[-1]
    if not record.ok or record.manifest is None:
        raise InputError(f"server {server_id}", f"capture failed: {record.error_kind}: {record.error}")
    for warning in record.warnings:  # a refused probe, among others: said, not silent
        if "refused:" in warning:
            print(f"mcpdelta: note: server {visible(server_id)}: {visible(warning)}", file=sys.stderr)
    placed = (record.recipe or {}).get("placeholders")
    if placed:  # what was compared is the server started with fake values: said, not silent
        print(f"mcpdelta: note: server {visible(server_id)}: it exited asking for {visible(', '.join(placed))}; "
              f"captured with placeholder values for them (set them in the servers file to capture it as "
              f"configured)", file=sys.stderr)
    return record.manifest
