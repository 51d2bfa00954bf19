"""The lockfile's optional ``probes`` block: what a tool's calls returned.

Per tool, one entry per probe the locked manifest holds (``tools/call``
made at capture time, see ``mcpdelta/crawl/probes.py``)::

    probes:
      - name: conditions                 # the probe's name: matched by it
        arguments: {city: Paris}
        outcome: result                  # or tool_error
        shape_hash: "sha256:<64 hex>"    # the response's fingerprint, hashed
        shape: {...}                     # the fingerprint itself (left out by --no-contract)

``verify-lock`` runs the same calls again and compares: an equal hash is no
drift; a moved one is graded by the engine's behaviour rules
(``mcpdelta/engine/behaviour.py``) when the shape is embedded, and is at
least a patch when it is not.
"""

import re

from mcpdelta.engine.change import sorted_keys
from mcpdelta.errors import InputError

PINNED = ("result", "tool_error")  # what a call that answered can pin; a timeout pins nothing
_HASH = re.compile(r"sha256:[0-9a-f]{64}")


class PinnedProbe:
    __slots__ = ("name", "tool", "arguments", "outcome", "shape_hash", "shape")

    def __init__(self, name, tool, arguments, outcome, shape_hash, shape=None):
        self.name, self.tool, self.arguments = name, tool, arguments
        self.outcome, self.shape_hash, self.shape = outcome, shape_hash, shape

    def as_probe(self) -> dict:
        """The pinned call as a manifest probe entry, for the engine."""
        entry = {"name": self.name, "tool": self.tool, "arguments": self.arguments, "outcome": self.outcome}
        if self.shape is not None:
            entry["shape"] = self.shape
        return entry


# --- writing -----------------------------------------------------------------

def pin(manifest: dict, embed: bool) -> tuple[dict, list[str]]:
    """Tool name -> its probe entries, and a note per probe not pinned."""
    from mcpdelta.engine.behaviour import fingerprint
    from mcpdelta.engine.fingerprint import shape_hash

    names = {t.get("name") for t in manifest.get("tools") or [] if isinstance(t, dict)}
    by_tool, notes = {}, []
    for probe in manifest.get("probes") or []:
        if not isinstance(probe, dict):
            continue
        what = fingerprint(probe)
        if probe.get("tool") not in names:
            notes.append(f"probe {probe.get('name')!r} not pinned: no tool named {probe.get('tool')!r}")
            continue
        if what["outcome"] not in PINNED:
            notes.append(f"probe {probe.get('name')!r} not pinned: its call ended in {what['outcome']}")
            continue
        entry = {"name": probe["name"], "arguments": sorted_keys(probe.get("arguments") or {}),
                 "outcome": what["outcome"]}
        if what["shape"] is not None:
            entry["shape_hash"] = shape_hash(what["shape"])
            if embed:
                entry["shape"] = sorted_keys(what["shape"])
        by_tool.setdefault(probe["tool"], []).append(entry)
    for entries in by_tool.values():
        entries.sort(key=lambda e: e["name"])
    return by_tool, notes



# --- reading -----------------------------------------------------------------

def parse(raw, tool: str, source: str, where: str, seen: set) -> list:
    """``tools.NAME.probes`` of a lockfile; ``seen`` holds the probe names of
    the tools read so far (a name is one call across the whole server)."""
    from mcpdelta.engine.fingerprint import shape_hash

    if raw is None:
        return []
    if not isinstance(raw, list):
        raise InputError(source, f"{where}.probes must be a list of {{name, arguments, outcome, shape_hash}}")
    pinned = []
    for index, item in enumerate(raw):
        at = f"{where}.probes[{index}]"
        if not isinstance(item, dict):
            raise InputError(source, f"{at} must be a mapping")
        name, arguments, outcome = item.get("name"), item.get("arguments", {}), item.get("outcome")
        digest, shape = item.get("shape_hash"), item.get("shape")
        if not isinstance(name, str) or not name:
            raise InputError(source, f"{at}.name is missing")
        if name in seen:
            raise InputError(source, f"{at}: two probes are named {name!r}")
        if not isinstance(arguments, dict):
            raise InputError(source, f"{at}.arguments must be a mapping")
        if outcome not in PINNED:
            raise InputError(source, f"{at}.outcome {outcome!r} is not one of {', '.join(PINNED)}")
        if not isinstance(digest, str) or not _HASH.fullmatch(digest):
            raise InputError(source, f"{at}.shape_hash {digest!r} is not sha256:<64 hex>")
        if shape is not None:
            if not isinstance(shape, dict) or not isinstance(shape.get("content"), dict):
                raise InputError(source, f"{at}.shape must be a response fingerprint (a mapping with content)")
            if shape_hash(shape) != digest:
                raise InputError(source, f"{at}.shape does not hash to its shape_hash (edited by hand?)")
        seen.add(name)
        pinned.append(PinnedProbe(name, tool, arguments, outcome, digest, shape))
    return pinned


# --- drift -------------------------------------------------------------------

class ProbeDrift:
    """One pinned probe against the live call: ``status`` unchanged, changed
    or missing (the call was not made: its tool is gone, or the manifest
    holds no such probe)."""

    __slots__ = ("name", "status", "grade", "changes", "pinned", "live", "note")

    def __init__(self, name, status, grade, changes=(), pinned=None, live=None, note=None):
        self.name, self.status, self.grade, self.changes = name, status, grade, list(changes)
        self.pinned, self.live, self.note = pinned, live, note

    @property
    def drifted(self) -> bool:
        return self.status != "unchanged"

    def as_json(self) -> dict:
        return {"probe": self.name, "status": self.status, "grade": self.grade, "pinned_hash": self.pinned,
                "live_hash": self.live, "note": self.note, "changes": [c.as_json() for c in self.changes]}


def compare(pinned: list, manifest: dict, tool: dict) -> list:
    """Each pinned probe of one live ``tool`` against ``manifest["probes"]``."""
    from mcpdelta.engine import diff
    from mcpdelta.engine.behaviour import fingerprint
    from mcpdelta.engine.fingerprint import shape_hash
    from mcpdelta.engine.policy import grade

    live = {p.get("name"): p for p in manifest.get("probes") or [] if isinstance(p, dict)}
    drifts = []
    for probe in pinned:
        now = live.get(probe.name)
        what = fingerprint(now) if now is not None else None
        live_hash = shape_hash(what["shape"]) if what and what["shape"] is not None else None
        if what is not None and what["outcome"] == probe.outcome and live_hash == probe.shape_hash:
            drifts.append(ProbeDrift(probe.name, "unchanged", "none", pinned=probe.shape_hash, live=live_hash))
            continue
        status = "missing" if what is None or what["outcome"] == "unavailable" else "changed"
        note = None
        if probe.shape is None and status == "changed" and what["outcome"] == probe.outcome:
            changes = []  # only the hash is pinned: movement, nothing to grade it by
            note = "no shape embedded in the lockfile: the grade is a floor"
        else:  # the engine's own comparison of this one call: old = the pin, new = the live call
            changes = diff({"probes": [probe.as_probe()]}, {"tools": [tool], "probes": [now] if now else []})
        drifts.append(ProbeDrift(probe.name, status, grade(changes, movement=True), changes,
                                 pinned=probe.shape_hash, live=live_hash, note=note))
    return drifts


def probes_to_run(lock) -> list:
    """Every pinned call of a lockfile, as the crawler's probes."""
    from mcpdelta.crawl.probes import Probe

    return [Probe(p.tool, p.arguments, p.name) for entry in lock.tools.values() for p in entry.probes]
