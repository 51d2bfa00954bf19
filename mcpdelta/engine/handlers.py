"""The keyword handlers of the structured walk: one per modelled keyword.

Each takes (walk, old node, new node, path parts), emits named changes
through ``walk.emit`` and claims the places it explains; whatever no handler
explains, the completeness net reports. ``HANDLERS`` maps each handler to
the keywords it models: adding a keyword is adding a row.
"""

from mcpdelta.engine import prose
from mcpdelta.engine.catalog import BREAKING
from mcpdelta.engine.change import short
from mcpdelta.engine.equality import canonical, json_key, same
from mcpdelta.engine.keywords import ANNOTATING
from mcpdelta.engine.meaning import (
    apart,
    covers,
    enum_list,
    listed_types,
    of_types,
    pair_branches,
    takes,
    type_set,
    value_keys,
)
from mcpdelta.engine.net import MISSING
from mcpdelta.engine.values import binding_bound


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _type(w, old, new, rel):
    a, b = old.get("type", MISSING), new.get("type", MISSING)
    sa, sb = type_set(a), type_set(b)
    if same(a, b) or sa is False or sb is False:
        return
    if enum_list(old) is not None and enum_list(new) is not None:
        w.claims.append(rel + ("type",))  # both sides list their values: _enum compares what passes
        return
    # a side with no type that lists its values has the types of those values
    sa = listed_types(old) if sa is None else sa
    sb = listed_types(new) if sb is None else sb
    grows, shrinks = covers(sb, sa), covers(sa, sb)
    if grows and shrinks:
        w.claims.append(rel + ("type",))  # the same set, spelled differently
        return
    kind = "type.widened" if grows else "type.narrowed" if shrinks else "type.changed"
    w.emit(kind, rel + ("type",), a, b)


def _enum(w, old, new, rel):
    """``enum`` and ``const`` (a list of one): the values each side allows."""
    if ("const" in old and "enum" in old) or ("const" in new and "enum" in new):
        return  # both at once: the net reports what moved
    a = enum_list(old) if ("enum" in old or "const" in old) else MISSING
    b = enum_list(new) if ("enum" in new or "const" in new) else MISSING
    both = isinstance(a, list) and isinstance(b, list)
    if (same(a, b) and (not both or same(old.get("type"), new.get("type")))) or a is None or b is None:
        if both and same(a, b):
            w.claims += [rel + ("enum",), rel + ("const",)]  # one value, spelled either way
        return
    keyword = "const" if "const" in (new if b is not MISSING else old) else "enum"
    path = rel + (keyword,)
    if a is MISSING:
        w.emit("enum.narrowed", path, a, b, detail="values outside " + canonical(b))
        return
    if b is MISSING:
        w.emit("enum.widened", path, a, b, detail="any value")
        return
    # the values each side accepts: listed, and of a type the node allows
    # (one removed value is one change, whichever keyword removed it)
    kinds_a, kinds_b = type_set(old.get("type", MISSING)), type_set(new.get("type", MISSING))
    a = [v for v in a if kinds_a is False or of_types(v, kinds_a)]
    b = [v for v in b if kinds_b is False or of_types(v, kinds_b)]
    keep = {json_key(v) for v in b}
    had = {json_key(v) for v in a}
    removed = [v for v in a if json_key(v) not in keep]
    added = [v for v in b if json_key(v) not in had]
    old_enum, new_enum = old.get("enum", old.get("const")), new.get("enum", new.get("const"))
    if removed:
        w.emit("enum.narrowed", path, old_enum, new_enum, detail=canonical(removed))
    if added:
        w.emit("enum.widened", path, old_enum, new_enum, detail=canonical(added))
    w.claims += [rel + ("enum",), rel + ("const",)]


ORDERLESS = ("pattern", "format", "multipleOf", "$ref")


