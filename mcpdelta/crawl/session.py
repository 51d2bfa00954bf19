"""One MCP session: the handshake, then every advertised list.

The handshake is the 2026-07-28 revision's stateless ``server/discover``
(the protocol version, clientInfo and client capabilities ride in every
request's ``_meta``) tried first, with the ``initialize`` handshake as the
fallback for older servers, following the official SDK client's rule: any
JSON-RPC error, an unusable result or a result naming no revision we speak
falls back; only a modern-only server sharing no revision with us fails.
``Notes.handshake`` records which one answered.

``capture(transport, limits)`` returns the manifest (the server's own JSON,
every key kept; ``instructions`` is written as ``null`` when the server sent
none) and notes about the capture. Lists follow ``nextCursor`` to the end,
up to ``limits.max_pages`` pages, and stop at a cursor already seen; a list
that stopped early leaves its last cursor in the manifest's top-level
``nextCursor`` so the engine reports the truncation.

A failed ``tools/list`` fails the capture (a manifest without its tools is
not a capture). For the optional lists, ``-32601`` (method not found) is a
note and the surface is left out; any other error leaves it out as a
``partial`` capture.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field

from . import jsonrpc
from .errors import CrawlError, short
from .model import MODERN_PROTOCOL_VERSIONS, OFFERED_PROTOCOL_VERSION, ClientIdentity, Limits
from .probes import AUTO, ProbePolicy, auto_probes, run_probes

# (capability, method, key in the result and in the manifest)
LISTS = [
    ("tools", "tools/list", "tools"),
    ("prompts", "prompts/list", "prompts"),
    ("resources", "resources/list", "resources"),
    ("resources", "resources/templates/list", "resourceTemplates"),
]
METHOD_NOT_FOUND = -32601
UNSUPPORTED_VERSION = -32022
META_PROTOCOL = "io.modelcontextprotocol/protocolVersion"
META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")


@dataclass
class Notes:
    offered_protocol: str = OFFERED_PROTOCOL_VERSION
    protocol: str | None = None
    handshake: str | None = None                         # "discover" | "initialize"
    discover_note: str | None = None                     # why discover did not answer
    truncated: list[str] = field(default_factory=list)   # lists that stopped early
    rejected: list[str] = field(default_factory=list)    # list methods that failed
    unsupported: list[str] = field(default_factory=list) # optional lists answered -32601
    supported_versions: list[str] | None = None          # from an "unsupported version" error
    probe_notes: list[str] = field(default_factory=list) # probes that failed or were skipped


class DiscoverBroke(CrawlError):
    """The server died or went silent on ``server/discover``: retry with ``initialize`` on a fresh start."""


class ModernAfterAll(Exception):
    """``initialize`` answered -32022 naming a stateless revision: a late discover answer
    locked the connection modern; ask ``server/discover`` once more (as the SDK client does)."""


class Session:
    def __init__(self, transport, limits: Limits, client: ClientIdentity | None = None):
        self.transport, self.limits = transport, limits
        self.client = client or ClientIdentity()
        self._next_id = 0
        self.modern: str | None = None   # the stateless revision in use, once discover answered

    async def call(self, method: str, params: dict | None, timeout: float) -> dict:
        self._next_id += 1
        if self.modern:
            params = dict(params or {})
            params["_meta"] = {**(params.get("_meta") or {}), **self._meta(self.modern)}
        msg = jsonrpc.request(self._next_id, method, params)
        try:
            async with asyncio.timeout(timeout):
                response = await self.transport.request(msg)
        except TimeoutError:
            raise CrawlError("timeout", f"{method}: no answer within {timeout:g}s",
                             transient=self.transport.remote) from None
        return jsonrpc.result_of(method, response)

    def _meta(self, version: str) -> dict:
        return {META_PROTOCOL: version, META_CLIENT_INFO: self.client.client_info(), META_CLIENT_CAPABILITIES: {}}

    async def discover(self, notes: Notes, timeout: float | None = None) -> dict | None:
        """The ``server/discover`` result, or None when the server is of the older kind."""
        version = self.client.modern_version
        for attempt in range(2):
            self._next_id += 1
            msg = jsonrpc.request(self._next_id, "server/discover", {"_meta": self._meta(version)})
            if hasattr(self.transport, "protocol_version"):
                self.transport.protocol_version = version
            timeout = timeout or min(self.limits.start_timeout_s, self.limits.discover_timeout_s)
            try:
                async with asyncio.timeout(timeout):
                    response = await self.transport.request(msg)
                result = jsonrpc.result_of("server/discover", response)
            except TimeoutError:
                notes.discover_note = f"server/discover: no answer within {timeout:g}s"
                return None
            except jsonrpc.RpcError as exc:
                data = exc.error.get("data") if isinstance(exc.error, dict) else None
                supported = data.get("supported") if isinstance(data, dict) else None
                supported = supported if isinstance(supported, list) else None
                if exc.code == UNSUPPORTED_VERSION and supported is not None:
                    mutual = [v for v in MODERN_PROTOCOL_VERSIONS if v in supported]
                    if mutual and attempt == 0 and mutual[-1] != version:
                        version = mutual[-1]
                        continue
                    if not any(v in HANDSHAKE_VERSIONS for v in supported):
                        raise CrawlError("protocol_error", f"the server speaks only {', '.join(map(str, supported))}; "
                                                           f"the crawler offers {version}") from None
                notes.discover_note = str(exc)
                return None
            except CrawlError as exc:
                if exc.kind in ("server_exited", "protocol_error") and not self.transport.remote:
                    raise DiscoverBroke(exc.kind, f"on server/discover: {exc.message}") from None
                if exc.kind in ("http_status",) and self.transport.remote and not exc.transient:
                    notes.discover_note = f"server/discover: {exc.message}"
                    return None
                raise
            versions = result.get("supportedVersions")
            if not (isinstance(versions, list) and isinstance(result.get("capabilities"), dict)):
                notes.discover_note = "server/discover: the result is not a discover result"
                return None
            mutual = [v for v in MODERN_PROTOCOL_VERSIONS if v in versions]
            if not mutual:
                notes.discover_note = "server/discover: the server names no stateless revision"
                return None
            self.modern = version if version in mutual else mutual[-1]
            notes.protocol = notes.offered_protocol = self.modern
            notes.handshake = "discover"
            if hasattr(self.transport, "protocol_version"):
                self.transport.protocol_version = self.modern
            return result
        return None

    async def initialize(self, notes: Notes, timeout: float | None = None) -> dict:
        timeout = self.limits.start_timeout_s if timeout is None else timeout
        if hasattr(self.transport, "protocol_version"):
            self.transport.protocol_version = None
        params = {
            "protocolVersion": notes.offered_protocol,
            "capabilities": {},
            "clientInfo": self.client.client_info(),
        }
        try:
            result = await self.call("initialize", params, timeout)
        except jsonrpc.RpcError as exc:
            # "Unsupported protocol version" with data.supported: try once with the newest of those
            data = exc.error.get("data") if isinstance(exc.error, dict) else None
            supported = data.get("supported") if isinstance(data, dict) else None
            if not (isinstance(supported, list) and supported and all(isinstance(v, str) for v in supported)):
                raise CrawlError("protocol_error", f"the server refused initialize: {exc}") from None
            if exc.code == UNSUPPORTED_VERSION and self.client.modern_version and not notes.handshake \
                    and any(v in MODERN_PROTOCOL_VERSIONS for v in supported):
                raise ModernAfterAll() from None
            notes.supported_versions = supported
            notes.offered_protocol = max(supported)
            params["protocolVersion"] = notes.offered_protocol
            try:
                result = await self.call("initialize", params, timeout)
            except jsonrpc.RpcError as again:
                raise CrawlError("protocol_error", f"the server refused initialize: {again}") from None
        version = result.get("protocolVersion")
        notes.protocol = version if isinstance(version, str) else None
        notes.handshake = "initialize"
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


def _discover_manifest(result: dict, version: str) -> dict:
    """A discover result as a manifest: every key kept, plus the revision in use and
    the serverInfo stamp of ``_meta`` where the engine reads a server's identity."""
    manifest = {"protocolVersion": version}
    manifest.update(result)
    meta = result.get("_meta")
    info = meta.get(META_SERVER_INFO) if isinstance(meta, dict) else None
    if isinstance(info, dict) and "serverInfo" not in manifest:
        manifest["serverInfo"] = info
    return manifest


