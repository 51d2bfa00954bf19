"""The structured schema walk: named rules with old and new values.

One walk serves both directions. The direction only picks the rule prefix
(``tool.input.`` or ``tool.output.``), and the catalog gives each prefixed
rule its severity: input is contravariant, output covariant. A keyword is
modelled by adding a row to ``HANDLERS``; whatever no handler explains is
caught by the completeness net (``net.py``) and reported as
``*.schema.changed``.
"""

from pipeline.engine import prose
from pipeline.engine.change import Change, pointer, short
from pipeline.engine.equality import same
from pipeline.engine.net import MISSING, differences
from pipeline.engine.normalise import canonical, json_key, normalise_schema


def diff_schema(side: str, entity: str, base: str, old, new) -> list:
    """Every change between two schemas of one tool (``side``: input/output)."""
    old_n, old_notation = normalise_schema(old)
    new_n, new_notation = normalise_schema(new)
    walk = _Walk(side, entity, base)
    if old_notation != new_notation:
        walk.emit("dialect.changed", (), _notation(old_notation), _notation(new_notation),
                  detail=f"{_forms(old_notation)} -> {_forms(new_notation)}", claim=False)
    walk.compare(old_n, new_n, ())
    return walk.changes


def _notation(forms):
    return {"notation": list(forms)}


def _forms(forms) -> str:
    return ", ".join(forms) or "plain"


def label(rel) -> str:
    """A short human name for a place in a schema: ``filter.tag``, ``tags[]``."""
    out = ""
    parts = list(rel)
    if parts and parts[-1] not in ("items", "additionalProperties") and (
            len(parts) < 2 or parts[-2] not in ("properties", "patternProperties", "prefixItems")):
        parts.pop()  # the keyword itself: name the place it constrains
    i = 0
    while i < len(parts):
        part = parts[i]
        if part in ("properties", "patternProperties", "prefixItems") and i + 1 < len(parts):
            name = parts[i + 1]
            if part == "properties":
                out += ("." if out else "") + str(name)
            elif part == "prefixItems":
                out += f"[{name}]"
            else:
                out += f"{{/{name}/}}"
            i += 2
            continue
        out += {"items": "[]", "additionalProperties": "{*}"}.get(part, f"/{part}")
        i += 1
    return out or "the root"


class _Walk:
    def __init__(self, side, entity, base):
        self.prefix = f"tool.{side}."
        self.entity = entity
        self.base = base
        self.changes = []
        self.claims = []  # path parts whose subtree a change explains

    def emit(self, suffix, rel, old, new, detail="", severity=None, claim=True):
        self.changes.append(Change(
            self.prefix + suffix, self.entity, self.base + pointer(*rel),
            None if old is MISSING else old, None if new is MISSING else new,
            severity=severity, where=label(rel), detail=detail,
        ))
        if claim:
            self.claims.append(rel)

    def compare(self, old, new, rel):
        """Walk, then net: report what the walk left unexplained."""
        first = len(self.claims)
        self.node(old, new, rel)
        claims = self.claims[first:]
        for parts, a, b in list(differences(old, new, rel)):
            if not any(parts[: len(c)] == c for c in claims):
                self.emit("schema.changed", parts, a, b)

    def node(self, old, new, rel):
        if isinstance(old, bool) or isinstance(new, bool):
            if old is False and new is not False:
                self.emit("constraint.loosened", rel, old, new, detail="false schema")
            elif new is False and old is not False:
                self.emit("constraint.tightened", rel, old, new, detail="false schema")
            return
        if not isinstance(old, dict) or not isinstance(new, dict) or same(old, new):
            return  # the net reports anything odd
        keys = old.keys() | new.keys()
        for handler, handled in HANDLERS:
            if not keys.isdisjoint(handled):
                handler(self, old, new, rel)


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# --- keyword handlers: (walk, old node, new node, path parts) ---------------

def _type_set(value):
    if value is MISSING:
        return None  # every type
    if isinstance(value, str):
        return {value}
    if isinstance(value, list) and all(isinstance(t, str) for t in value):
        return set(value)
    return False  # not a type keyword the walk understands


def _covers(wide, narrow) -> bool:
    """Does type set ``wide`` accept every value of ``narrow``? (None: all)"""
    if wide is None:
        return True
    if narrow is None:
        return False
    return all(t in wide or (t == "integer" and "number" in wide) for t in narrow)


def _type(w, old, new, rel):
    a, b = old.get("type", MISSING), new.get("type", MISSING)
    sa, sb = _type_set(a), _type_set(b)
    if same(a, b) or sa is False or sb is False:
        return
    grows, shrinks = _covers(sb, sa), _covers(sa, sb)
    if grows and shrinks:
        w.claims.append(rel + ("type",))  # the same set, spelled differently
        return
    kind = "type.widened" if grows else "type.narrowed" if shrinks else "type.changed"
    w.emit(kind, rel + ("type",), a, b)