def _orderless(w, old, new, rel):
    """Constraints with no order between values: added tightens, removed
    loosens, changed is not comparable."""
    for key in ORDERLESS:
        a, b = old.get(key, MISSING), new.get(key, MISSING)
        if same(a, b):
            continue
        if a is MISSING:
            w.emit("constraint.tightened", rel + (key,), a, b, detail=key)
        elif b is MISSING:
            w.emit("constraint.loosened", rel + (key,), a, b, detail=key)
        elif key == "pattern" and isinstance(a, str) and isinstance(b, str):
            _pattern(w, rel, a, b)
        else:
            w.emit("constraint.changed", rel + (key,), a, b, detail=key)


def _pattern(w, rel, a, b):
    """Two patterns compared as the strings they match (``regex.compare``):
    a pattern that matches more is a loosening, fewer a tightening, the same
    strings no change; where that cannot be said, a change."""
    from mcpdelta.engine import regex

    kind = regex.compare(a, b)
    if kind == "same":
        w.claims.append(rel + ("pattern",))
        return
    rule = {"wider": "constraint.loosened", "narrower": "constraint.tightened"}.get(
        kind, "constraint.changed")
    w.emit(rule, rel + ("pattern",), a, b, detail="pattern")


LOWER_BOUNDS = ("minLength", "minItems", "minProperties", "minContains")


UPPER_BOUNDS = ("maxLength", "maxItems", "maxProperties", "maxContains")


# (inclusive, exclusive, is a lower bound): one numeric bound, spelled either way
NUMERIC_BOUNDS = (("minimum", "exclusiveMinimum", True), ("maximum", "exclusiveMaximum", False))


def _bounds(w, old, new, rel):
    for key in LOWER_BOUNDS + UPPER_BOUNDS:
        a, b = old.get(key, MISSING), new.get(key, MISSING)
        if same(a, b) or (a is not MISSING and not _is_number(a)) or (
                b is not MISSING and not _is_number(b)):
            continue
        if a is MISSING or b is MISSING:
            inward = a is MISSING
        else:
            inward = (b > a) if key in LOWER_BOUNDS else (b < a)
        if key == "minLength" and _pattern_reaches(old if inward else new, a if inward else b,
                                                   b if inward else a):
            w.claims.append(rel + (key,))  # the pattern held strings to that length already
            continue
        w.emit("constraint.tightened" if inward else "constraint.loosened", rel + (key,), a, b,
               detail=key)
    for inclusive, exclusive, lower in NUMERIC_BOUNDS:
        _numeric_bound(w, old, new, rel, inclusive, exclusive, lower)


def _pattern_reaches(wider, low, high) -> bool:
    """Does the wider side's own ``pattern`` already keep every string it
    takes at ``high`` characters or more (so moving ``minLength`` from
    ``low`` to ``high`` changes nothing)?"""
    from mcpdelta.engine import regex

    pattern = wider.get("pattern")
    if not isinstance(pattern, str) or not _is_number(high):
        return False
    least = regex.shortest(pattern)
    return least is not None and least >= high


def _numeric_bound(w, old, new, rel, inclusive, exclusive, lower):
    a = binding_bound(old, inclusive, exclusive, lower)
    b = binding_bound(new, inclusive, exclusive, lower)
    if a is False or b is False or (a is None and b is None):
        return
    if a is not None and b is not None and (a[0], a[1]) == (b[0], b[1]):
        if (old.get(inclusive), old.get(exclusive)) != (new.get(inclusive), new.get(exclusive)):
            w.claims += [rel + (inclusive,), rel + (exclusive,)]  # the same bound, respelled
        return
    if a is None or b is None:
        inward = a is None
    elif lower:
        inward = b[0] > a[0] or (b[0] == a[0] and b[1])
    else:
        inward = b[0] < a[0] or (b[0] == a[0] and b[1])
    key = (b or a)[2]
    w.claims += [rel + (inclusive,), rel + (exclusive,)]
    if a is not None and b is not None and a[2] != b[2]:
        # inclusive <-> exclusive: name each keyword with its value
        before, after = {a[2]: a[0]}, {b[2]: b[0]}
    else:
        before = MISSING if a is None else a[0]
        after = MISSING if b is None else b[0]
    w.emit("constraint.tightened" if inward else "constraint.loosened", rel + (key,),
           before, after, detail=key)


