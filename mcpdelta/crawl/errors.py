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
- ``list_failed``      ``tools/list`` failed (an error answer or a result without a tools list)
- ``empty``            the server advertises the tools capability and listed none: what a
                       server does when its recipe lacks the configuration it lists tools
                       for (the message ends with the likeliest cause on its stderr)
- ``install_failed``   a version of a package could not be installed
- ``version_lookup``   a package's published versions could not be listed
- ``bad_target``       the server entry cannot be crawled as given
- ``missing_env``      a ``${VAR}`` of the entry is not set
- ``interrupted``      the crawl itself was stopped (SIGTERM, SIGINT)
- ``internal_error``   something no kind above foresaw (a package's broken
                       metadata, say): the exception's type and message; the
                       other servers' captures carry on

On a row that *succeeded* (``ok`` true) ``error_kind`` may still be set:
``truncated`` (a list stopped early: page cap or cursor cycle; the manifest
keeps the last ``nextCursor``) or ``partial`` (an optional list method the
server advertised failed; that surface is missing from the manifest). An
optional list answered with ``-32601`` (method not found) is only a warning.
"""

from __future__ import annotations

import re

from .redact import current_secrets, redact


class CrawlError(Exception):
    def __init__(self, kind: str, message: str, *, transient: bool = False,
                 retry_after: float | None = None):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.transient = transient
        self.retry_after = retry_after


# A registry's server error, as npm (E503), uv ("503 Service Unavailable") and
# pip ("503 Server Error") say it: the registry may answer next time.
_REGISTRY_5XX = re.compile(r"\bE5\d\d\b|\b5\d\d (Server Error|Internal Server Error|Bad Gateway|Service Unavailable|"
                           r"Gateway Time-?out)\b|status code 5\d\d\b")


def install_retryable(exc: CrawlError) -> bool:
    """Can installing again help? Only after a timeout or a registry's 5xx;
    not for an unreachable host, a package or version the registry lacks, or
    an interpreter the release does not run on (the same every time)."""
    return exc.kind == "timeout" or (exc.kind == "install_failed" and bool(_REGISTRY_5XX.search(exc.message)))

    def __str__(self) -> str:
        return self.message


def short(text: str, limit: int = 200) -> str:
    """A one-line excerpt for error messages; the capture's secrets are
    redacted first, so neither the cut nor the collapsing can split one."""
    text = " ".join(redact(str(text), current_secrets()).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


# A line that names what went wrong (not a stack frame, a banner or a box edge).
_CAUSE = re.compile(r"(?i)\b(error|exception|cannot|can't|could not|couldn't|failed|failure|fatal|"
                    r"not found|no such|no module|missing|denied|refused|invalid|unable|requires?|"
                    r"unsupported|panic|abort(ed)?|killed)\b|ERR!|\b(?-i:E[A-Z]{3,}|\w+Error|\w+Exception)\b")
_NOT_CAUSE = re.compile(r"^(at |File \"|(Exception Group )?Traceback \(most recent call last\)|Node\.js v\d|\^+$|"
                        r"[-+=|_*#~ ]+$|The above exception was the direct cause|During handling of the above|Emitted '\w+' event on|"
                        # a property of a Node.js error printed under it ("code: 'EADDRINUSE',"): the
                        # error's own line above names the address or host
                        r"[a-z]\w*: ('[^']*'|-?\d+),?$)")
# the frame Python draws around the tracebacks of an exception group ("  | ", "  +-+---")
_GROUP_FRAME = re.compile(r"^[|+]( |-+ |-+$)?")


def cause_lines(text: str, limit: int = 200) -> list[str]:
    """The lines of a program's stderr that name an error, in order, at most ``limit``."""
    out: list[str] = []
    for line in redact(text or "", current_secrets()).splitlines():
        line = _GROUP_FRAME.sub("", line.strip()).strip()
        if not line or _NOT_CAUSE.match(line) or not _CAUSE.search(line):
            continue
        if line not in out:
            out.append(line[:2000])
        if len(out) >= limit:
            break
    return out


def cause(text: str, limit: int = 300) -> str:
    """The likeliest cause in a stderr text: its last line naming an error, else its last line."""
    lines = cause_lines(text)
    if lines:
        return short(lines[-1], limit)
    rest = [ln for ln in (text or "").strip().splitlines() if ln.strip()]
    return short(rest[-1], limit) if rest else ""