async def capture(transport, limits: Limits, client: ClientIdentity | None = None,
                  discover: bool = True, probes=(), probe_policy: ProbePolicy = ProbePolicy()) -> tuple[dict, Notes]:
    """Run the whole session on a started-or-not transport; the caller closes it.
    ``client`` sets the clientInfo and the protocol versions offered;
    ``discover=False`` skips the ``server/discover`` probe; ``probes`` (a list
    of ``probes.Probe``, or ``"auto"``) are called after the lists, as
    ``probe_policy`` allows."""
    client = client or ClientIdentity()
    notes = Notes(offered_protocol=client.protocol_version)
    session = Session(transport, limits, client)
    # start_timeout_s bounds the whole start: connecting, server/discover and
    # initialize share it, so a server that never answers fails after it, not
    # after it once per handshake tried
    clock = asyncio.get_running_loop().time
    deadline = clock() + limits.start_timeout_s

    def left() -> float:
        if clock() >= deadline:
            raise CrawlError("timeout", f"initialize: no answer within {limits.start_timeout_s:g}s",
                             transient=transport.remote)
        return deadline - clock()

    try:
        async with asyncio.timeout(limits.start_timeout_s):
            await transport.start()
    except TimeoutError:
        raise CrawlError("timeout", f"could not connect within {limits.start_timeout_s:g}s",
                         transient=transport.remote) from None
    asked = discover and client.modern_version
    # discover may take half the start at most: an older server that ignores it gets the rest
    found = await session.discover(notes, min(limits.discover_timeout_s, limits.start_timeout_s / 2, left())) \
        if asked else None
    if found is None:
        try:
            manifest = dict(await session.initialize(notes, left()))
        except CrawlError as exc:
            if exc.kind == "timeout":  # the start's shared limit, not initialize's share of it
                raise CrawlError("timeout", f"no answer to {'server/discover or ' if asked else ''}initialize "
                                            f"within {limits.start_timeout_s:g}s", transient=exc.transient) from None
            # an older server can die of the unknown method after it stopped
            # answering: start it again and ask only initialize
            if asked and exc.kind == "server_exited" and not transport.remote:
                raise DiscoverBroke(exc.kind, f"after server/discover went unanswered ({notes.discover_note}), "
                                              f"on initialize: {exc.message}") from None
            raise
        except ModernAfterAll:
            late = notes.discover_note
            found = await session.discover(notes, left())  # it has started: no race now
            notes.discover_note = f"{late}; initialize was then refused with -32022, and server/discover asked again"
            if found is None:
                raise CrawlError("protocol_error", "initialize was refused for server/discover, "
                                                   "which then did not answer") from None
        else:
            if notes.supported_versions and "supportedVersions" not in manifest:
                manifest["supportedVersions"] = notes.supported_versions
            await transport.notify(jsonrpc.notification("notifications/initialized"))
    if found is not None:
        manifest = _discover_manifest(found, session.modern)
    # absent from the answer = the server sent none (an absent key would read "not captured")
    manifest.setdefault("instructions", None)
    capabilities = manifest.get("capabilities")
    capabilities = capabilities if isinstance(capabilities, dict) else {}
    next_cursor = None
    for capability, method, key in LISTS:
        if capability not in capabilities:
            continue
        try:
            items, cursor = await session.list_all(method, key, notes)
        except jsonrpc.RpcError as exc:
            if key == "tools":
                raise CrawlError("list_failed", str(exc)) from None
            if exc.code == METHOD_NOT_FOUND:
                notes.unsupported.append(str(exc))
            else:
                notes.rejected.append(str(exc))
            continue
        except CrawlError as exc:
            if key == "tools" and exc.kind == "protocol_error":
                raise CrawlError("list_failed", exc.message) from None
            raise
        manifest[key] = items
        if cursor is not None and next_cursor is None:
            next_cursor = cursor
    manifest["nextCursor"] = next_cursor
    if probes:
        if probes == AUTO:
            probes, skipped = auto_probes(manifest.get("tools") or [])
            notes.probe_notes.extend(skipped)
        manifest["probes"] = await run_probes(session, probes, manifest.get("tools"), limits.request_timeout_s,
                                              probe_policy)
        notes.probe_notes.extend(f"probe {p['name']}: {p['outcome']}: {p['error']}"
                                 for p in manifest["probes"] if "error" in p)
    return manifest, notes
