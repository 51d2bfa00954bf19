"""Witnesses for the changes of one diff: orchestration.

For an input change the witness is an arguments object the old
``inputSchema`` accepts and the new one rejects (``kind: "rejected"``); for
an output change, a result the new ``outputSchema`` accepts and the old one
rejects (``kind: "accepted"``). The value is always a whole arguments /
result object, confirmed by ``jsonschema-rs`` on the raw schemas, and
attributable to the change: the rejecting side's errors include one at the
changed place. Construction first, then a seeded search; the winner is
shrunk. Severities are never read back from witnesses.
"""

import copy
import time

from pipeline.engine.catalog import RANK, RULES
from pipeline.engine.normalise import normalise_schema

# construct / search / instance / validate import the validator (jsonschema-rs):
# they load inside witness_for, only when a schema change really needs a witness.

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


class _Stats(dict):
    def bump(self, key):
        self[key] = self.get(key, 0) + 1


def attach_witnesses(result, min_severity="BREAKING", max_candidates=200, max_constructive=300,
                     max_shrink=300, max_size=10_000, time_budget_s=None,
                     include_suppressed=False) -> dict:
    """Set ``witness`` / ``witness_note`` on every change of ``result`` at or
    above ``min_severity`` (effective severity). Changes below it, and
    suppressed ones unless ``include_suppressed``, are left untouched (both
    None: not attempted). Returns counts: witnessed, accepted_but_ignored,
    none_by_nature, not_found, skipped, and the seconds spent."""
    if min_severity not in RANK:
        raise ValueError(f"unknown severity {min_severity!r}")
    started = time.perf_counter()
    stats = _Stats(witnessed=0, accepted_but_ignored=0, none_by_nature=0, not_found=0, skipped=0)
    renames = {c.new: c.old for c in result.changes if c.rule == "tool.renamed"}
    for change in result.changes:
        if RANK.get(change.severity, 0) < RANK[min_severity] or (
                change.suppressed and not include_suppressed):
            stats.bump("skipped")
            continue
        witness, note = witness_for(change, result.old, result.new, renames=renames,
                                    max_candidates=max_candidates,
                                    max_constructive=max_constructive, max_shrink=max_shrink,
                                    max_size=max_size, time_budget_s=time_budget_s)
        change.witness, change.witness_note = witness, note
        if witness is not None:
            stats.bump("witnessed")
        elif note.startswith("accepted but ignored"):
            stats.bump("accepted_but_ignored")
        elif note.startswith("none by nature") or note.startswith("not a schema change"):
            stats.bump("none_by_nature")
        else:
            stats.bump("not_found")
    stats["seconds"] = round(time.perf_counter() - started, 6)
    return dict(stats)


def _tools(manifest):
    tools = manifest.get("tools") if isinstance(manifest, dict) else None
    return {t["name"]: t for t in tools or [] if isinstance(t, dict) and "name" in t}


def _unescape(part):
    return part.replace("~1", "/").replace("~0", "~")


def relative_parts(path: str, base: str):
    """Schema path parts below ``base`` (list indexes as ints)."""
    if path == base:
        return ()
    if not path.startswith(base + "/"):
        return None
    raw = [_unescape(p) for p in path[len(base) + 1:].split("/")]
    parts = []
    for i, part in enumerate(raw):
        if i and raw[i - 1] in ("prefixItems", "allOf", "anyOf", "oneOf") and part.isdigit() and (
                i < 2 or raw[i - 2] not in ("properties", "patternProperties")):
            parts.append(int(part))
        else:
            parts.append(part)
    return tuple(parts)


