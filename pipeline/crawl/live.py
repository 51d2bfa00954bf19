"""One live capture for commands that compare a running server to a
baseline (``verify-lock --servers FILE --server ID``)."""

import asyncio
import tempfile

from pipeline.errors import InputError


def capture_live(servers_file: str, server_id: str, offline: bool = False, probes=None) -> dict:
    """The manifest of one server of a servers file, captured now (with
    ``probes``, a list of ``probes.Probe``, in place of the file's own). A
    server that cannot be captured is an ``InputError`` naming it and the reason."""
    from pathlib import Path

    from pipeline.crawl.packages import PackageCache, default_cache
    from pipeline.crawl.runner import crawl
    from pipeline.crawl.servers import load

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
        records = asyncio.run(crawl(chosen, limits, out, cache=cache))
    record = records[-1]
    if not record.ok or record.manifest is None:
        raise InputError(f"server {server_id}", f"capture failed: {record.error_kind}: {record.error}")
    return record.manifest
