"""Approvals: known breaks a team accepted on purpose, carried from commit to commit.

An approvals file (default ``.mcpdelta-approvals.yml`` in the working
directory) is committed and reviewed like code::

    version: 1
    approvals:
      # BREAKING tool.removed: Tool zip was removed.
      - fingerprint: 3f2a9c0d1e4b5a67
        rule: tool.removed
        entity: zip
        reason: "zip moved to the files server, announced in 2.0"
        expires: 2026-03-31   # optional: from the next day on, the change fails again

A change's fingerprint names the change itself: the server (its
``serverInfo.name``), the rule, the entity, the place (a JSON pointer by
names) and what the old and new values mean (keys in any order, the lists
whose order is notation in any order). Never a line number or a place in a
report: a tool renamed elsewhere, a reordered file or another description
that changed leave it as it was; the approved change itself altered is
another fingerprint, so it fails again.

An approved change still shows in every report, marked with its reason; its
severity and the grade stay what the policy made them (approval is not
suppression), and it never fails the build. An approval that matches no
change is stale: reported, so that it can be deleted.
"""

import datetime
import json
import os
import re

from mcpdelta.config import APPROVALS_NAME as DEFAULT_NAME
from mcpdelta.errors import InputError
from mcpdelta.safe import visible
from mcpdelta.sha256 import sha256  # not hashlib: a diff does without OpenSSL

VERSION = 1
FIELDS = ("fingerprint", "server", "rule", "entity", "reason", "expires")
_FINGERPRINT = re.compile(r"[0-9a-f]{16}")

# Lists whose order the engine reads as notation (set-valued schema keywords,
# the manifest's lists, prompt arguments): sorted before fingerprinting.
UNORDERED = frozenset({"type", "enum", "required", "allOf", "anyOf", "oneOf", "tools", "prompts",
                       "resources", "resourceTemplates", "supportedVersions", "arguments", "probes"})

_canonical = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode


