"""Secret redaction for everything the crawler writes.

Every value that came from ``${VAR}`` is a secret. Redaction runs first, on
the whole raw text (or bytes), before anything is cut, collapsed or
decoded, so no excerpt can keep part of a secret. ``edges=True`` also masks
a window's ends that hold the start or the end of a secret (a tail cut
inside one, or a stream read before the rest of it arrived).
"""

from __future__ import annotations

import contextvars
from typing import Iterable

MASK = "***"
_MIN = 3        # shorter values are not treated as secrets (they would mask everything)
_EDGE_MIN = 4   # the shortest secret fragment masked at a window's edge


# The secrets of the capture running in this task (a set the capture fills as
# it expands ${VAR}); every excerpt the crawler cuts redacts them first.
_CURRENT: contextvars.ContextVar = contextvars.ContextVar("mcpdelta_crawl_secrets", default=frozenset())


def use_secrets(secrets: set[str]) -> None:
    """Make ``secrets`` the current capture's (per asyncio task)."""
    _CURRENT.set(secrets)


def current_secrets():
    return _CURRENT.get()


def _usable(secrets: Iterable) -> list:
    return sorted({s for s in secrets if s and len(s) >= _MIN}, key=len, reverse=True)


def redact(text: str | None, secrets: Iterable[str], *, edges: bool = False) -> str | None:
    """``text`` with every occurrence of every secret replaced by ``***``."""
    if not text:
        return text
    items = _usable(secrets)
    for secret in items:
        text = text.replace(secret, MASK)
    if edges:
        text = _edges(text, items, MASK)
    return text


def redact_bytes(data: bytes, secrets: Iterable[str], *, edges: bool = False) -> bytes:
    """The bytes variant: secrets matched as their UTF-8 encoding, before any decoding."""
    if not data:
        return data
    items = _usable(s.encode("utf-8") for s in secrets if isinstance(s, str))
    for secret in items:
        data = data.replace(secret, MASK.encode())
    if edges:
        data = _edges(data, items, MASK.encode())
    return data


def _edges(text, secrets: list, mask):
    for secret in secrets:
        for n in range(len(secret) - 1, _EDGE_MIN - 1, -1):
            if text.endswith(secret[:n]):
                text = text[: len(text) - n] + mask
                break
        for n in range(len(secret) - 1, _EDGE_MIN - 1, -1):
            if text.startswith(secret[-n:]):
                text = mask + text[n:]
                break
    return text
