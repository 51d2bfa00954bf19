"""Witnesses for the changes of one diff: proof of every BREAKING schema claim.

For an input change the witness is an arguments object the old
``inputSchema`` accepts and the new one rejects (``kind: "rejected"``); for
an output change, a result the new ``outputSchema`` accepts and the old one
rejects (``kind: "accepted"``). The value is always a whole arguments /
result object, confirmed by ``jsonschema-rs`` on the raw schemas, and
attributable to the change: the rejecting side's errors include one from the
changed keyword at the changed place, and the rejecting side with this
change alone undone accepts it. Construction first, on the smallest object
both schemas accept, then on fuller bases (a group of candidates is given up
once one is rejected for an error none of the others changes); a seeded
search only as the last resort; the winner is shrunk unless construction
built it minimal. Each change's work is bounded by its own budget counted in
candidates (``Budget``), never in time, so a change gets the same witness on
any machine, under any load, whatever else its diff holds; results are
remembered per (rule, place, old and new schema), so the same change in
another tool, pair or server costs a lookup. The proof of one change is
``prove.py``'s chain (construct -> search -> shrink -> confirm); this module
picks the changes, remembers their proofs and settles severities.

A schema change the engine calls BREAKING keeps that severity only with a
witness or a named reason (``evidence.NAMED_REASONS``); with neither it is
reported POTENTIALLY_BREAKING (or the rule's own lower severity), its note
opening "unproven: ".
"""

import time

from mcpdelta.engine.catalog import BREAKING, POTENTIALLY_BREAKING, RANK, RULES
from mcpdelta.engine.change import parts_below, pointer
from mcpdelta.engine.equality import canonical, clone
from mcpdelta.engine.keywords import ANNOTATING, VALIDATION, keyword_at
from mcpdelta.witness.evidence import UNEXPLAINED, evidence
from mcpdelta.engine.remember import memo, per_object
from mcpdelta.engine.policy import UNPROVEN

# Rules whose change cannot be shown by validation at all.
BY_NATURE = {
    "default.changed": "none by nature: a default changes behaviour, not which values validate",
    "description.changed": "none by nature: prose changes no validation outcome",
    "dialect.changed": "none by nature: the notation changed, the same values validate",
    "deprecated.added": "none by nature: deprecated is an annotation, the same values validate",
    "deprecated.removed": "none by nature: deprecated is an annotation, the same values validate",
    "header.changed": "none by nature: x-mcp-header changes how a call travels over HTTP, "
                      "not which values validate",
}
SIDE_KEY = {"input": "inputSchema", "output": "outputSchema"}
SCHEMA_RULES = ("tool.input.", "tool.output.")


class _Stats(dict):
    def bump(self, key):
        self[key] = self.get(key, 0) + 1


class Budget:
    """One change's work budget, counted in candidates checked (each one
    bounded: linear-time regexes, sizes capped): ``change`` in all, ``search``
    of them in the seeded search (the last resort). Every change has its own:
    whether a change is proven never depends on what else its diff holds, nor
    on the machine."""

    def __init__(self, change=None, search=None):
        self.change, self.search = change, search
        self.used = 0  # candidates the changes worked with it took (a count, for the curious)

    def fits(self, used, searched) -> bool:
        """Would work that took ``used`` candidates (``searched`` of them in
        the search) run to its end within this budget?"""
        return (self.change is None or used <= self.change) and (
            self.search is None or searched <= self.search)


class _Meter:
    """One change's count of candidates against its budget."""

    def __init__(self, budget):
        self.budget, self.limit, self.search_limit = budget, budget.change, budget.search
        self.used = self.searched = 0
        self.spent = []  # which budget stopped the work: "change" or "search"

    def tick(self) -> bool:
        """Before each candidate: True once the change's budget is spent."""
        if self.limit is not None and self.used >= self.limit:
            self.spent.append("change")
            return True
        self.used += 1
        return False

    def search_tick(self) -> bool:
        if self.search_limit is not None and self.searched >= self.search_limit:
            self.spent.append("search")
            return True
        if self.tick():
            return True
        self.searched += 1
        return False


def needs_proof(change) -> bool:
    """A schema change the engine calls BREAKING: it stays BREAKING only with
    a witness or a named reason."""
    return change.default_severity == BREAKING and change.rule.startswith(SCHEMA_RULES)


