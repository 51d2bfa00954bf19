"""The deterministic engine: ``diff(old, new)`` -> classified changes.

Pure: no clock, no network, no randomness, no model. The same two manifests
give the same changes, in the same order, in any process.
"""

import itertools

from mcpdelta.engine.behaviour import diff_probes
from mcpdelta.engine.change import Change
from mcpdelta.engine.entities import diff_prompts, diff_resources, diff_templates
from mcpdelta.engine.equality import canonical, same
from mcpdelta.engine.server import diff_server
from mcpdelta.engine.tools import diff_tools

__all__ = ["Change", "diff"]

_LISTS = (
    ("tools", diff_tools),
    ("prompts", diff_prompts),
    ("resources", diff_resources),
    ("resourceTemplates", diff_templates),
)


def diff(old: dict, new: dict) -> list:
    """Every contract change from manifest ``old`` to manifest ``new``.

    A surface is compared only when both sides captured it (a missing key
    means "not captured"). Both manifests must have passed
    ``manifest.validate_manifest``."""
    changes = []
    diff_server(old, new, changes)
    for key, differ in _LISTS:
        # equal lists hold no change (a release seldom touches them all)
        if isinstance(old.get(key), list) and isinstance(new.get(key), list) \
                and not same(old[key], new[key]):
            differ(old[key], new[key], changes)
    if isinstance(old.get("probes"), list) and isinstance(new.get("probes"), list) \
            and not same(old["probes"], new["probes"]):
        tools = {t["name"]: t for t in new.get("tools") or []}
        diff_probes(old["probes"], new["probes"], tools, changes)
    return _ordered(_republished(changes))


_MOVES = (("resourceTemplate.removed", "resource.added"), ("resource.removed", "resourceTemplate.added"))


def _republished(changes) -> list:
    """A resource template without variables re-published as a static
    resource with the same URI (or back), nothing else about it changed, is
    no change for a client that reads that URI: both halves are dropped."""
    def bare(entry):
        return {k: v for k, v in entry.items() if k not in ("uri", "uriTemplate")} \
            if isinstance(entry, dict) else entry

    moved = set()
    for gone, came in _MOVES:
        old = {c.entity: c.old for c in changes if c.rule == gone and "{" not in str(c.entity)}
        for change in changes:
            if change.rule == came and change.entity in old and "{" not in str(change.entity) \
                    and same(bare(old[change.entity]), bare(change.new)):
                moved |= {(gone, change.entity), (came, change.entity)}
    return [c for c in changes if (c.rule, c.entity) not in moved] if moved else changes


def _ordered(changes) -> list:
    """By path and rule, then by the canonical text of old and new values:
    those are worked out only where two changes share a path and a rule
    (seldom; a value can be a whole tool)."""
    changes.sort(key=Change.sort_key)
    out = []
    for _, group in itertools.groupby(changes, key=Change.sort_key):
        group = list(group)
        if len(group) > 1:
            group.sort(key=lambda c: (canonical(c.old), canonical(c.new)))
        out.extend(group)
    return out