def _meaning(value, unordered: bool = False):
    """``value`` in a form two notations of one meaning share."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _meaning(v, k in UNORDERED) for k, v in value.items()}
    if isinstance(value, list):
        items = [_meaning(v) for v in value]
        return sorted(items, key=_canonical) if unordered else items
    return value


def server_name(result) -> str | None:
    """The server a result compares: ``serverInfo.name`` of the new side, else the old."""
    for manifest in (result.new, result.old):
        info = manifest.get("serverInfo") if isinstance(manifest, dict) else None
        if isinstance(info, dict) and isinstance(info.get("name"), str):
            return info["name"]
    return None


def fingerprint(change, server: str | None) -> str:
    """16 hex digits that stay the same while the change is the same."""
    text = _canonical([VERSION, server, change.rule, change.entity, change.path,
                       _meaning(change.old), _meaning(change.new)])
    return sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


class Approval:
    """One entry of the file; ``line`` is where it starts (for messages)."""

    __slots__ = ("fingerprint", "server", "rule", "entity", "reason", "expires", "line")

    def __init__(self, fingerprint, rule, entity, reason, expires=None, line=None, server=None):
        self.fingerprint, self.server, self.rule, self.entity = fingerprint, server, rule, entity
        self.reason, self.expires, self.line = reason, expires, line

    def expired(self, today: datetime.date) -> bool:
        return self.expires is not None and today > self.expires

    def as_json(self) -> dict:
        return {"fingerprint": self.fingerprint, "server": self.server, "rule": self.rule, "entity": self.entity,
                "reason": self.reason, "expires": self.expires.isoformat() if self.expires else None}


class Mark:
    """An approval as it applies to one change: approved, or expired (fails again)."""

    __slots__ = ("approval", "expired", "fingerprint")

    def __init__(self, approval, expired, fingerprint):
        self.approval, self.expired, self.fingerprint = approval, expired, fingerprint

    def as_json(self) -> dict:
        return {**self.approval.as_json(), "expired": self.expired}


class Approvals:
    """The entries of one approvals file (an absent file has none), and
    which of them matched a change in this run."""

    def __init__(self, path: str, entries=(), text: str | None = None):
        self.path = path
        self.entries = list(entries)
        self.text = text  # the file as read, for appending; None: no file yet
        self.by_fingerprint = {a.fingerprint: a for a in self.entries}
        self.matched = set()
        self.servers = set()  # the servers compared so far: staleness is judged for them only

    def where(self, approval) -> str:
        return f"{self.path}:{approval.line}" if approval.line else self.path

    def marks(self, result, today: datetime.date | None = None) -> dict:
        """{change: Mark} for every change of ``result`` an entry names."""
        today = today or datetime.date.today()
        server = server_name(result)
        self.servers.add(server)
        out = {}
        for change in result.changes:
            fp = fingerprint(change, server)
            approval = self.by_fingerprint.get(fp)
            if approval is None or approval.rule != change.rule or approval.entity != change.entity:
                continue
            self.matched.add(fp)
            out[change] = Mark(approval, approval.expired(today), fp)
        return out

    def stale(self) -> list:
        """Entries for a server compared so far (or for no server named)
        that no change matched."""
        return [a for a in self.entries if a.fingerprint not in self.matched
                and (a.server is None or a.server in self.servers)]


def load(path: str | None, create: bool = False) -> Approvals | None:
    """The approvals file at ``path`` (default: ``.mcpdelta-approvals.yml``
    here, None when there is none). A file named but missing is an error,
    unless ``create`` (then, like a missing default, an empty one to write)."""
    if not os.path.lexists(path or DEFAULT_NAME):
        if path and not create:
            raise InputError(path, "no such approvals file (--approve writes one)")
        return Approvals(path or DEFAULT_NAME) if create else None
    path = path or DEFAULT_NAME
    from mcpdelta.inputs import compose_yaml, read_text

    text = read_text(path, what="approvals file")
    return Approvals(path, parse(compose_yaml(text, path), path), text)


def parse(root, path: str) -> list:
    import yaml

    def line(node):
        return f"{path}:{node.start_mark.line + 1}"

    if root is None:
        return []
    if not isinstance(root, yaml.MappingNode):
        raise InputError(line(root), "an approvals file is a mapping with version and approvals")
    top = {k.value: (k, v) for k, v in root.value}
    for key, (node, _) in top.items():
        if key not in ("version", "approvals"):
            raise InputError(line(node), f"unknown key {key!r} (expected version, approvals)")
    if "version" in top and top["version"][1].value != str(VERSION):
        raise InputError(line(top["version"][1]), f"unsupported approvals version (expected {VERSION})")
    items = top.get("approvals", (None, None))[1]
    if items is None or (isinstance(items, yaml.ScalarNode) and items.value in ("", "~", "null")):
        return []
    if not isinstance(items, yaml.SequenceNode):
        raise InputError(line(items), "approvals must be a list of {fingerprint, rule, entity, reason, expires}")
    from mcpdelta.engine.policy import parse_rule

    entries, seen = [], {}
    for item in items.value:
        where = line(item)
        if not isinstance(item, yaml.MappingNode):
            raise InputError(where, "each approval is a mapping of fingerprint, rule, entity, reason, expires")
        fields = {}
        for key, value in item.value:
            if key.value not in FIELDS:
                raise InputError(line(key), f"unknown approval field {key.value!r} (expected {', '.join(FIELDS)})")
            if not isinstance(value, yaml.ScalarNode):
                raise InputError(line(key), f"{key.value} must be a single value")
            fields[key.value] = None if value.tag.endswith(":null") else value.value
        for name in ("fingerprint", "rule", "reason"):
            if not (fields.get(name) or "").strip():
                hint = " (why this break is acceptable)" if name == "reason" else ""
                raise InputError(where, f"an approval needs a {name}{hint}")
        fp = fields["fingerprint"].strip()
        if not _FINGERPRINT.fullmatch(fp):
            raise InputError(where, f"fingerprint {fp!r} is not 16 lower-case hex digits")
        if fp in seen:
            raise InputError(where, f"fingerprint {fp} is approved twice (first at line {seen[fp]})")
        seen[fp] = item.start_mark.line + 1
        expires = None
        if fields.get("expires"):
            try:
                expires = datetime.date.fromisoformat(fields["expires"].strip())
            except ValueError:
                raise InputError(where, f"expires {fields['expires']!r} is not a date like 2026-03-31") from None
        entries.append(Approval(fp, parse_rule(fields["rule"], where), fields.get("entity"),
                                fields["reason"].strip(), expires, item.start_mark.line + 1,
                                fields.get("server")))
    return entries


# --- writing entries for a human to review -------------------------------------

HEADER = """\
# mcpdelta approvals: breaks accepted on purpose. Each entry needs a reason;
# `expires` (optional, YYYY-MM-DD) makes the change fail again after that day.
# Written by `mcpdelta diff|ci --approve`; review and commit it like code.
version: 1
approvals:
"""


def entry_text(change, fp: str, server: str | None, reason: str | None, indent: str = "  ") -> str:
    """One entry in block style, a comment with the change's message above it."""
    comment = visible(f"{change.severity} {change.rule}: {change.message}")
    quoted = json.dumps  # a JSON string is a YAML double-quoted scalar
    entity = "null" if change.entity is None else quoted(change.entity, ensure_ascii=True)
    named = "" if server is None else f"{indent}  server: {quoted(server, ensure_ascii=True)}\n"
    tail = "" if reason else "   # required: why this break is acceptable"
    return (f"{indent}# {comment}\n"
            f"{indent}- fingerprint: {fp}\n"
            + named +
            f"{indent}  rule: {change.rule}\n"
            f"{indent}  entity: {entity}\n"
            f"{indent}  reason: {quoted(reason or '', ensure_ascii=True)}{tail}\n")


