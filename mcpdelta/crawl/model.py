"""Plain data types of the crawler: limits, targets and capture records.

A ``CaptureRecord`` is what every attempt produces, success or failure; its
fields are plain JSON-able values so the lake can write it as one row.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

# The newest protocol revision reachable through the initialize handshake.
OFFERED_PROTOCOL_VERSION = "2025-11-25"
# The stateless revisions (``server/discover``, the protocol in each request's
# ``_meta``), newest last; the crawler tries the newest first.
MODERN_PROTOCOL_VERSIONS = ("2026-07-28",)


@dataclass
class Limits:
    start_timeout_s: float = 30.0        # spawn/connect + the initialize answer
    request_timeout_s: float = 30.0      # each later request
    total_timeout_s: float = 120.0       # one server, all attempts included
    install_timeout_s: float = 600.0     # one package version install
    concurrency: int = 8                 # servers captured at once
    install_concurrency: int = 4         # package installs at once, on their own limit (network and
                                         # disk, where a capture is CPU): installs run ahead of captures
    lookup_concurrency: int = 16         # registry look-ups at once
    max_message_bytes: int = 4 * 1024 * 1024
    max_server_bytes: int = 32 * 1024 * 1024
    max_pages: int = 100                 # pages per list method
    retries: int = 2                     # extra attempts for transient faults
    backoff_s: float = 0.5               # first retry wait, doubled each time
    max_backoff_s: float = 10.0
    max_retry_after_s: float = 60.0      # cap on a server's Retry-After
    kill_grace_s: float = 0.5            # wait for exit after stdin closes
    stderr_tail_bytes: int = 64 * 1024   # stderr kept per server (its cause lines go to the log)
    discover_timeout_s: float = 5.0      # server/discover before falling back to initialize (a late
                                         # answer still counts: initialize then gets -32022)
    max_noise_lines: int = 1000          # non-JSON stdout lines skipped before the capture fails

    _ALIASES = {"timeout_s": ("start_timeout_s", "request_timeout_s")}

    @classmethod
    def from_mapping(cls, data: dict, where: str) -> "Limits":
        from mcpdelta.errors import InputError

        limits = cls()
        names = {f.name: f for f in dataclasses.fields(cls)}
        for key, value in (data or {}).items():
            targets = cls._ALIASES.get(key, (key,))
            for name in targets:
                if name not in names or name.startswith("_"):
                    raise InputError(where, f"limits: unknown key {key!r}")
                kind = int if names[name].type in ("int", int) else float
                try:
                    number = kind(value)
                except (TypeError, ValueError):
                    raise InputError(where, f"limits.{key}: expected a number, got {value!r}") from None
                if number < 0 or (name.endswith("concurrency") and number < 1):
                    raise InputError(where, f"limits.{key}: must be positive")
                setattr(limits, name, number)
        return limits


@dataclass
class ClientIdentity:
    """Who the crawler says it is in ``initialize``: ``clientInfo`` and the
    protocol revision it offers first. A second capture under another
    identity tells flaky output (or output that depends on the client) from
    a release change."""

    name: str = "mcpdelta-crawler"
    version: str | None = None           # None: mcpdelta's own version
    protocol_version: str = OFFERED_PROTOCOL_VERSION   # offered in initialize
    # offered in server/discover, tried first; None: the initialize handshake only
    modern_version: str | None = MODERN_PROTOCOL_VERSIONS[-1]

    def client_info(self) -> dict:
        if self.version is None:
            from mcpdelta import __version__

            return {"name": self.name, "version": __version__}
        return {"name": self.name, "version": self.version}


@dataclass
class PackageSpec:
    registry: str                        # "npm" | "pypi"
    name: str
    versions: Any                        # list of str, "last N", a range string, or "latest"
    bin: str | None = None               # which executable, when a package has several
    python: str | None = None            # PyPI: the interpreter ("3.12"); None = from Requires-Python
    node: str | None = None              # npm: the Node.js major ("22"); None = the machine's node


@dataclass
class Target:
    """One thing to crawl once: a server at one version."""

    id: str
    transport: str = "stdio"             # stdio | streamable-http | sse
    command: str | None = None
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)    # values may hold ${VAR}
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)  # values may hold ${VAR}
    version: str | None = None           # declared version (sweep or local list)
    package: PackageSpec | None = None   # set on a sweep before its install
    problem: str | None = None           # set when the entry cannot be crawled
    source: str = ""                     # where the entry came from
    notes: list[str] = field(default_factory=list)   # said in the capture's warnings
    probes: list | str = field(default_factory=list)  # tools/call probes, or "auto" (probes.py)
    serial: bool = False                 # its versions are captured one at a time
    recipe: dict | None = None           # how it is started, as recorded (recipe.describe)


@dataclass
class CaptureRecord:
    id: str
    version: str
    ok: bool
    error_kind: str | None
    error: str | None
    duration_ms: int
    captured_at: str
    transport: str
    offered_protocol: str | None = None
    protocol: str | None = None
    attempts: int = 0
    warnings: list[str] = field(default_factory=list)
    published_at: str | None = None      # package versions: the publish date installed against
    stderr_tail: str | None = None
    path: str | None = None              # the manifest written, relative to the out folder
    client: dict | None = None           # the clientInfo sent in initialize
    handshake: str | None = None         # which answered: "discover" (2026-07-28) or "initialize"
    install_ms: int = 0                  # of duration_ms: the install (0 when cached)
    capture_ms: int = 0                  # of duration_ms: the capture (start to last list)
    install_retry: str | None = None     # set when the install needed a later cut-off, and why
    python: str | None = None            # PyPI sweeps: the interpreter of the venv
    node: str | None = None              # npm sweeps with their own Node.js: its version
    install_reused: str | None = None    # npm: installed over a copy of this earlier release's install
    install_check: str | None = None     # its check against a plain install: "equal", "differs: ...", ...
    install_check_ms: int = 0            # what that check cost (a plain install and a capture)
    noise_lines: int = 0                 # non-JSON stdout lines skipped
    error_lines: list[str] = field(default_factory=list)   # the stderr lines that name an error
    recipe: dict | None = None           # the recipe it ran under (recipe.describe): no env values
    manifest: dict | None = None

    def log_row(self) -> dict:
        row = dataclasses.asdict(self)
        row.pop("manifest")
        return row
