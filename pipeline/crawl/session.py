"""One MCP session: initialize, initialized, then every advertised list.

``capture(transport, limits)`` returns the manifest (the server's own JSON,
every key kept) and notes about the capture. Lists follow ``nextCursor`` to
the end, up to ``limits.max_pages`` pages, and stop at a cursor already
seen; a list that stopped early leaves its last cursor in the manifest's
top-level ``nextCursor`` so the engine reports the truncation. A list
method the server rejects is noted and its surface left out.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field

from . import jsonrpc
from .errors import CrawlError, short
from .model import OFFERED_PROTOCOL_VERSION, ClientIdentity, Limits

# (capability, method, key in the result and in the manifest)
LISTS = [
    ("tools", "tools/list", "tools"),
    ("prompts", "prompts/list", "prompts"),
    ("resources", "resources/list", "resources"),
    ("resources", "resources/templates/list", "resourceTemplates"),
]


@dataclass
class Notes:
    offered_protocol: str = OFFERED_PROTOCOL_VERSION
    protocol: str | None = None
    truncated: list[str] = field(default_factory=list)   # lists that stopped early
    rejected: list[str] = field(default_factory=list)    # list methods the server refused
    supported_versions: list[str] | None = None          # from an "unsupported version" error


class Session:
    def __init__(self, transport, limits: Limits, client: ClientIdentity | None = None):
        self.transport, self.limits = transport, limits
        self.client = client or ClientIdentity()
        self._next_id = 0

    async def call(self, method: str, params: dict | None, timeout: float) -> dict:
        self._next_id += 1
        msg = jsonrpc.request(self._next_id, method, params)
        try:
            async with asyncio.timeout(timeout):
                response = await self.transport.request(msg)
        except TimeoutError:
            raise CrawlError("timeout", f"{method}: no answer within {timeout:g}s",
                             transient=self.transport.remote) from None
        return jsonrpc.result_of(method, response)

    async def initialize(self, notes: Notes) -> dict:
        params = {
            "protocolVersion": notes.offered_protocol,
            "capabilities": {},
            "clientInfo": self.client.client_info(),
        }
        try:
            result = await self.call("initialize", params, self.limits.start_timeout_s)
        except jsonrpc.RpcError as exc:
            # "Unsupported protocol version" with data.supported: try once with the newest of those
            data = exc.error.get("data") if isinstance(exc.error, dict) else None
            supported = data.get("supported") if isinstance(data, dict) else None
            if not (isinstance(supported, list) and supported and all(isinstance(v, str) for v in supported)):
                raise CrawlError("protocol_error", f"the server refused initialize: {exc}") from None
            notes.supported_versions = supported
            notes.offered_protocol = max(supported)
            params["protocolVersion"] = notes.offered_protocol
            try:
                result = await self.call("initialize", params, self.limits.start_timeout_s)
            except jsonrpc.RpcError as again:
                raise CrawlError("protocol_error", f"the server refused initialize: {again}") from None
        version = result.get("protocolVersion")
        notes.protocol = version if isinstance(version, str) else None
        if hasattr(self.transport, "protocol_version") and notes.protocol:
            self.transport.protocol_version = notes.protocol
        return result

    async def list_all(self, method: str, key: str, notes: Notes) -> tuple[list, object]:
        items: list = []
        seen: set[str] = set()
        cursor = None
        for page in range(1, self.limits.max_pages + 1):
            params = None if cursor is None else {"cursor": cursor}
            result = await self.call(method, params, self.limits.request_timeout_s)
            batch = result.get(key)
            if not isinstance(batch, list):
                raise CrawlError("protocol_error", f"{method}: the result holds no {key!r} list")
            items.extend(batch)
            cursor = result.get("nextCursor")
            if cursor is None or cursor == "":
                return items, None
            token = json.dumps(cursor, sort_keys=True)
            if token in seen:
                notes.truncated.append(f"{method}: cursor {short(token, 40)} came back after {page} pages; stopped")
                return items, cursor
            seen.add(token)
        notes.truncated.append(f"{method}: page cap of {self.limits.max_pages} reached; stopped")
        return items, cursor


async def capture(transport, limits: Limits, client: ClientIdentity | None = None) -> tuple[dict, Notes]:
    """Run the whole session on a started-or-not transport; the caller closes it.
    ``client`` sets the clientInfo and the protocol version offered first."""
    client = client or ClientIdentity()
    notes = Notes(offered_protocol=client.protocol_version)
    session = Session(transport, limits, client)
    try:
        async with asyncio.timeout(limits.start_timeout_s):
            await transport.start()
    except TimeoutError:
        raise CrawlError("timeout", f"could not connect within {limits.start_timeout_s:g}s",
                         transient=transport.remote) from None
    init = await session.initialize(notes)
    manifest = dict(init)
    if notes.supported_versions and "supportedVersions" not in manifest:
        manifest["supportedVersions"] = notes.supported_versions
    await transport.notify(jsonrpc.notification("notifications/initialized"))
    capabilities = init.get("capabilities")
    capabilities = capabilities if isinstance(capabilities, dict) else {}
    next_cursor = None
    for capability, method, key in LISTS:
        if capability not in capabilities:
            continue
        try:
            items, cursor = await session.list_all(method, key, notes)
        except jsonrpc.RpcError as exc:
            notes.rejected.append(str(exc))
            continue
        manifest[key] = items
        if cursor is not None and next_cursor is None:
            next_cursor = cursor
    manifest["nextCursor"] = next_cursor
    return manifest, notes