def attach_witnesses(result, min_severity="BREAKING", max_candidates=200, max_constructive=300,
                     max_shrink=300, max_size=10_000, change_budget=600, include_suppressed=False,
                     search_budget=400) -> dict:
    """Prove every schema change the engine calls BREAKING, and set
    ``witness`` / ``witness_note`` on every other change of ``result`` at or
    above ``min_severity`` (effective severity; ``never``: proofs only).
    Changes below it, and suppressed ones unless ``include_suppressed``, are
    left untouched (both None: not attempted).

    A BREAKING schema change with neither a witness nor a named reason is not
    BREAKING: it becomes POTENTIALLY_BREAKING, its note "unproven: why", and
    the result's summary, grade and verdict are worked out again.
    ``change_budget`` bounds each change's work and ``search_budget`` its
    random search (candidates checked; None: unbounded): every change has
    its own, so a change's proof never depends on what else the diff holds.
    Returns counts: witnessed, accepted_but_ignored, none_by_nature,
    not_found, cut_short, skipped, unproven, and the seconds spent."""
    if min_severity not in RANK and min_severity != "never":
        raise ValueError(f"unknown severity {min_severity!r}")
    started = time.perf_counter()
    budget = Budget(change_budget, search_budget)
    stats = _Stats(witnessed=0, accepted_but_ignored=0, none_by_nature=0, not_found=0,
                   cut_short=0, skipped=0, unproven=0)
    renames = {c.new: c.old for c in result.changes if c.rule == "tool.renamed"}
    tools = (_tools(result.old), _tools(result.new))  # looked up once, not once per change
    # a tool schema's canonical text, once per diff (per batch, while
    # ``remembered`` lasts) however many changes it has
    texts = memo("schema texts")
    texts = {} if texts is None else texts
    proofs = []
    for change in result.changes:
        proof = needs_proof(change)
        if not proof and (min_severity == "never" or RANK.get(change.severity, 0) < RANK[min_severity]
                          or (change.suppressed and not include_suppressed)):
            stats.bump("skipped")
            continue
        witness, note = witness_for(change, result.old, result.new, renames=renames,
                                    max_candidates=max_candidates,
                                    max_constructive=max_constructive, max_shrink=max_shrink,
                                    max_size=max_size, budget=budget, tools=tools, texts=texts)
        change.witness, change.witness_note = witness, note
        if proof:
            proofs.append(change)
        if witness is not None:
            stats.bump("witnessed")
        elif note.startswith("accepted but ignored"):
            stats.bump("accepted_but_ignored")
        elif note.startswith("none by nature") or note.startswith("not a schema change"):
            stats.bump("none_by_nature")
        elif "cut short" in note:
            stats.bump("cut_short")
        else:
            stats.bump("not_found")
    _borrowed(result.changes, stats)
    unproven = [c for c in proofs if evidence(c.witness, c.witness_note) == UNEXPLAINED]
    for change in unproven:
        # no lower than the catalog's own severity for the rule: a claim the
        # engine raised above it (a property added to a closed output object)
        # and could not prove falls back to what the rule says alone
        change.default_severity = min(POTENTIALLY_BREAKING, RULES[change.rule].severity, key=RANK.get)
        change.witness_note = UNPROVEN + change.witness_note
    stats["unproven"] = len(unproven)
    if unproven:
        result.settle()
    stats["seconds"] = round(time.perf_counter() - started, 6)
    return dict(stats)


def _borrowed(changes, stats):
    """A combinator's own change (a oneOf whose branches moved) that found no
    witness is shown by the witness of a change inside it, on the same side:
    that value already crosses the combinator the wrong way."""
    witnessed = [c for c in changes if c.witness is not None]
    for change in changes:
        if change.witness is not None or not change.path.endswith(("/anyOf", "/oneOf", "/allOf")) \
                or change.witness_note is None or evidence(None, change.witness_note) != UNEXPLAINED:
            continue
        inside = next((c for c in witnessed if c.path.startswith(change.path + "/")
                       and c.rule.split(".")[1] == change.rule.split(".")[1]), None)
        if inside is not None:
            stats["cut_short" if "cut short" in change.witness_note else "not_found"] -= 1
            stats["witnessed"] += 1
            change.witness = clone(inside.witness)
            change.witness_note = f"the witness of {inside.rule} at {inside.path}, inside this combinator"


def _tools(manifest):
    tools = manifest.get("tools") if isinstance(manifest, dict) else None
    return {t["name"]: t for t in tools or [] if isinstance(t, dict) and "name" in t}