def _unique_items(w, old, new, rel):
    a, b = old.get("uniqueItems", MISSING), new.get("uniqueItems", MISSING)
    if a is True and b is MISSING:
        w.emit("constraint.loosened", rel + ("uniqueItems",), a, b, detail="uniqueItems")
    elif b is True and a is MISSING:
        w.emit("constraint.tightened", rel + ("uniqueItems",), a, b, detail="uniqueItems")


def _names(value):
    return {n for n in value if isinstance(n, str)} if isinstance(value, list) else set()


def _object_members(w, old, new, rel):
    """``properties`` and ``required`` together: a new property that is
    required at once is one change, not two."""
    a, b = old.get("properties", {}), new.get("properties", {})
    req_a, req_b = _names(old.get("required")), _names(new.get("required"))
    if isinstance(a, dict) and isinstance(b, dict):
        for name in sorted(a.keys() | b.keys()):
            path = rel + ("properties", name)
            if name not in b:
                w.emit("property.removed", path, a[name], MISSING)
            elif name not in a:
                # a result carrying a new property that the old output object
                # refused (closed, or held to another schema) breaks consumers
                # validating with the old schema, required or not
                refused = w.prefix == "tool.output." and _refuses(old, name, b[name])
                w.emit("property.addedRequired" if name in req_b else "property.added",
                       path, MISSING, b[name], severity=BREAKING if refused else None)
            else:
                w.node(a[name], b[name], path)
    else:
        a, b = {}, {}
    for name in sorted(req_a ^ req_b):
        path = rel + ("properties", name)
        if name in req_b:
            if name not in a and name in b:
                continue  # reported as property.addedRequired
            w.emit("required.added", path, False, True)
        else:
            if name in a and name not in b:
                continue  # reported as property.removed
            w.emit("required.removed", path, True, False)
    if ("properties" in old) != ("properties" in new) and isinstance(old.get("properties", {}), dict) \
            and isinstance(new.get("properties", {}), dict):
        # every property was added or removed whole (a value that is no
        # object of properties is the net's to report)
        w.claims.append(rel + ("properties",))
    if req_a != req_b or not same(old.get("required"), new.get("required")):
        if isinstance(old.get("required", []), list) and isinstance(new.get("required", []), list):
            w.claims.append(rel + ("required",))


def _refuses(node, name, schema) -> bool:
    """Does object schema ``node`` refuse some value of ``schema`` under the
    undeclared property ``name``? (additionalProperties false, or a schema
    there that is not shown to take it; a patternProperties entry that may
    match the name governs it instead.)"""
    from mcpdelta.engine import regex

    patterns = node.get("patternProperties")
    if isinstance(patterns, dict) and any(regex.matches(p, name) is not False for p in patterns):
        return False
    extra = node.get("additionalProperties", True)
    if extra is False:
        return True
    return isinstance(extra, dict) and not takes(extra, schema)


def _property_names(w, old, new, rel):
    """``propertyNames``: the keys an object may have, a string schema;
    fewer keys accepted narrows the objects accepted."""
    a, b = old.get("propertyNames", MISSING), new.get("propertyNames", MISSING)
    path = rel + ("propertyNames",)
    if same(a, b) or (a is not MISSING and not isinstance(a, dict)) or (
            b is not MISSING and not isinstance(b, dict)):
        return
    if a is MISSING:
        w.emit("constraint.tightened", path, a, b, detail="propertyNames")
    elif b is MISSING:
        w.emit("constraint.loosened", path, a, b, detail="propertyNames")
    else:
        # keys are strings: each side read as the strings it names
        typed = "type" not in a and "type" not in b
        w.node({"type": "string", **a} if typed else a, {"type": "string", **b} if typed else b, path)


