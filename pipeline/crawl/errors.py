"""Crawl failures: one exception type carrying a classified ``error_kind``.

Kinds (the ``error_kind`` column of the crawl log):

- ``spawn_failed``     the command could not be started
- ``timeout``          start, request or total time limit reached
- ``protocol_error``   output that is not JSON-RPC, an error answer to
                       ``initialize``, a result of the wrong shape
- ``server_exited``    the server closed its output (crashed, exited)
                       before answering
- ``too_large``        a message or the whole server output went over its cap
- ``http_status``      an HTTP answer other than 2xx (and not 401)
- ``auth_required``    HTTP 401 (or 403): the server wants credentials
- ``connection_error`` refused, reset, DNS: nothing to talk to
- ``install_failed``   a version of a package could not be installed
- ``version_lookup``   a package's published versions could not be listed
- ``bad_target``       the server entry cannot be crawled as given

On a row that *succeeded* (``ok`` true) ``error_kind`` may still be set:
``truncated`` (a list stopped early: page cap or cursor cycle; the manifest
keeps the last ``nextCursor``) or ``partial`` (the server rejected a list
method it advertised; that surface is missing from the manifest).
"""

from __future__ import annotations


class CrawlError(Exception):
    def __init__(self, kind: str, message: str, *, transient: bool = False,
                 retry_after: float | None = None):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.transient = transient
        self.retry_after = retry_after

    def __str__(self) -> str:
        return self.message


def short(text: str, limit: int = 200) -> str:
    """A one-line excerpt for error messages."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
