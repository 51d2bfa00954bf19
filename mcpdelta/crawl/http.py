"""Streamable HTTP transport (protocol 2025-03-26 and later), over httpx.

Every message is a POST of one JSON-RPC object; the answer comes back as
``application/json`` or as a ``text/event-stream`` carrying it. The
``Mcp-Session-Id`` the server issues is sent back on every later request,
with ``MCP-Protocol-Version`` once negotiated (and ``Mcp-Method`` under the
stateless 2026-07-28 revision); ``close`` ends the session with DELETE.
Bytes are counted as they stream in, against both caps. A header whose value
came from ``${VAR}`` is never sent to another origin than the configured
URL's, redirects included (httpx itself drops only ``Authorization``).
"""

from __future__ import annotations

import httpx

from mcpdelta.retry_after import retry_after

from . import jsonrpc
from .errors import CrawlError, short
from .model import MODERN_PROTOCOL_VERSIONS, Limits

ACCEPT = "application/json, text/event-stream"


def status_error(resp: httpx.Response, what: str) -> CrawlError:
    code = resp.status_code
    if code in (401, 403):
        scheme = resp.headers.get("www-authenticate", "").split(" ")[0]
        hint = f" ({scheme})" if scheme else ""
        return CrawlError("auth_required", f"{what}: HTTP {code}{hint}: the server wants credentials")
    transient = code == 429 or code >= 500
    hint = " (a 2024-11-05 server? try transport: sse)" if code in (404, 405) and what.startswith("POST") else ""
    return CrawlError("http_status", f"{what}: HTTP {code}{hint}", transient=transient,
                      retry_after=retry_after(resp.headers.get("retry-after")) if transient else None)


def network_error(exc: Exception, what: str) -> CrawlError:
    if isinstance(exc, httpx.TimeoutException):
        return CrawlError("timeout", f"{what}: {type(exc).__name__}", transient=True)
    if isinstance(exc, httpx.ConnectError):
        return CrawlError("connection_error", f"{what}: connection failed: {short(str(exc), 100)}", transient=True)
    if isinstance(exc, (httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError, httpx.CloseError)):
        return CrawlError("connection_error", f"{what}: connection broken: {short(str(exc) or type(exc).__name__, 100)}",
                          transient=True)
    return CrawlError("connection_error", f"{what}: {type(exc).__name__}: {short(str(exc), 100)}", transient=True)


def _origin(url) -> tuple:
    url = httpx.URL(str(url))
    return url.scheme, url.host, url.port or {"http": 80, "https": 443}.get(url.scheme)


def make_client(headers: dict[str, str], limits: Limits, url: str | None = None,
                secret_headers=frozenset()) -> httpx.AsyncClient:
    timeout = httpx.Timeout(limits.request_timeout_s, connect=limits.start_timeout_s)
    hooks = {}
    if secret_headers and url:
        home = _origin(url)

        async def keep_secrets_home(request: httpx.Request) -> None:  # runs for every redirect too
            if _origin(request.url) != home:
                for name in secret_headers:
                    request.headers.pop(name, None)

        hooks["request"] = [keep_secrets_home]
    return httpx.AsyncClient(headers=headers, timeout=timeout, follow_redirects=True, trust_env=False,
                             event_hooks=hooks)


class StreamableHttpTransport:
    remote = True

    def __init__(self, url: str, headers: dict[str, str], limits: Limits, secret_headers=frozenset()):
        self.url, self.limits = url, limits
        self.client = make_client(headers, limits, url, secret_headers)
        self.session_id: str | None = None
        self.protocol_version: str | None = None
        self.bytes_read = 0

    async def start(self) -> None:
        return None

    def stderr_tail(self) -> str:
        return ""

    def _headers(self, method: str | None = None) -> dict[str, str]:
        h = {"Accept": ACCEPT, "Content-Type": "application/json"}
        if self.session_id:
            h["Mcp-Session-Id"] = self.session_id
        if self.protocol_version:
            h["MCP-Protocol-Version"] = self.protocol_version
            if method and self.protocol_version in MODERN_PROTOCOL_VERSIONS:
                h["Mcp-Method"] = method
        return h

    def _count(self, n: int) -> None:
        self.bytes_read += n
        if self.bytes_read > self.limits.max_server_bytes:
            raise CrawlError("too_large", f"server output is over {self.limits.max_server_bytes} bytes")

    async def _post(self, msg: dict) -> dict | None:
        method = msg.get("method", "?")
        what = f"POST {method}"
        try:
            async with self.client.stream("POST", self.url, content=jsonrpc.encode(msg),
                                          headers=self._headers(msg.get("method"))) as resp:
                if resp.status_code >= 400:
                    raise status_error(resp, what)
                sid = resp.headers.get("mcp-session-id")
                if sid:
                    self.session_id = sid
                if "id" not in msg or "method" not in msg:  # a notification or our answer
                    return None
                ctype = resp.headers.get("content-type", "").split(";")[0].strip().lower()
                if resp.status_code == 202 or (ctype == "" and resp.status_code == 204):
                    raise CrawlError("protocol_error", f"{what}: HTTP {resp.status_code} without a response body")
                if ctype == "application/json":
                    body = bytearray()
                    async for chunk in resp.aiter_bytes():
                        body += chunk
                        self._count(len(chunk))
                        if len(body) > self.limits.max_message_bytes:
                            raise CrawlError("too_large", f"a message is over {self.limits.max_message_bytes} bytes")
                    for item in jsonrpc.decode(bytes(body), f"{method} response"):
                        if jsonrpc.is_response(item) and item.get("id") == msg["id"]:
                            return item
                    raise CrawlError("protocol_error", f"{what}: response body holds no answer to id {msg['id']}")
                if ctype == "text/event-stream":
                    parser = jsonrpc.SseParser(self.limits.max_message_bytes)
                    async for chunk in resp.aiter_bytes():
                        self._count(len(chunk))
                        for event, data in parser.feed(chunk):
                            if event != "message" or not data.strip():
                                continue
                            for item in jsonrpc.decode(data, f"{method} event"):
                                if jsonrpc.is_response(item) and item.get("id") == msg["id"]:
                                    return item
                                if jsonrpc.is_server_request(item):
                                    await self._post(jsonrpc.answer_server_request(item))
                    raise CrawlError("server_exited", f"{what}: event stream ended before the answer")
                raise CrawlError("protocol_error", f"{what}: unexpected content type {ctype or 'none'!r}")
        except httpx.HTTPError as exc:
            raise network_error(exc, what) from None

    async def notify(self, msg: dict) -> None:
        await self._post(msg)

    async def request(self, msg: dict) -> dict:
        result = await self._post(msg)
        assert result is not None
        return result

    async def close(self) -> None:
        try:
            if self.session_id:
                try:
                    await self.client.delete(self.url, headers=self._headers(), timeout=2.0)
                except httpx.HTTPError:
                    pass
        finally:
            await self.client.aclose()