def _enum(w, old, new, rel):
    a, b = old.get("enum", MISSING), new.get("enum", MISSING)
    if same(a, b) or (a is not MISSING and not isinstance(a, list)) or (
            b is not MISSING and not isinstance(b, list)):
        return
    path = rel + ("enum",)
    if a is MISSING:
        w.emit("enum.narrowed", path, a, b, detail="values outside " + canonical(b))
        return
    if b is MISSING:
        w.emit("enum.widened", path, a, b, detail="any value")
        return
    keep = {json_key(v) for v in b}
    had = {json_key(v) for v in a}
    removed = [v for v in a if json_key(v) not in keep]
    added = [v for v in b if json_key(v) not in had]
    if removed:
        w.emit("enum.narrowed", path, a, b, detail=canonical(removed))
    if added:
        w.emit("enum.widened", path, a, b, detail=canonical(added))
    w.claims.append(path)


ORDERLESS = ("pattern", "format", "multipleOf", "const", "$ref")


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
        else:
            w.emit("constraint.changed", rel + (key,), a, b, detail=key)


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
        w.emit("constraint.tightened" if inward else "constraint.loosened", rel + (key,), a, b,
               detail=key)
    for inclusive, exclusive, lower in NUMERIC_BOUNDS:
        _numeric_bound(w, old, new, rel, inclusive, exclusive, lower)


def _effective(node, inclusive, exclusive, lower):
    """The binding (value, is exclusive, keyword) of a numeric bound, None if
    unbounded, False if the walk cannot read it (left to the net)."""
    found = []
    for key, strict in ((inclusive, False), (exclusive, True)):
        if key in node:
            if not _is_number(node[key]):
                return False
            found.append((node[key], strict, key))
    if not found:
        return None
    # the tighter one binds: for a lower bound the larger value, exclusive on a tie
    return max(found, key=lambda f: (f[0], f[1])) if lower else min(found, key=lambda f: (f[0], not f[1]))


def _numeric_bound(w, old, new, rel, inclusive, exclusive, lower):
    a = _effective(old, inclusive, exclusive, lower)
    b = _effective(new, inclusive, exclusive, lower)
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
                w.emit("property.addedRequired" if name in req_b else "property.added",
                       path, MISSING, b[name])
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
        if ra == rb == 1:
            w.node(a, b, path)
        elif rb < ra:
            w.emit("constraint.tightened", path, a, b, detail=key)
        elif rb > ra:
            w.emit("constraint.loosened", path, a, b, detail=key)
    return handler


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
    """allOf: a branch added tightens. anyOf: a branch removed tightens. One
    branch swapped for one other is compared inside, walk and net both. A
    oneOf branch set that moved is not orderable (a loosened branch can make a
    value match two branches), unless the swap only touched prose."""
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
        if len(removed) == 1 and len(added) == 1:
            first = len(w.changes)
            w.compare(removed[0], added[0], path + (_position(b, added[0]),))
            if key == "oneOf" and any(not c.rule.endswith(PROSE_ONLY) for c in w.changes[first:]):
                w.emit("constraint.changed", path, a, b, detail="oneOf")
        elif key == "oneOf":
            w.emit("constraint.changed", path, a, b, detail="oneOf")
        else:
            grow = "constraint.tightened" if key == "allOf" else "constraint.loosened"
            shrink = "constraint.loosened" if key == "allOf" else "constraint.tightened"
            for branch in added:
                w.emit(grow, path, MISSING, branch, detail=f"{key} branch added")
            for branch in removed:
                w.emit(shrink, path, branch, MISSING, detail=f"{key} branch removed")
        w.claims.append(path)


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
    (_enum, {"enum"}),
    (_orderless, set(ORDERLESS)),
    (_bounds, set(LOWER_BOUNDS + UPPER_BOUNDS) | {k for b in NUMERIC_BOUNDS for k in b[:2]}),
    (_unique_items, {"uniqueItems"}),
    (_object_members, {"properties", "required"}),
    (_openness("additionalProperties"), {"additionalProperties"}),
    (_openness("items"), {"items"}),
    (_pattern_properties, {"patternProperties"}),
    (_prefix_items, {"prefixItems"}),
    (_combinators, {"allOf", "anyOf", "oneOf"}),
    (_default, {"default"}),
    (_deprecated, {"deprecated"}),
    (_prose, {"description", "title"}),
    (_header, {"x-mcp-header"}),
)
