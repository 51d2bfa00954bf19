"""The raw JSON-RPC 2.0 layer: build requests, decode messages, keep JSON as sent.

Messages are decoded with the standard ``json`` module into plain dicts and
lists, so every key the server sent (unknown ones, ``_meta``, odd types)
reaches the manifest untouched. Nothing here validates MCP shapes beyond
what JSON-RPC itself requires.
"""

from __future__ import annotations

import json
from typing import Any

from mcpdelta.inputs import JSON_MAX_DEPTH, InputError, TooDeep, load_json

from .errors import CrawlError, short

# a message's nesting: a manifest's limit, plus the envelope around a result
MAX_DEPTH = JSON_MAX_DEPTH + 1


def request(id_: int, method: str, params: dict | None = None) -> dict:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        msg["params"] = params
    return msg


def notification(method: str, params: dict | None = None) -> dict:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        msg["params"] = params
    return msg


def encode(msg: dict) -> bytes:
    return json.dumps(msg, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def decode(data: bytes | str, where: str = "message") -> list[dict]:
    """One JSON-RPC message (or a batch) -> list of message objects, through
    the bounded decode: a message nested deeper than ``MAX_DEPTH`` is a
    ``too_large`` failure of the server (never a ``RecursionError``); one
    that is not JSON is a ``protocol_error`` (stdio skips those as noise)."""
    try:
        value = load_json(data, where, MAX_DEPTH)
    except TooDeep:
        raise CrawlError("too_large", f"{where} nests deeper than the limit of {MAX_DEPTH} levels") from None
    except InputError:
        text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
        raise CrawlError("protocol_error", f"{where} is not JSON: {short(text, 80)!r}") from None
    items = value if isinstance(value, list) else [value]
    for item in items:
        if not isinstance(item, dict):
            raise CrawlError("protocol_error", f"{where} is not a JSON-RPC object: {short(json.dumps(item), 80)}")
    return items


def is_response(msg: dict) -> bool:
    return "id" in msg and "method" not in msg and ("result" in msg or "error" in msg)


def is_server_request(msg: dict) -> bool:
    return "method" in msg and "id" in msg


def answer_server_request(msg: dict) -> dict:
    """The crawler's reply to a request the server sent (ping, roots, sampling)."""
    if msg.get("method") == "ping":
        return {"jsonrpc": "2.0", "id": msg["id"], "result": {}}
    return {"jsonrpc": "2.0", "id": msg["id"],
            "error": {"code": -32601, "message": "mcpdelta crawler: method not supported"}}


class RpcError(Exception):
    """The server answered a request with a JSON-RPC error object."""

    def __init__(self, method: str, error: Any):
        self.method = method
        self.error = error
        code = error.get("code") if isinstance(error, dict) else None
        text = error.get("message") if isinstance(error, dict) else error
        super().__init__(f"{method}: JSON-RPC error {code}: {short(str(text), 120)}")
        self.code = code


def result_of(method: str, response: dict) -> dict:
    """The ``result`` object of a response, or RpcError / CrawlError."""
    if "error" in response:
        raise RpcError(method, response["error"])
    result = response.get("result")
    if not isinstance(result, dict):
        raise CrawlError("protocol_error", f"{method}: result is not an object")
    return result


class SseParser:
    """Incremental text/event-stream parser (WHATWG rules, enough for MCP).

    Feed it bytes; it yields ``(event, data)`` pairs. ``max_event_bytes``
    bounds one event's data.
    """

    def __init__(self, max_event_bytes: int):
        self.max_event_bytes = max_event_bytes
        self._buf = b""
        self._event = ""
        self._data: list[bytes] = []
        self._size = 0

    def feed(self, chunk: bytes) -> list[tuple[str, str]]:
        out = []
        self._buf += chunk
        while True:
            idx = self._buf.find(b"\n")
            if idx < 0:
                if len(self._buf) > self.max_event_bytes:
                    raise CrawlError("too_large", f"SSE line over {self.max_event_bytes} bytes")
                break
            line = self._buf[:idx]
            self._buf = self._buf[idx + 1:]
            if line.endswith(b"\r"):
                line = line[:-1]
            if not line:
                if self._data:
                    out.append((self._event or "message", b"\n".join(self._data).decode("utf-8", "replace")))
                self._event, self._data, self._size = "", [], 0
                continue
            if line.startswith(b":"):
                continue
            name, _, value = line.partition(b":")
            if value.startswith(b" "):
                value = value[1:]
            if name == b"event":
                self._event = value.decode("utf-8", "replace")
            elif name == b"data":
                self._size += len(value)
                if self._size > self.max_event_bytes:
                    raise CrawlError("too_large", f"SSE event over {self.max_event_bytes} bytes")
                self._data.append(value)
        return out