def witness_for(change, old_manifest, new_manifest, renames=None, max_candidates=200,
                max_constructive=300, max_shrink=300, max_size=10_000, time_budget_s=None):
    """(witness dict or None, note or None) for one change."""
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
    old_tool, new_tool = _tools(old_manifest).get(old_name), _tools(new_manifest).get(entity)
    if old_tool is None or new_tool is None:
        return None, f"no witness: tool {entity} is missing from one of the manifests"
    from pipeline.engine.change import pointer

    rel = relative_parts(change.path, pointer("tools", entity, key))
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
    from pipeline.witness import construct, search
    from pipeline.witness.instance import size
    from pipeline.witness.validate import SchemaUnusable, judge, validator_label

    a_raw, r_raw = (old_raw, new_raw) if side == "input" else (new_raw, old_raw)
    kind = "rejected" if side == "input" else "accepted"
    try:
        a_judge, r_judge = judge(a_raw), judge(r_raw)
        a_judge.accepts(None), r_judge.accepts(None)  # compile refs early
    except SchemaUnusable as exc:
        return None, f"no witness: jsonschema-rs cannot evaluate a {key} of tool {entity} ({exc})"
    a_n = normalise_schema(a_raw)[0] if a_raw is not None else {}
    r_n = normalise_schema(r_raw)[0] if r_raw is not None else {}
    loc = construct.locate(rel, a_n, r_n, suffix)
    try:
        r_norm_judge = judge(r_n)
    except SchemaUnusable:
        r_norm_judge = None
    deadline = None if time_budget_s is None else time.perf_counter() + time_budget_s

    def clock():
        return deadline is not None and time.perf_counter() > deadline

    def tier(value) -> int:
        """2: the old side accepts, the new side rejects, and every rejection
        is at the changed place (clean); 1: one of them is (loose); 0: no."""
        try:
            if size(value) > max_size or not a_judge.accepts(value) or r_judge.accepts(value):
                return 0
        except (SchemaUnusable, ValueError, TypeError, RecursionError):
            return 0
        if r_norm_judge is None:
            return 2
        try:
            top, every = r_norm_judge.error_paths(value)
        except Exception:  # a cyclic $ref the normaliser left by name
            return 2
        def attributed(path):
            return any(path[:len(prefix)] == prefix for prefix in loc.attributions)

        if top and all(attributed(p) for p in top):
            return 2
        return 1 if any(attributed(p) for p in every) else 0

    tried = 0
    found, loose = None, None
    ignored = None
    base_list = construct.bases(a_n, r_n, _safe(a_judge), _safe(r_judge))
    for candidate in construct.candidates(loc, suffix, base_list, max_constructive,
                                           hints=(change.old, change.new)):
        tried += 1
        grade = tier(candidate)
        if grade == 2:
            found = candidate
            break
        if grade == 1 and loose is None:
            loose = candidate
        if ignored is None and suffix == "property.removed" and _present(candidate, loc) \
                and _safe(a_judge)(candidate) and _safe(r_judge)(candidate):
            ignored = candidate
        if clock():
            return None, f"no witness: time budget of {time_budget_s}s spent ({tried} candidates)"
    searched = 0
    if found is None and not (side == "input" and suffix == "property.removed" and ignored is not None):
        seed = search.seed_for(rule, change.path, a_n, r_n)
        clean, searched = search.search(lambda v: tier(v) == 2, a_n, r_n, base_list, seed,
                                        max_candidates, clock)
        found = clean
    need = 2
    if found is None and loose is not None:
        found, need = loose, 1
    if found is None:
        name = str(rel[-1]) if rel else ""
        if name.startswith("x-"):
            return None, (f"none by nature for a standard validator: {name!r} is a vendor keyword "
                          "jsonschema-rs ignores; only a validator that implements it could reject "
                          "a value")
        if suffix == "property.removed" and side == "input" and ignored is not None:
            return None, (f"accepted but ignored: the new inputSchema still accepts {name!r} as an "
                          "unknown key, so old calls that send it validate and the value is "
                          "silently dropped; no validation witness exists")
        if suffix == "property.removed" and side == "output":
            return None, (f"none by nature: results without {name!r} validate under both schemas "
                          "and the new schema gives it no other shape; consumers that read it "
                          "find it missing")
        if RULES[rule].severity == "NON_BREAKING":
            direction = ("every arguments object the old schema accepts, the new one accepts"
                         if side == "input" else
                         "every result the new schema accepts, the old one accepted")
            return None, f"none by nature: {direction} ({tried + searched} candidates checked)"
        return None, (f"no witness found within the bounds: {tried} constructed and {searched} "
                      "searched candidates, none confirmed by the validator")

    def oracle(value) -> bool:
        return tier(value) >= need

    found = search.shrink(found, oracle, max_shrink, clock)
    return {"kind": kind, "value": _sorted(found),
            "validator": validator_label(a_judge, r_judge)}, None


def _safe(j):
    def accepts(value):
        try:
            return j.accepts(value)
        except Exception:  # SchemaUnusable
            return False
    return accepts


def _present(candidate, loc):
    from pipeline.witness import construct

    name = str(loc.tail[1]) if len(loc.tail) > 1 else None
    holder = construct.get(candidate, loc.hops) if loc.hops else candidate
    return isinstance(holder, dict) and name in holder


def _sorted(value):
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted(v) for v in value]
    return copy.deepcopy(value)
