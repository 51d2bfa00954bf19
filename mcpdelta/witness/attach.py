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
another tool, pair or server costs a lookup.

A schema change the engine calls BREAKING keeps that severity only with a
witness or a named reason (``evidence.NAMED_REASONS``); with neither it is
reported POTENTIALLY_BREAKING (or the rule's own lower severity), its note
opening "unproven: ".
"""

import copy
import time

from mcpdelta.engine.catalog import BREAKING, POTENTIALLY_BREAKING, RANK, RULES
from mcpdelta.engine.change import parts_below, pointer, short
from mcpdelta.engine.equality import canonical
from mcpdelta.engine.keywords import keyword_at
from mcpdelta.witness.evidence import UNEXPLAINED, evidence
from mcpdelta.engine.normalise import normalise_schema
from mcpdelta.engine.remember import memo
from mcpdelta.engine.policy import UNPROVEN

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
SCHEMA_RULES = ("tool.input.", "tool.output.")
LOOSE_TAIL = 24  # candidates still tried for a clean witness once a loose one is found


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
            change.witness = copy.deepcopy(inside.witness)
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
    key = (rule, rel, _text(old_raw, texts), _text(new_raw, texts), canonical(change.old),
           canonical(change.new), max_candidates, max_constructive, max_shrink, max_size)
    kept = memo("witnesses")  # a batch keeps all it met; alone, the bounded memo
    kept = _MEMO if kept is None else kept
    found = kept.get(key)
    if found is not None and budget.fits(*found[2:]):
        witness, note = found[:2]
        budget.used += found[2]
        return copy.deepcopy(witness), note
    meter = _Meter(budget)
    witness, note = _work(change, rule, side, suffix, key[0:4], old_raw, new_raw,
                          max_candidates, max_constructive, max_shrink, max_size, meter)
    budget.used += meter.used
    if not meter.spent:  # a result a budget cut short depends on what was left: never kept
        if kept is _MEMO and len(_MEMO) >= _MEMO_MAX:
            _MEMO.clear()
        kept[key] = (copy.deepcopy(witness), note, meter.used, meter.searched)
    return witness, note


def _unvalidated(rel):
    """Why the net's change at ``rel`` can have no witness, if it cannot:
    the keyword there only annotates, or is no JSON Schema keyword at all."""
    from mcpdelta.engine.keywords import ANNOTATING, VALIDATION, keyword_at

    keyword = keyword_at(rel)
    if keyword is None or keyword in VALIDATION:
        return None
    if keyword in ANNOTATING:
        return (f"none by nature: {keyword!r} names or annotates the schema, the same values "
                "validate")
    return (f"none by nature for a standard validator: {keyword!r} is no JSON Schema keyword, "
            "so validators ignore it; only a tool that reads it could reject a value")


def _text(raw, texts):
    if texts is None:
        return canonical(raw)
    hit = texts.get(id(raw))
    if hit is None or hit[0] is not raw:
        hit = texts[id(raw)] = (raw, canonical(raw))  # holding the schema keeps its id unique
    return hit[1]


_NORMALISED = {}  # schema text -> normalised schema (one tool's schema serves several changes)
_PER_PAIR = {}    # (accepting, rejecting) schema text -> quick bases
_FANCY = {}       # schema text -> holds a backtracking pattern


def _fancy(raw, text):
    from mcpdelta.witness.validate import fancy_patterns

    if '"pattern' not in text:  # no pattern or patternProperties key: no walk
        return False
    found = _FANCY.get(text)
    if found is None:
        if len(_FANCY) >= 512:
            _FANCY.clear()
        found = _FANCY[text] = fancy_patterns(raw)
    return found


def _normalised(raw, text):
    if raw is None:
        return {}
    found = _NORMALISED.get(text)
    if found is None:
        if len(_NORMALISED) >= 512:
            _NORMALISED.clear()
        found = _NORMALISED[text] = normalise_schema(raw)[0]
    return found


def _work(change, rule, side, suffix, rule_rel, old_raw, new_raw, max_candidates,
          max_constructive, max_shrink, max_size, meter):
    rel, old_text, new_text = rule_rel[1], rule_rel[2], rule_rel[3]
    key = SIDE_KEY[side]
    from mcpdelta.witness import construct, location, search, validate
    from mcpdelta.witness.undo import undone
    from mcpdelta.witness.instance import longest_string, size
    from mcpdelta.witness.validate import (
        FANCY_TEXT,
        SchemaUnusable,
        judge,
        own_judge,
        validator_label,
    )

    a_raw, r_raw = (old_raw, new_raw) if side == "input" else (new_raw, old_raw)
    kind = "rejected" if side == "input" else "accepted"
    a_text, r_text = (old_text, new_text) if side == "input" else (new_text, old_text)
    try:
        a_judge, r_judge = judge(a_raw, a_text), judge(r_raw, r_text)
        a_judge.accepts(None), r_judge.accepts(None)  # compile refs early
    except SchemaUnusable as exc:
        # no tool named: the result is remembered for any tool with these schemas
        return None, f"no witness: jsonschema-rs cannot evaluate this {key} ({exc})"
    a_n = _normalised(a_raw, a_text)
    r_n = _normalised(r_raw, r_text)
    loc = location.locate(rel, a_n, r_n, suffix, new_side="r" if side == "input" else "a")
    try:
        r_norm_judge = own_judge(r_n)
    except SchemaUnusable:
        r_norm_judge = None
    # a witness shows this change when the change is needed to reject it (the
    # rejecting side with this change alone taken back accepts it) or enough
    # (the accepting side with this change alone made rejects it); a value
    # neither holds for shows another change
    by_values = change.probe is not None
    branch = isinstance(change.old, dict) or isinstance(change.new, dict)
    back = undone(r_n, a_n, rel, suffix, by_values, branch)
    made = undone(a_n, r_n, rel, suffix, by_values, branch)
    judges = {}  # each compiled when a value first asks: most changes are shown by taking them back

    def proof_judge(schema):
        if id(schema) not in judges:
            try:
                judges[id(schema)] = own_judge(schema)
            except SchemaUnusable:
                judges[id(schema)] = None
        return judges[id(schema)]

    clock = meter.tick  # before each candidate: True once the change's budget is spent

    # backtracking patterns are never run on long texts (jsonschema-rs too)
    fancy = _fancy(a_raw, a_text) or _fancy(r_raw, r_text)

    # A combinator branch removed (input) or added (output) is shown by a
    # value of that branch: another branch's value proves another change.
    branch = None
    if loc.tail and loc.tail[-1] in location.COMBINATORS and len(loc.tail) == 1:
        moved = change.old if side == "input" else change.new
        if isinstance(moved, dict) and (change.new if side == "input" else change.old) is None:
            try:
                branch = own_judge(moved)
            except SchemaUnusable:
                branch = None

    def tier(value) -> int:
        """2: the old side accepts, the new side rejects, and every rejection
        comes from the changed keyword at the changed place (clean); 1: one
        of them does (loose); 0: no."""
        try:
            if size(value) > max_size or (fancy and longest_string(value) > FANCY_TEXT) \
                    or not a_judge.accepts(value) or r_judge.accepts(value):
                return 0
            if branch is not None and not branch.accepts(location.get(value, loc.hops)
                                                         if loc.hops else value):
                return 0
            shown = None  # None: the schemas cannot say
            back_judge = None if back is None or made is None else proof_judge(back)
            if back_judge is not None and back_judge.accepts(value):
                shown = True  # the change is needed to reject it
            elif back_judge is not None and proof_judge(made) is not None:
                shown = not proof_judge(made).accepts(value)  # or enough
                if not shown:
                    return 0  # it shows another change
        except (SchemaUnusable, ValueError, TypeError, RecursionError):
            return 0
        if r_norm_judge is None:
            return 2
        try:
            top, every = r_norm_judge.error_paths(value)
        except Exception:  # a cyclic $ref the normaliser left by name
            return 2
        if top and all(attributed(p) for p in top):
            return 2
        # shown by taking the change back or making it alone, whatever keyword
        # the errors name (a closed object's, for a property it now requires)
        return 1 if shown or any(attributed(p) for p in every) else 0

    # error paths name a number-like key ("007") by the integer it reads as;
    # a place whose name a sibling's shares that way ("7") is never credited
    attributions = [validate.as_reported(prefix) for prefix in loc.attributions
                    if not validate.ambiguous(r_n, prefix)]

    def attributed(path):
        path = validate.as_reported(path)
        return any(path[:len(prefix)] == prefix for prefix in attributions)

    varied = construct.varied_path(loc, suffix)

    def stuck(judge, value, counts=lambda path: False) -> bool:
        """Whether ``judge`` rejects ``value`` for an error (other than those
        ``counts``) that no other candidate of its group changes, so it
        rejects them all alike: the new required property a removed one's
        loose witness lacks, an old required one every candidate lacks."""
        try:
            errors = judge.top_errors(value)
        except Exception:
            return False
        return any(not counts(validate.schema_path(e)) and validate.unchanged_by(e, varied)
                   for e in errors)

    tried = 0
    found, loose = None, None
    ignored, fills_left = None, 2
    quick = _PER_PAIR.get((a_text, r_text))
    if quick is None:
        quick = construct.quick_bases(a_n, r_n, _safe(a_judge), _safe(r_judge))
        if len(_PER_PAIR) >= 512:
            _PER_PAIR.clear()
        _PER_PAIR[(a_text, r_text)] = quick
    quick = copy.deepcopy(quick)
    phases = [quick] if quick else []
    phases.append(None)  # the fuller bases, built only if the quick ones witness nothing
    if loc.branched:
        phases.append("branch")  # then bases inside the change's own union branch
    shrink_it = suffix not in location.PROPERTY_RULES  # a property witness on a quick base is minimal
    base_list = None
    for phase in phases:
        if phase is None or phase == "branch":
            shrink_it = True
            if found is not None or loose is not None or ignored is not None:
                break
            if phase is None:
                base_list = construct.bases(a_n, r_n, _safe(a_judge), _safe(r_judge), a_judge.top_errors)
            else:
                inside = construct.branch_bases(loc, quick + base_list, _safe(a_judge))
                if not inside:
                    break  # the search starts from the fuller bases
                base_list = inside
        else:
            base_list = phase
        after_loose = tried + LOOSE_TAIL
        seen, left = set(), max_constructive
        for base in base_list:
            dead, probed = set(), set()  # groups of this base given up, and looked into
            for group, candidate in construct.candidates(loc, suffix, base, left, seen=seen,
                                                          hints=(change.old, change.new), dead=dead,
                                                          probe=change.probe):
                if clock():
                    return None, _cut_short(meter, tried, 0)
                tried += 1
                left -= 1
                grade = tier(candidate)
                if grade == 2:
                    found = candidate
                    break
                if grade == 1 and loose is None:
                    # refused also for an old required property it lacks: filled in, it may show
                    # its own change alone
                    mended = construct.filled_at(candidate, loc, r_judge.top_errors)
                    if mended is not None and tier(mended) == 2:
                        found = mended
                        break
                    loose = candidate
                    after_loose = tried + LOOSE_TAIL
                    if r_norm_judge is not None and stuck(r_norm_judge, loose, attributed):
                        dead.add(group)  # no clean witness in this group; another may hold one
                elif grade == 0 and group not in probed and not _safe(a_judge)(candidate):
                    probed.add(group)
                    if stuck(a_judge, candidate):
                        dead.add(group)  # the old side rejects every candidate of this group
                if loose is not None and tried >= after_loose:
                    break  # a clean witness seldom comes late; the loose one stands
                if ignored is None and suffix == "property.removed" and _present(candidate, loc) \
                        and _safe(a_judge)(candidate):
                    if _safe(r_judge)(candidate):
                        ignored = candidate
                    elif fills_left > 0:  # the new side may want its new required ones beside it
                        fills_left -= 1
                        filled = construct.completed_at(candidate, loc, r_judge.top_errors)
                        if filled is not None and _safe(a_judge)(filled) and _safe(r_judge)(filled):
                            ignored = filled
            if found is not None or left <= 0 or (loose is not None and tried >= after_loose):
                break
        if found is not None:
            break
    if found is None and loose is None and ('"format"' in a_text or '"format"' in r_text):
        # before the search: a change only a format tells apart has no witness to find
        shown = _without_formats(loc, suffix, a_raw, a_text, r_raw, r_text, quick, change, clock)
        if shown is not None:
            return None, (f"format-only: {short(shown)} shows the change only where `format` is "
                          "read as an annotation (the 2020-12 default); a validator that asserts "
                          "formats takes it on neither side or on both")
    searched = 0
    if found is None and loose is None and not (
            side == "input" and suffix == "property.removed" and ignored is not None):
        if meter.search_limit is not None and meter.search_limit <= 0:
            meter.spent.append("search")  # cut short, so never remembered
            return None, _cut_short(meter, tried, 0, search=True)
        shrink_it = True
        seed = search.seed_for(rule, list(rel), a_n, r_n)  # no tool name: memoised results stay the same
        starts = base_list if base_list is not None else quick or [None]
        clean, searched = search.search(lambda v: tier(v) == 2, a_n, r_n, starts, seed,
                                        max_candidates, meter.search_tick)
        found = clean
        if found is None and meter.spent:
            return None, _cut_short(meter, tried, searched, search="search" in meter.spent)
    need = 2
    if found is None and loose is not None:
        found, need = loose, 1
    if found is None:
        name = str(rel[-1]) if rel else ""
        if suffix == "schema.changed":
            return None, (f"unmodelled keyword {keyword_at(rel)!r}: reported because the engine "
                          "does not model it (unmodelled means breaking); no value showing the "
                          f"change was found within the bounds ({tried} constructed and "
                          f"{searched} searched candidates)")
        if suffix == "property.removed" and side == "input" and ignored is not None:
            return None, (f"accepted but ignored: the new inputSchema still accepts {name!r} as an "
                          "unknown key, so old calls that send it validate and the value is "
                          "silently dropped; no validation witness exists")
        if suffix == "property.removed" and side == "output":
            return None, (f"no witness: every result the new schema accepts, the old one "
                          f"accepted ({name!r} was optional); consumers that read it now find it "
                          "missing")
        if change.default_severity == "NON_BREAKING":
            direction = ("every arguments object the old schema accepts, the new one accepts"
                         if side == "input" else
                         "every result the new schema accepts, the old one accepted")
            return None, f"none by nature: {direction} ({tried + searched} candidates checked)"
        return None, (f"no witness found within the bounds: {tried} constructed and {searched} "
                      "searched candidates, none confirmed by the validator")

    def oracle(value) -> bool:
        return tier(value) >= need

    if shrink_it and need == 2:  # a loose witness is kept as built: shrinking adds stray errors
        found = search.shrink(found, oracle, max_shrink, clock)
    return {"kind": kind, "value": _sorted(found),
            "validator": validator_label(a_judge, r_judge)}, None


def _cut_short(meter, tried, searched, search=False) -> str:
    budget = meter.budget
    if search:
        what = f"the per-change search budget of {budget.search} candidates"
    else:
        what = f"the per-change budget of {budget.change} candidates"
    return (f"no witness: cut short, {what} was spent ({tried} constructed and {searched} "
            "searched candidates tried, none confirmed)")


def _without_formats(loc, suffix, a_raw, a_text, r_raw, r_text, bases, change, clock):
    """A candidate that shows the change once ``format`` asserts nothing, or
    None: the constructive candidates again, judged with formats off."""
    from mcpdelta.witness import construct
    from mcpdelta.witness.validate import SchemaUnusable, judge

    try:
        a_judge, r_judge = judge(a_raw, a_text, formats=False), judge(r_raw, r_text, formats=False)
    except SchemaUnusable:
        return None
    for base in bases or [None]:
        for _, candidate in construct.candidates(loc, suffix, base, 100,
                                                 hints=(change.old, change.new)):
            if clock():
                return None
            if _safe(a_judge)(candidate) and not _safe(r_judge)(candidate):
                return candidate
    return None


def _safe(j):
    def accepts(value):
        try:
            return j.accepts(value)
        except Exception:  # SchemaUnusable
            return False
    return accepts


def _present(candidate, loc):
    from mcpdelta.witness import location

    name = str(loc.tail[1]) if len(loc.tail) > 1 else None
    holder = location.get(candidate, loc.hops) if loc.hops else candidate
    return isinstance(holder, dict) and name in holder


def _sorted(value):
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted(v) for v in value]
    return copy.deepcopy(value)
