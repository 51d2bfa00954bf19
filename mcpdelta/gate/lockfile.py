"""The tool-versions lockfile, in the gateway's layout, and drift against it.

    version: 1
    generated_for: <server>
    tools:
      NAME: {semver: "1.0.0", contract_digest: "mcp-contract-v2-sha256:...", contract: {...},
             probes: [{name, arguments, outcome, shape_hash, shape}]}

``contract`` is optional. With it, a changed tool is diffed by the engine and
graded; without it, drift is still detected and grades as at least a patch.
``probes`` is optional too (``mcpdelta/gate/lockprobes.py``): what the tool's
probe calls returned, checked again when the compared manifest holds probes.
"""

import re

import yaml

from mcpdelta import contract as C
from mcpdelta.gate import lockprobes as P
from mcpdelta.engine.change import sorted_keys
from mcpdelta.errors import InputError
from mcpdelta.inputs import load_yaml, read_text

LOCK_VERSION = 1
DEFAULT_SEMVER = "1.0.0"
GRADES = ("none", "patch", "minor", "major")
RANK = {g: i for i, g in enumerate(GRADES)}

_SEMVER = re.compile(
    r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?")


# --- semver ------------------------------------------------------------------

def parse_semver(text, where: str) -> tuple:
    if not isinstance(text, str) or not _SEMVER.fullmatch(text):
        raise InputError(where, f"{text!r} is not a semantic version like 1.2.3")
    return tuple(int(p) for p in _SEMVER.fullmatch(text).groups()[:3])


def bump_of(prior: str, declared: str) -> str:
    """The grade a move from ``prior`` to ``declared`` announces: major / minor
    / patch / none, or ``downgrade``. Below 1.0.0 everything shifts down one
    place (0.1 -> 0.2 is breaking), the cargo convention."""
    old, new = parse_semver(prior, "prior version"), parse_semver(declared, "declared version")
    if new < old:
        return "downgrade"
    if new == old:
        return "none"  # a pre-release or build tag alone announces nothing
    place = next(i for i in range(3) if new[i] != old[i])
    if old[0] == 0 and new[0] == 0:
        place = max(place - 1, 0)
    return ("major", "minor", "patch")[place]


# --- reading and writing -------------------------------------------------------

class Entry:
    __slots__ = ("name", "semver", "digest", "contract", "probes")

    def __init__(self, name, semver, digest, contract=None, probes=()):
        self.name, self.semver, self.digest, self.contract = name, semver, digest, contract
        self.probes = list(probes)  # PinnedProbe

    @property
    def scheme(self):
        """The digest's scheme if this build implements it, else None."""
        scheme, _ = C.split_digest(self.digest)
        return scheme if scheme in C.FIELDS else None


class Lockfile:
    def __init__(self, generated_for, tools: dict, source: str = "<lockfile>"):
        self.generated_for = generated_for
        self.tools = tools  # name -> Entry
        self.source = source


def read_lockfile(path: str) -> Lockfile:
    return parse_lockfile(load_yaml(read_text(path, what="lockfile"), path), path)


def parse_lockfile(doc, source: str) -> Lockfile:
    if not isinstance(doc, dict):
        raise InputError(source, "a lockfile is a mapping with version, generated_for and tools")
    if type(doc.get("version")) is not int or doc["version"] != LOCK_VERSION:  # not true, not 1.0
        raise InputError(source, f"unsupported lockfile version {doc.get('version')!r} (expected {LOCK_VERSION})")
    tools = doc.get("tools")
    if tools is None:
        tools = {}
    if not isinstance(tools, dict):
        raise InputError(source, "'tools' must be a mapping of tool name to entry")
    entries, probe_names = {}, set()
    for name, raw in tools.items():
        where = f"tools.{name}"
        if not isinstance(raw, dict):
            raise InputError(source, f"{where} must be a mapping")
        semver, digest, embedded = raw.get("semver"), raw.get("contract_digest"), raw.get("contract")
        if isinstance(semver, (int, float)) and not isinstance(semver, bool):
            # YAML read 1.10 as the number 1.1: never guess what was written
            raise InputError(source, f"{where}.semver is a YAML number ({semver!r}), not a version: "
                                     "quote it as written (semver: \"1.10.0\")")
        if not isinstance(semver, str) or not _SEMVER.fullmatch(semver):
            raise InputError(source, f"{where}.semver {semver!r} is not a semantic version like 1.0.0 (quote it)")
        if not isinstance(digest, str) or not digest:
            raise InputError(source, f"{where}.contract_digest is missing")
        entry = Entry(str(name), semver, digest, embedded,
                      P.parse(raw.get("probes"), str(name), source, where, probe_names))
        if entry.scheme is not None:  # unknown schemes are reported later, never refused
            if not C.well_formed(digest):
                raise InputError(source, f"{where}.contract_digest {digest!r} is not {entry.scheme}:<64 hex>")
            if embedded is not None:
                _check_embedded(entry, source, where)
        entries[entry.name] = entry
    return Lockfile(doc.get("generated_for"), entries, source)


def _check_embedded(entry: Entry, source: str, where: str) -> None:
    """An embedded contract that does not hash to its pin would make every
    diff against it wrong: refuse the file rather than grade against it."""
    if not isinstance(entry.contract, dict):
        raise InputError(source, f"{where}.contract must be a mapping")
    try:
        ok = C.digest_contract(entry.contract, entry.scheme) == entry.digest
    except C.CanonicalError as exc:
        raise InputError(source, f"{where}.contract cannot be canonicalised: {exc}") from None
    if not ok:
        raise InputError(source, f"{where}.contract does not hash to its contract_digest (edited by hand?)")


def build_lockfile(manifest: dict, generated_for, semvers: dict, embed: bool = True,
                   notes: list | None = None) -> dict:
    """The lockfile document for every tool of ``manifest``, names sorted,
    with the probes the manifest holds; a note per probe not pinned goes to
    ``notes``."""
    probes, skipped = P.pin(manifest, embed)
    if notes is not None:
        notes.extend(skipped)
    tools = {}
    for tool in sorted(manifest.get("tools") or [], key=lambda t: t["name"]):
        name = tool["name"]
        contract = C.contract_of(tool)
        entry = {"semver": semvers.get(name, DEFAULT_SEMVER),
                 "contract_digest": C.digest_contract(contract)}
        if embed:
            entry["contract"] = sorted_keys(contract)
        if name in probes:
            entry["probes"] = probes[name]
        tools[name] = entry
    return {"version": LOCK_VERSION, "generated_for": generated_for, "tools": tools}



class _Dumper(yaml.SafeDumper):
    """PyYAML writes NEL and the Unicode line separators raw inside a quoted
    scalar and reads them back as line breaks; double quotes escape them."""


def _str(dumper, text):
    style = '"' if any(ch in text for ch in "\x85\u2028\u2029") else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


_Dumper.add_representer(str, _str)


def dump_lockfile(doc: dict) -> str:
    return yaml.dump(doc, Dumper=_Dumper, sort_keys=False, allow_unicode=True,
                     default_flow_style=False, width=100)


def write_text(path: str, text: str) -> None:
    """Write the whole file or nothing (``mcpdelta.files``), so a failed run
    never leaves a half-written baseline behind."""
    from mcpdelta.files import write_file

    try:
        write_file(path, text)
    except OSError as exc:
        raise InputError(path, f"cannot write: {exc.strerror or exc}") from None


# --- drift -------------------------------------------------------------------

class ToolDrift:
    """One tool's standing against the lockfile. ``status`` is one of added,
    removed, changed, unchanged, unknown_scheme; ``grade`` is None when the
    tool is ungated."""

    __slots__ = ("name", "status", "grade", "changes", "pinned", "live", "semver", "note", "probes")

    def __init__(self, name, status, grade=None, changes=(), pinned=None, live=None,
                 semver=None, note=None, probes=()):
        self.name, self.status, self.grade, self.changes = name, status, grade, list(changes)
        self.pinned, self.live, self.semver, self.note = pinned, live, semver, note
        self.probes = list(probes)  # lockprobes.ProbeDrift, one per pinned probe checked

    @property
    def drifted(self) -> bool:
        return self.status in ("added", "removed", "changed")

    def as_json(self) -> dict:
        doc = {"tool": self.name, "status": self.status, "grade": self.grade,
               "semver": self.semver, "pinned_digest": self.pinned, "live_digest": self.live,
               "note": self.note, "changes": [c.as_json() for c in self.changes]}
        if self.probes:
            doc["probes"] = [p.as_json() for p in self.probes]
        return doc


def compare(lock: Lockfile, manifest: dict) -> list:
    """Every tool in the lockfile or the manifest, by name, with its drift;
    pinned probes are checked when the manifest holds probes at all."""
    live = {t["name"]: t for t in manifest.get("tools") or []}
    drifts = [_drift(name, lock.tools.get(name), live.get(name))
              for name in sorted(lock.tools.keys() | live.keys())]
    if isinstance(manifest.get("probes"), list):
        for drift in drifts:
            entry = lock.tools.get(drift.name)
            if entry is not None and entry.probes and drift.status in ("changed", "unchanged"):
                _with_probes(drift, P.compare(entry.probes, manifest, live[drift.name]))
    return drifts


def _with_probes(drift: ToolDrift, probes: list) -> None:
    """A probe that drifted makes its tool changed, graded by the worse of
    its contract and its calls."""
    drift.probes = probes
    moved = [p for p in probes if p.drifted]
    if moved:
        drift.status = "changed"
        drift.grade = max([drift.grade, *(p.grade for p in moved)], key=RANK.__getitem__)


def _drift(name, entry, tool) -> ToolDrift:
    if entry is None:
        changes, grade = _grade({"tools": []}, {"tools": [C.contract_of(tool)]})
        return ToolDrift(name, "added", grade, changes, live=C.tool_digest(tool))
    if entry.scheme is None:
        scheme, _ = C.split_digest(entry.digest)
        return ToolDrift(name, "unknown_scheme", None, pinned=entry.digest, semver=entry.semver,
                         note=f"digest scheme {scheme!r} is unknown to this build: tool not gated")
    old = entry.contract if entry.contract is not None else {"name": name}
    if tool is None:
        changes, grade = _grade({"tools": [old]}, {"tools": []})
        return ToolDrift(name, "removed", grade, changes, pinned=entry.digest, semver=entry.semver)
    live_digest = C.tool_digest(tool, entry.scheme)  # compared with the recipe that wrote the pin
    if live_digest == entry.digest:
        return ToolDrift(name, "unchanged", "none", pinned=entry.digest, live=live_digest,
                         semver=entry.semver)
    if entry.contract is None:
        return ToolDrift(name, "changed", "patch", pinned=entry.digest, live=live_digest,
                         semver=entry.semver,
                         note="no contract embedded in the lockfile: the grade is a floor")
    new = C.contract_of(tool, entry.scheme)
    changes, grade = _grade({"tools": [old]}, {"tools": [new]})
    return ToolDrift(name, "changed", grade, changes, pinned=entry.digest, live=live_digest,
                     semver=entry.semver)


def _grade(old: dict, new: dict):
    """The engine's changes and CONTRACT.md's grade; movement=True because
    the digest moved, so a change no rule explains still grades a patch."""
    from mcpdelta.engine import diff
    from mcpdelta.engine.policy import grade

    changes = diff(old, new)
    return changes, grade(changes, movement=True)


def overall_grade(drifts) -> str:
    grades = [d.grade for d in drifts if d.grade is not None]
    return max(grades, key=RANK.__getitem__, default="none")


# --- declared versions ---------------------------------------------------------

def declared_versions(pairs=(), versions_file=None) -> dict:
    """NAME -> VERSION from a versions file (a mapping, or the gateway's
    ``declared_versions:`` block) and ``--declared NAME=VERSION`` (which win)."""
    declared = {}
    if versions_file:
        doc = load_yaml(read_text(versions_file, what="versions file"), versions_file)
        if isinstance(doc, dict) and isinstance(doc.get("declared_versions"), dict):
            doc = doc["declared_versions"]
        if not isinstance(doc, dict):
            raise InputError(versions_file, "expected a mapping of tool name to version")
        for name, version in doc.items():
            parse_semver(version, f"{versions_file}: {name}")
            declared[str(name)] = version
    for text in pairs:
        name, sep, version = text.partition("=")
        if not sep or not name:
            raise InputError("--declared", f"expected NAME=VERSION, got {text!r}")
        parse_semver(version, f"--declared {text}")
        declared[name] = version
    return declared