def relative_parts(path: str, base: str):
    """Schema path parts below ``base`` (list indexes as ints)."""
    raw = parts_below(path, base)
    if not raw:
        return raw
    parts = []
    for i, part in enumerate(raw):
        if i and raw[i - 1] in ("prefixItems", "allOf", "anyOf", "oneOf") and part.isdigit() and (
                i < 2 or raw[i - 2] not in ("properties", "patternProperties")):
            parts.append(int(part))
        else:
            parts.append(part)
    return tuple(parts)


# (rule, schema path below the tool's schema, old and new schema text, the
# change's old and new values, limits) -> (witness, note, work): the same
# change met again (another tool, pair or server with the same schemas) is
# not worked out twice. Bounded; cut-short results are never kept.
_MEMO = {}
_MEMO_MAX = 4096


def witness_for(change, old_manifest, new_manifest, renames=None, max_candidates=200,
                max_constructive=300, max_shrink=300, max_size=10_000, change_budget=600,
                budget=None, tools=None, texts=None):
    """(witness dict or None, note or None) for one change (``tools``: both
    manifests' tools by name, when the caller has them; ``texts``: a dict
    the caller keeps for one diff, where schemas' canonical texts are
    remembered)."""
    if budget is None:
        budget = Budget(change_budget, None)
    rule = change.rule
    if not (rule.startswith("tool.input.") or rule.startswith("tool.output.")):
        return None, ("not a schema change: validation witnesses exist only for "
                      "inputSchema and outputSchema changes")
    side = "input" if rule.startswith("tool.input.") else "output"
    suffix = rule[len(f"tool.{side}."):]
    if suffix in BY_NATURE:
        return None, BY_NATURE[suffix]
    key = SIDE_KEY[side]
    entity = change.entity
    old_name = (renames or {}).get(entity, entity)
    old_tools, new_tools = tools or (_tools(old_manifest), _tools(new_manifest))
    old_tool, new_tool = old_tools.get(old_name), new_tools.get(entity)
    if old_tool is None or new_tool is None:
        return None, f"no witness: tool {entity} is missing from one of the manifests"
    rel = relative_parts(change.schema_path, pointer("tools", entity, key))
    if rel is None:
        return None, f"no witness: path {change.path} is not inside the {key} of tool {entity}"
    old_raw, new_raw = old_tool.get(key), new_tool.get(key)
    if side == "input" and new_raw is None:
        return None, ("none by nature: without an inputSchema the new tool declares no "
                      "validation, so every arguments object is accepted; what breaks is the "
                      "lost type information")
    if side == "output" and old_raw is None:
        return None, ("none by nature: without an outputSchema the old tool promised nothing "
                      "a result could violate")
    if suffix == "schema.changed":
        reason = _unvalidated(rel)
        if reason is not None:
            return None, reason
    # everything the work reads: the change's own values too (they seed the
    # candidates), since one place can hold two changes of one rule
    old_text, new_text = _text(old_raw, texts), _text(new_raw, texts)
    limits = (max_candidates, max_constructive, max_shrink, max_size)
    key = (rule, rel, old_text, new_text, canonical(change.old), canonical(change.new), *limits)
    kept = memo("witnesses")  # a batch keeps all it met; alone, the bounded memo
    kept = _MEMO if kept is None else kept
    found = kept.get(key)
    if found is not None and budget.fits(*found[2:]):
        witness, note = found[:2]
        budget.used += found[2]
        return clone(witness), note
    # the proof loads the validator (jsonschema-rs): only here, once a
    # schema change really needs a witness, not when the package is imported
    from mcpdelta.witness.prove import prove

    meter = _Meter(budget)
    witness, note = prove(change, side, suffix, rel, (old_raw, new_raw, old_text, new_text),
                          limits, meter)
    budget.used += meter.used
    if not meter.spent:  # a result a budget cut short depends on what was left: never kept
        if kept is _MEMO and len(_MEMO) >= _MEMO_MAX:
            _MEMO.clear()
        kept[key] = (clone(witness), note, meter.used, meter.searched)
    return witness, note


def _unvalidated(rel):
    """Why the net's change at ``rel`` can have no witness, if it cannot:
    the keyword there only annotates, or is no JSON Schema keyword at all."""
    keyword = keyword_at(rel)
    if keyword is None or keyword in VALIDATION:
        return None
    if keyword in ANNOTATING:
        return (f"none by nature: {keyword!r} names or annotates the schema, the same values "
                "validate")
    return (f"none by nature for a standard validator: {keyword!r} is no JSON Schema keyword, "
            "so validators ignore it; only a tool that reads it could reject a value")


def _text(raw, texts):
    return canonical(raw) if texts is None else per_object(texts, raw, canonical)
