"""The legacy HTTP+SSE transport of protocol 2024-11-05.

The client opens a GET event stream; the server's first ``endpoint`` event
names the URL to POST messages to; answers arrive as ``message`` events on
the stream. A reader task dispatches them to the waiting requests by id.
"""

from __future__ import annotations

import asyncio
from urllib.parse import urljoin

import httpx

from . import jsonrpc
from .errors import CrawlError
from .http import make_client, network_error, status_error
from .model import Limits


class LegacySseTransport:
    remote = True

    def __init__(self, url: str, headers: dict[str, str], limits: Limits, secret_headers=frozenset()):
        self.url, self.limits = url, limits
        self.client = make_client(headers, limits, url, secret_headers)
        self.bytes_read = 0
        self.protocol_version: str | None = None
        self._endpoint: asyncio.Future | None = None
        self._pending: dict[object, asyncio.Future] = {}
        self._reader: asyncio.Task | None = None
        self._failure: CrawlError | None = None

    def stderr_tail(self) -> str:
        return ""

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._endpoint = loop.create_future()
        self._reader = asyncio.create_task(self._read_stream())
        await self._endpoint

    def _fail(self, error: CrawlError) -> None:
        self._failure = self._failure or error
        futures = [self._endpoint, *self._pending.values()]
        for fut in futures:
            if fut is not None and not fut.done():
                fut.set_exception(error)

    async def _read_stream(self) -> None:
        try:
            async with self.client.stream("GET", self.url, headers={"Accept": "text/event-stream"},
                                          timeout=httpx.Timeout(None, connect=self.limits.start_timeout_s)) as resp:
                if resp.status_code >= 400:
                    raise status_error(resp, "GET event stream")
                ctype = resp.headers.get("content-type", "").split(";")[0].strip().lower()
                if ctype != "text/event-stream":
                    raise CrawlError("protocol_error", f"GET event stream: content type {ctype or 'none'!r}")
                parser = jsonrpc.SseParser(self.limits.max_message_bytes)
                async for chunk in resp.aiter_bytes():
                    self.bytes_read += len(chunk)
                    if self.bytes_read > self.limits.max_server_bytes:
                        raise CrawlError("too_large", f"server output is over {self.limits.max_server_bytes} bytes")
                    for event, data in parser.feed(chunk):
                        await self._on_event(event, data)
            raise CrawlError("server_exited", "the event stream ended")
        except CrawlError as exc:
            self._fail(exc)
        except httpx.HTTPError as exc:
            self._fail(network_error(exc, "GET event stream"))
        except asyncio.CancelledError:
            self._fail(CrawlError("server_exited", "the event stream was closed"))
            raise

    async def _on_event(self, event: str, data: str) -> None:
        if event == "endpoint":
            if self._endpoint and not self._endpoint.done():
                self._endpoint.set_result(urljoin(self.url, data.strip()))
            return
        if event != "message" or not data.strip():
            return
        for item in jsonrpc.decode(data, "event"):
            if jsonrpc.is_response(item):
                fut = self._pending.pop(item.get("id"), None)
                if fut and not fut.done():
                    fut.set_result(item)
            elif jsonrpc.is_server_request(item):
                asyncio.create_task(self._send(jsonrpc.answer_server_request(item)))

    async def _send(self, msg: dict) -> None:
        if self._failure:
            raise self._failure
        assert self._endpoint is not None
        endpoint = self._endpoint.result()
        what = f"POST {msg.get('method', 'answer')}"
        try:
            resp = await self.client.post(endpoint, content=jsonrpc.encode(msg),
                                          headers={"Content-Type": "application/json"})
        except httpx.HTTPError as exc:
            raise network_error(exc, what) from None
        if resp.status_code >= 400:
            raise status_error(resp, what)

    async def notify(self, msg: dict) -> None:
        await self._send(msg)

    async def request(self, msg: dict) -> dict:
        fut = asyncio.get_running_loop().create_future()
        self._pending[msg["id"]] = fut
        try:
            await self._send(msg)
            return await fut
        finally:
            self._pending.pop(msg["id"], None)

    async def close(self) -> None:
        if self._reader:
            self._reader.cancel()
            try:
                await self._reader
            except (asyncio.CancelledError, Exception):
                pass
        await self.client.aclose()