def _dependent_required(w, old, new, rel):
    """``dependentRequired`` (draft-07's array-form ``dependencies`` is
    respelled so by the normaliser): a property that, once present, needs
    others. A dependency the object requires anyway constrains nothing, so
    each property's other dependencies are compared as sets: one gained
    narrows the objects accepted, one lost widens them."""
    a, b = _dependencies(old), _dependencies(new)
    path = rel + ("dependentRequired",)
    if a is None or b is None:
        return  # not a map of name lists: the net's
    req_a, req_b = _names(old.get("required")), _names(new.get("required"))
    for name in sorted(a.keys() | b.keys()):
        was, now = a.get(name, set()), b.get(name, set())
        # a need the other side requires outright is no difference of values
        if now - was - req_a:
            w.emit("constraint.tightened", path + (name,), sorted(was) or MISSING, sorted(now),
                   detail=f"dependentRequired {name!r}")
        if was - now - req_b:
            w.emit("constraint.loosened", path + (name,), sorted(was), sorted(now) or MISSING,
                   detail=f"dependentRequired {name!r}")
    w.claims.append(path)


def _dependencies(node):
    """{property: the properties it needs that the object does not list as
    required anyway}, only those needing some; None where the keyword is not
    a map of name lists."""
    found = node.get("dependentRequired", {})
    if not isinstance(found, dict) or not all(
            isinstance(v, list) and all(isinstance(n, str) for n in v) for v in found.values()):
        return None
    required = _names(node.get("required"))
    return {name: set(needs) - required - {name} for name, needs in found.items()
            if set(needs) - required - {name}}


def _openness(key):
    """``additionalProperties`` / ``items``: absent is open, false is closed,
    a schema constrains; open > schema > closed."""
    def handler(w, old, new, rel):
        a, b = old.get(key, MISSING), new.get(key, MISSING)
        path = rel + (key,)
        rank = {True: 2, False: 0}
        ra = 2 if a is MISSING else 1 if isinstance(a, dict) else rank.get(a) if isinstance(a, bool) else None
        rb = 2 if b is MISSING else 1 if isinstance(b, dict) else rank.get(b) if isinstance(b, bool) else None
        if ra is None or rb is None:
            return
        if {ra, rb} == {1, 2} and _annotates_only(a if ra == 1 else b):
            # ``{}`` gaining (or losing) only a title or a description: as
            # open as absent, so no bound moved; the annotations are compared
            w.claims.append(path)
            w.compare(a if ra == 1 else {}, b if rb == 1 else {}, path)
        elif ra == rb == 1:
            w.node(a, b, path)
        elif rb < ra:
            w.emit("constraint.tightened", path, a, b, detail=key, holder=True)
        elif rb > ra:
            w.emit("constraint.loosened", path, a, b, detail=key, holder=True)
    return handler


def _annotates_only(schema) -> bool:
    """A schema object whose keywords only name or annotate: it takes every value."""
    return ANNOTATING.issuperset(schema)


def _pattern_properties(w, old, new, rel):
    a, b = old.get("patternProperties", {}), new.get("patternProperties", {})
    if not isinstance(a, dict) or not isinstance(b, dict):
        return
    for pattern in sorted(a.keys() | b.keys()):
        path = rel + ("patternProperties", pattern)
        if pattern not in b:
            w.emit("constraint.loosened", path, a[pattern], MISSING, detail="patternProperties")
        elif pattern not in a:
            w.emit("constraint.tightened", path, MISSING, b[pattern], detail="patternProperties")
        else:
            w.node(a[pattern], b[pattern], path)


def _prefix_items(w, old, new, rel):
    a, b = old.get("prefixItems", []), new.get("prefixItems", [])
    if not isinstance(a, list) or not isinstance(b, list):
        return
    for i in range(max(len(a), len(b))):
        path = rel + ("prefixItems", i)
        if i >= len(b):
            w.emit("constraint.loosened", path, a[i], MISSING, detail="prefixItems")
        elif i >= len(a):
            w.emit("constraint.tightened", path, MISSING, b[i], detail="prefixItems")
        else:
            w.node(a[i], b[i], path)
    if len(a) != len(b):
        w.claims.append(rel + ("prefixItems",))


