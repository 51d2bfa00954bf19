"""The crawler: capture MCP servers' manifests, faithfully and in bounded time.

Modules: ``servers`` (servers.yaml / registry server.json -> targets),
``jsonrpc`` (the raw JSON-RPC layer), ``stdio`` / ``http`` / ``sse``
(transports), ``session`` (server/discover or initialize + paginated
lists), ``packages`` (version sweeps and the install cache), ``lookups``
(registry look-ups of published versions), ``pypi`` (PyPI releases into
venvs, uv or pip), ``toolchain`` (npm, uv, pip and the interpreters of the
machine), ``redact`` (secrets out of everything written), ``runner``
(concurrency, retries, isolation, files); ``mcpdelta crawl`` is
``mcpdelta.commands.crawl``.
"""

from .errors import CrawlError
from .model import OFFERED_PROTOCOL_VERSION, CaptureRecord, ClientIdentity, Limits, PackageSpec, Target

__all__ = ["CrawlError", "CaptureRecord", "ClientIdentity", "Limits", "PackageSpec", "Target", "OFFERED_PROTOCOL_VERSION",
           "crawl", "load_servers"]


def __getattr__(name):  # keep ``import mcpdelta.crawl`` light
    if name == "crawl":
        from .runner import crawl
        return crawl
    if name == "load_servers":
        from .servers import load
        return load
    raise AttributeError(name)