def append(approvals: Approvals, changes: list, reason: str | None) -> int:
    """Add an entry per ``(change, fingerprint, server)`` at the end of the file (a
    new file gets the header). The file's own text, comments included, is
    kept as written. Returns how many were added."""
    from mcpdelta.gate.lockfile import write_text

    text = HEADER if approvals.text is None else approvals.text
    if not text.endswith("\n"):
        text += "\n"
    tops = list(re.finditer(r"^([A-Za-z_][\w-]*):(.*)$", text, re.M))
    last = tops[-1] if tops else None
    if last is None or all(m.group(1) != "approvals" for m in tops):
        text += "approvals:\n"
    elif last.group(1) != "approvals":
        raise InputError(approvals.path, "cannot add entries: make `approvals:` the file's last key")
    elif last.group(2).split("#")[0].strip() in ("null", "~", "[]"):
        text = text[:last.start()] + "approvals:" + text[last.end():]
    elif last.group(2).split("#")[0].strip():
        raise InputError(approvals.path, "cannot add entries: write the `approvals:` list one `- ` item a line")
    items = re.search(r"^approvals:.*\n(?:[ \t]*(?:#.*)?\n)*([ \t]*)- ", text, re.M)
    indent = items.group(1) if items else "  "
    write_text(approvals.path, text + "".join(entry_text(c, fp, server, reason, indent) for c, fp, server in changes))
    return len(changes)


def to_approve(result) -> list:
    """(change, fingerprint, server) for each change of ``result`` that fails
    the build and no entry names (an expired entry is renewed by hand)."""
    from mcpdelta.gate.verdict import of

    gate, server = of(result), server_name(result)
    return [(c, fingerprint(c, server), server) for c in result.changes
            if gate.fails(result.policy, c) and gate.mark(c) is None]


def stale_lines(approvals: Approvals | None) -> list[str]:
    """One line per stale entry, naming the file, its line and what it named."""
    if approvals is None:
        return []
    return [visible(f"{approvals.where(a)}: stale approval {a.fingerprint} ({a.rule}"
                    f"{'' if a.entity is None else ' ' + a.entity}) matches no change; delete it")
            for a in approvals.stale()]