def _combinators(w, old, new, rel):
    """allOf: a branch added tightens. anyOf: a branch removed tightens.
    Branches are paired first as written, then by meaning (a branch
    respelled or re-annotated), then one left on each side with each other;
    a pair is compared inside, walk and net both. oneOf is orderable like
    anyOf only where a branch added or removed shares no type with the
    others (no value can match two); otherwise a moved oneOf is not, unless
    the swap only touched prose. An anyOf that became a oneOf (or back)
    whose branches no value can match twice is one combinator respelled:
    its branches are compared, under the new side's keyword."""
    old = _respelled(w, old, new, rel)
    for key in ("allOf", "anyOf", "oneOf"):
        a, b = old.get(key, MISSING), new.get(key, MISSING)
        path = rel + (key,)
        if same(a, b) or (a is not MISSING and not isinstance(a, list)) or (
                b is not MISSING and not isinstance(b, list)):
            continue
        if a is MISSING or b is MISSING:
            # the keyword itself appeared (a new requirement) or went away
            kind = "constraint.tightened" if a is MISSING else "constraint.loosened"
            w.emit("constraint.changed" if key == "oneOf" else kind, path, a, b, detail=key)
            continue
        have = {json_key(x) for x in b}
        had = {json_key(x) for x in a}
        removed = [x for x in a if json_key(x) not in have]
        added = [x for x in b if json_key(x) not in had]
        pairs = pair_branches(removed, added, w.equivalent)
        first = len(w.changes)
        for before, after in pairs:
            mine = len(w.changes)
            w.compare(before, after, path + (_position(b, after),))
            if key == "anyOf":
                _absorbed(w, mine, a, b, before, after)
        if key == "anyOf" or (key == "oneOf" and apart(a, a) and apart(b, b)):
            # a branch whose values another branch of the other side takes
            # moved nothing in or out (for a oneOf, where no value matches
            # two branches of either side)
            removed = [x for x in removed if not any(takes(y, x, declared=True) for y in b)]
            added = [x for x in added if not any(takes(y, x, declared=True) for y in a)]
        if key == "oneOf" and (
                (any(not c.rule.endswith(PROSE_ONLY) for c in w.changes[first:]) and not (
                    apart(b, b) and apart(a, a)))
                or not apart(added, b) or not apart(removed, a)):
            w.emit("constraint.changed", path, a, b, detail="oneOf")
        else:
            grow = "constraint.tightened" if key == "allOf" else "constraint.loosened"
            shrink = "constraint.loosened" if key == "allOf" else "constraint.tightened"
            for branch in added:
                w.emit(grow, path, MISSING, branch, detail=f"{key} branch added")
            for branch in removed:
                w.emit(shrink, path, branch, MISSING, detail=f"{key} branch removed")
                if key == "allOf" and (_closes_unevaluated(old) or _closes_unevaluated(new)):
                    # what the branch declared is unevaluated now, and refused
                    w.emit(grow, path, branch, MISSING, detail="allOf branch removed (what it declared is unevaluated now)")
        w.claims.append(path)


def _absorbed(w, first, a, b, before, after):
    """An anyOf branch changed (``before`` -> ``after``) whose break another
    branch absorbs: on the input side another new branch takes every value
    ``before`` took, on the output side another old branch takes every
    result ``after`` gives. The union then lost (input) or gained (output)
    no value there, and the pair's changes that claim so are dropped."""
    if w.prefix == "tool.input.":
        holds, others, claims = before, [y for y in b if y is not after], LOSES_VALUES
    else:
        holds, others, claims = after, [y for y in a if y is not before], GAINS_VALUES
    if any(takes(y, holds, declared=True) for y in others):
        w.changes[first:] = [c for c in w.changes[first:] if c.rule[len(w.prefix):] not in claims]


# Value rules by the direction they claim the accepted values moved.
DIRECTION = {
    "type.narrowed": "narrower", "enum.narrowed": "narrower", "constraint.tightened": "narrower",
    "type.widened": "wider", "enum.widened": "wider", "constraint.loosened": "wider",
    "type.changed": "changed", "constraint.changed": "changed",
}
# Rules that claim a value lost (on the input side) or gained (output): the
# value rules of that direction and the object rules that move values.
LOSES_VALUES = frozenset({r for r, way in DIRECTION.items() if way == "narrower"}
                         | {"required.added", "property.addedRequired", "property.removed"})
