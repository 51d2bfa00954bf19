"""The secrets of the capture running now, for everything the crawler writes.

Every value that came from ``${VAR}`` is a secret. Redaction itself is
``mcpdelta.redact`` (re-exported here); it runs first, on the whole raw text
(or bytes), before anything is cut, collapsed or decoded, so no excerpt can
keep part of a secret.
"""

from __future__ import annotations

import contextvars

from mcpdelta.redact import MASK, redact  # noqa: F401 - the crawler's one redaction


# The secrets of the capture running in this task (a set the capture fills as
# it expands ${VAR}); every excerpt the crawler cuts redacts them first.
_CURRENT: contextvars.ContextVar = contextvars.ContextVar("mcpdelta_crawl_secrets", default=frozenset())


def use_secrets(secrets: set[str]) -> None:
    """Make ``secrets`` the current capture's (per asyncio task)."""
    _CURRENT.set(secrets)


def current_secrets():
    return _CURRENT.get()