GAINS_VALUES = frozenset({r for r, way in DIRECTION.items() if way == "wider"}
                         | {"required.removed", "property.removed"})


def _closes_unevaluated(node) -> bool:
    """Whether ``node`` refuses what no subschema of it evaluated: its
    ``unevaluatedProperties`` or ``unevaluatedItems`` is more than ``true``
    (these read the annotations of every ``allOf`` branch)."""
    return any(node.get(key, True) not in (True, {}) for key in ("unevaluatedProperties", "unevaluatedItems"))


def _respelled(w, old, new, rel):
    """``old`` with its anyOf / oneOf under the key ``new`` uses, when one
    side has each and the oneOf's branches are apart (then they mean the
    same); the old keyword's place is claimed."""
    for was, now in (("anyOf", "oneOf"), ("oneOf", "anyOf")):
        if was in old and now in new and now not in old and was not in new \
                and isinstance(old[was], list) and isinstance(new[now], list):
            branches = old[was] if was == "oneOf" else new[now]
            if apart(branches, branches):
                w.claims.append(rel + (was,))
                return {**{k: v for k, v in old.items() if k != was}, now: old[was]}
    return old


PROSE_ONLY = (".description.changed",)


def _position(members, member) -> int:
    """The index of ``member`` itself (``list.index`` would take a true for a 1)."""
    return next(i for i, m in enumerate(members) if m is member)


def _default(w, old, new, rel):
    a, b = old.get("default", MISSING), new.get("default", MISSING)
    if same(a, b):
        return
    # worded apart: a removed ``default: null`` and a changed one render alike as values
    if a is MISSING:
        detail = f"was added ({short(b)})"
    elif b is MISSING:
        detail = f"was removed (it was {short(a)})"
    else:
        detail = f"changed from {short(a)} to {short(b)}"
    w.emit("default.changed", rel + ("default",), a, b, detail=detail)


def _deprecated(w, old, new, rel):
    a, b = old.get("deprecated", MISSING), new.get("deprecated", MISSING)
    if b is True and a is MISSING:
        w.emit("deprecated.added", rel + ("deprecated",), a, b)
    elif a is True and b is MISSING:
        w.emit("deprecated.removed", rel + ("deprecated",), a, b)


def _prose(w, old, new, rel):
    for key in ("description", "title"):
        a, b = old.get(key), new.get(key)
        if same(a, b) or not isinstance(a, (str, type(None))) or not isinstance(b, (str, type(None))):
            continue
        severity, reason = prose.classify(a, b)
        w.emit("description.changed", rel + (key,), old.get(key, MISSING), new.get(key, MISSING),
               detail=f"{key} ({reason})", severity=severity)


def _header(w, old, new, rel):
    a, b = old.get("x-mcp-header", MISSING), new.get("x-mcp-header", MISSING)
    if not same(a, b):
        w.emit("header.changed", rel + ("x-mcp-header",), a, b)


# (handler, the keywords it models). Adding a keyword is adding a row.
HANDLERS = (
    (_type, {"type"}),
    (_enum, {"enum", "const"}),
    (_orderless, set(ORDERLESS)),
    (_bounds, set(LOWER_BOUNDS + UPPER_BOUNDS) | {k for b in NUMERIC_BOUNDS for k in b[:2]}),
    (_unique_items, {"uniqueItems"}),
    (_object_members, {"properties", "required"}),
    (_openness("additionalProperties"), {"additionalProperties"}),
    (_openness("items"), {"items"}),
    (_pattern_properties, {"patternProperties"}),
    (_property_names, {"propertyNames"}),
    (_dependent_required, {"dependentRequired"}),
    (_prefix_items, {"prefixItems"}),
    (_combinators, {"allOf", "anyOf", "oneOf"}),
    (_default, {"default"}),
    (_deprecated, {"deprecated"}),
    (_prose, {"description", "title"}),
    (_header, {"x-mcp-header"}),
)

# every keyword a handler models
HANDLED = frozenset(k for _, keys in HANDLERS for k in keys)
