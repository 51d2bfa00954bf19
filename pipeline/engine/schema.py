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
from pipeline.engine.keywords import ACTS_ON
from pipeline.engine.normalise import (ANNOTATIONS, canonical, json_key, marker_target,
                                       normalise_schema, takes)


def diff_schema(side: str, entity: str, base: str, old, new) -> list:
    """Every change between two schemas of one tool (``side``: input/output)."""
    old_n, old_notation = normalise_schema(old)
    new_n, new_notation = normalise_schema(new)
    walk = _Walk(side, entity, base, old_n, new_n)
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


# Marker pairs followed into their targets in one schema diff, and how many
# may be followed one inside another: past either, markers are compared as
# written (a difference the net reports).
MAX_EXPANSIONS = 1000
MAX_EXPANSION_DEPTH = 48


class _Walk:
    def __init__(self, side, entity, base, old_root=None, new_root=None):
        self.prefix = f"tool.{side}."
        self.entity = entity
        self.base = base
        self.changes = []
        self.claims = []  # path parts whose subtree a change explains
        self.roots = (old_root, new_root)  # where markers lead (normalise.marker_target)
        self.assumed = set()  # marker pairs being compared: equal unless shown otherwise
        self.expansions = 0
        self.path = []  # the (old, new) nodes being walked, outermost first
        self.equivalence_checks = 0
        self.compared = set()  # marker pairs compared already
        self.kept = []
        self.dirty = _dirty_markers(old_root, new_root) if old_root is not new_root else ()

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
        if not rel:
            self._claim_targets()
        if self._through_markers(old, new, rel):
            return
        if isinstance(old, bool) or isinstance(new, bool):
            if old is False and new is not False:
                self.emit("constraint.loosened", rel, old, new, detail="false schema")
            elif new is False and old is not False:
                self.emit("constraint.tightened", rel, old, new, detail="false schema")
            return
        if not isinstance(old, dict) or not isinstance(new, dict) or self._unchanged(old, new):
            return  # the net reports anything odd
        wrapped = self._wrapped(old, new)
        if wrapped is not None:
            # one side is the other as a single branch of a combinator: the
            # branch sets are compared, and explain the place whole
            self.claims.append(rel)
            self.compare(*wrapped, rel)
            return
        moot = _moot(old, new)
        if moot:
            # keywords for a type one side does not admit: the type change says it
            self.claims += [rel + (k,) for k in moot]
            old = {k: v for k, v in old.items() if k not in moot}
            new = {k: v for k, v in new.items() if k not in moot}
        self.path.append((old, new))
        try:
            keys = old.keys() | new.keys()
            for handler, handled in HANDLERS:
                if not keys.isdisjoint(handled):
                    handler(self, old, new, rel)
        finally:
            self.path.pop()

    def equivalent(self, old, new) -> bool:
        """``equivalent`` within this diff's bound on such checks."""
        if same(old, new):
            return True
        if self.equivalence_checks >= MAX_EQUIVALENCE_CHECKS:
            return False
        self.equivalence_checks += 1
        return equivalent(old, new, self.roots)

    def _wrapped(self, old, new):
        """(old, new) with the plain side written as a combinator, when the
        other side is that combinator beside keywords the plain side has
        alike (annotations aside) and a branch of it is a partner of the
        plain side (``_partners``): ``S`` against ``anyOf: [S, T]``, ``{type:
        object, properties: P}`` against ``{type: object, oneOf: [...]}``. A
        plain side of several types (``type: [array, null]``) is one branch
        per type, since it is that union. None otherwise (the keywords are
        compared as they stand)."""
        for key in ("anyOf", "oneOf", "allOf"):
            if (key in old) == (key in new):
                continue
            plain, wrap = (old, new) if key in new else (new, old)
            if not isinstance(wrap[key], list):
                continue
            shared = set(wrap) - ANNOTATIONS - {key}
            if any(k not in plain or not same(plain[k], wrap[k]) for k in shared):
                continue
            core = {k: v for k, v in plain.items() if k not in ANNOTATIONS}
            branches = _by_type(core) if key == "anyOf" else [core]
            olds, news = (branches, wrap[key]) if plain is old else (wrap[key], branches)
            if not _partners(self, list(olds), list(news)) and not any(
                    takes(x, y) or takes(y, x) for x in branches for y in wrap[key]):
                continue
            one = {k: v for k, v in plain.items() if k in ANNOTATIONS or k in shared}
            one[key] = branches
            return (one, new) if plain is old else (old, one)
        return None

    def _claim_targets(self):
        """Recursion targets (``$defs`` entries named "@...") are compared
        where their markers lead, not where they are kept."""
        defs = [root.get("$defs") if isinstance(root, dict) else None for root in self.roots]
        names = [set(d) if isinstance(d, dict) else set() for d in defs]
        if all(n.startswith("@") for n in names[0] | names[1]):
            self.claims.append(("$defs",))
        else:
            self.claims += [("$defs", n) for n in sorted(names[0] | names[1]) if n.startswith("@")]

    def _through_markers(self, old, new, rel) -> bool:
        """A marker on either side is compared as what it leads to, whatever
        its name. A pair compared already, or being compared further up (by
        markers, or as the expansion the recursion started from), is not
        compared again: the recursion repeats a comparison made once, whose
        changes are reported once, at their first place. True if the place
        was handled here."""
        a = marker_target(old, self.roots[0])
        b = marker_target(new, self.roots[1])
        if a is None and b is None:
            return False
        if same(old, new) and (a is None or same(a, b)):
            return True
        if self.expansions >= MAX_EXPANSIONS or len(self.assumed) >= MAX_EXPANSION_DEPTH:
            return False
        pair = (canonical(old) if a is not None else id(old), canonical(new) if b is not None else id(new))
        a = old if a is None else a
        b = new if b is None else b
        self.claims.append(rel)
        if pair in self.assumed or pair in self.compared or any(
                same(x, a) and same(y, b) for x, y in self.path):
            return True
        self.expansions += 1
        self.assumed.add(pair)
        self.kept += (a, b)  # alive while the walk lasts: their ids key the pairs
        try:
            self.compare(a, b, rel)
        finally:
            self.assumed.discard(pair)
            self.compared.add(pair)
        return True

    def _unchanged(self, old, new) -> bool:
        """Equal subtrees hold no change, unless they hold a marker whose
        target differs between the sides (then the walk goes on to it)."""
        if not same(old, new):
            return False
        if not self.dirty:
            return True
        text = canonical(old)
        return not any(marker in text for marker in self.dirty)


def _dirty_markers(old_root, new_root) -> tuple:
    """The marker texts (``$ref`` values) whose targets differ between the
    two sides although named alike."""
    if not isinstance(old_root, dict) or not isinstance(new_root, dict):
        return ()
    # ("#" marks the root: its pair is the walk's first, compared anyway)
    found = []
    defs_a, defs_b = old_root.get("$defs"), new_root.get("$defs")
    if isinstance(defs_a, dict) and isinstance(defs_b, dict):
        for name in sorted(defs_a.keys() & defs_b.keys()):
            if name.startswith("@") and not same(defs_a[name], defs_b[name]):
                escaped = name.replace("~", "~0").replace("/", "~1")
                found.append(canonical("#/$defs/" + escaped))
    return tuple(found)


# Rules that say nothing about which values validate.
ANNOTATION_RULES = ("description.changed", "default.changed", "deprecated.added",
                    "deprecated.removed", "dialect.changed")
# Equivalence checks one schema diff may make (each a walk of its own).
MAX_EQUIVALENCE_CHECKS = 200


def equivalent(old, new, roots=(None, None)) -> bool:
    """Do two normalised schemas accept the same values? True when the walk
    and the net between them find nothing but annotations (recursion
    compared by what it leads to; ``roots``: where each side's markers
    lead). Sound, not complete: False means "not shown equivalent"."""
    if same(old, new):
        return True
    probe = _Walk("input", None, "", *roots)
    probe.compare(old, new, ())
    return all(c.rule.endswith(ANNOTATION_RULES) for c in probe.changes)


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
    if _enum_list(old) is not None and _enum_list(new) is not None:
        w.claims.append(rel + ("type",))  # both sides list their values: _enum compares what passes
        return
    # a side with no type that lists its values has the types of those values
    sa = _listed_types(old) if sa is None else sa
    sb = _listed_types(new) if sb is None else sb
    grows, shrinks = _covers(sb, sa), _covers(sa, sb)
    if grows and shrinks:
        w.claims.append(rel + ("type",))  # the same set, spelled differently
        return
    kind = "type.widened" if grows else "type.narrowed" if shrinks else "type.changed"
    w.emit(kind, rel + ("type",), a, b)


def _listed_types(node):
    """The types of the values a node lists (None: it lists none, any type)."""
    values = _enum_list(node)
    if values is None:
        return None
    return {"null" if v is None else "boolean" if isinstance(v, bool)
            else "integer" if isinstance(v, int) or (isinstance(v, float) and v.is_integer())
            else "number" if isinstance(v, float)
            else {str: "string", list: "array", dict: "object"}[type(v)] for v in values}


def _enum_list(node):
    """The values a node lists: its ``enum``, or its ``const`` as one value
    (None if it lists none, or lists them in a way the walk cannot read)."""
    if "const" in node:
        return [node["const"]] if "enum" not in node else None
    value = node.get("enum", MISSING)
    return value if isinstance(value, list) else None


def _of_types(value, kinds) -> bool:
    """Does a JSON value have one of the type names ``kinds`` (None: any)?"""
    if kinds is None:
        return True
    kind = type(value)
    if kind is bool:
        return "boolean" in kinds
    if kind is int or kind is float:
        return "number" in kinds or ("integer" in kinds and (kind is int or value.is_integer()))
    return {str: "string", type(None): "null", list: "array", dict: "object"}.get(kind) in kinds


def _enum(w, old, new, rel):
    """``enum`` and ``const`` (a list of one): the values each side allows."""
    if ("const" in old and "enum" in old) or ("const" in new and "enum" in new):
        return  # both at once: the net reports what moved
    a = _enum_list(old) if ("enum" in old or "const" in old) else MISSING
    b = _enum_list(new) if ("enum" in new or "const" in new) else MISSING
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
    kinds_a, kinds_b = _type_set(old.get("type", MISSING)), _type_set(new.get("type", MISSING))
    a = [v for v in a if kinds_a is False or _of_types(v, kinds_a)]
    b = [v for v in b if kinds_b is False or _of_types(v, kinds_b)]
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
    from pipeline.engine import regex

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
    """allOf: a branch added tightens. anyOf: a branch removed tightens.
    Branches are paired first as written, then by meaning (a branch
    respelled or re-annotated), then one left on each side with each other;
    a pair is compared inside, walk and net both. oneOf is orderable like
    anyOf only where a branch added or removed shares no type with the
    others (no value can match two); otherwise a moved oneOf is not, unless
    the swap only touched prose."""
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
        pairs = _partners(w, removed, added)
        first = len(w.changes)
        for before, after in pairs:
            w.compare(before, after, path + (_position(b, after),))
        if key == "anyOf" or (key == "oneOf" and _apart(a, a) and _apart(b, b)):
            # a branch whose values another branch of the other side takes
            # moved nothing in or out (for a oneOf, where no value matches
            # two branches of either side)
            removed = [x for x in removed if not any(takes(y, x) for y in b)]
            added = [x for x in added if not any(takes(y, x) for y in a)]
        if key == "oneOf" and (
                (any(not c.rule.endswith(PROSE_ONLY) for c in w.changes[first:]) and not (
                    _apart(b, b) and _apart(a, a)))
                or not _apart(added, b) or not _apart(removed, a)):
            w.emit("constraint.changed", path, a, b, detail="oneOf")
        else:
            grow = "constraint.tightened" if key == "allOf" else "constraint.loosened"
            shrink = "constraint.loosened" if key == "allOf" else "constraint.tightened"
            for branch in added:
                w.emit(grow, path, MISSING, branch, detail=f"{key} branch added")
            for branch in removed:
                w.emit(shrink, path, branch, MISSING, detail=f"{key} branch removed")
        w.claims.append(path)


def _partners(w, removed, added) -> list:
    """Pairs of a removed and an added branch that are one branch changed:
    equivalent ones first (respelled, re-annotated), then the one left on
    each side, then branches alone in sharing a type. Paired branches leave
    ``removed`` and ``added``."""
    pairs = []
    for branch in list(removed):
        match = next((x for x in added if w.equivalent(branch, x)), None)
        if match is not None:
            pairs.append((branch, match))
            removed.remove(branch)
            added.remove(match)
    if len(removed) == 1 and len(added) == 1:
        pairs.append((removed.pop(), added.pop()))
    # then branches that carry the same tag (a property fixed to one value:
    # the discriminator of a tagged union) and no other branch does
    for branch in list(removed):
        tags = _tags(branch)
        mates = [x for x in added if tags & _tags(x)]
        if len(mates) == 1 and [x for x in removed if _tags(x) & _tags(mates[0])] == [branch]:
            pairs.append((branch, mates[0]))
            removed.remove(branch)
            added.remove(mates[0])
    # then each removed branch with the added one most like it, where each
    # is the other's closest and shares a type with it (a tie pairs neither)
    scored = sorted(((_likeness(r, x), -i, -j) for i, r in enumerate(removed)
                     for j, x in enumerate(added) if _overlap(_branch_types(r), _branch_types(x))),
                    reverse=True)
    taken_r, taken_a = set(), set()
    for score, i, j in scored:
        i, j = -i, -j
        if score <= 0 or i in taken_r or j in taken_a:
            continue
        if any(t[0] == score and ((-t[1] == i) != (-t[2] == j)) and -t[1] not in taken_r
               and -t[2] not in taken_a for t in scored):
            continue  # as like another: no pairing is better than the other
        taken_r.add(i)
        taken_a.add(j)
        pairs.append((removed[i], added[j]))
    removed[:] = [r for i, r in enumerate(removed) if i not in taken_r]
    added[:] = [x for j, x in enumerate(added) if j not in taken_a]
    return pairs


def _tags(branch) -> set:
    """(property, value) pairs a branch fixes: a required property whose
    schema allows one value."""
    if not isinstance(branch, dict) or not isinstance(branch.get("properties"), dict):
        return set()
    required = _names(branch.get("required"))
    out = set()
    for name, schema in branch["properties"].items():
        values = _values(schema)
        if name in required and values is not None and len(values) == 1:
            out.add((name, next(iter(values))))
    return out


def _likeness(a, b) -> int:
    """How much two branches share: keywords with equal values, and
    property names (a changed branch keeps most of them)."""
    if not isinstance(a, dict) or not isinstance(b, dict):
        return 0
    score = sum(1 for k in a.keys() & b.keys() if k != "properties" and same(a[k], b[k]))
    pa, pb = a.get("properties"), b.get("properties")
    if isinstance(pa, dict) and isinstance(pb, dict):
        score += 2 * len(pa.keys() & pb.keys()) - len(pa.keys() ^ pb.keys())
        score += sum(1 for k in pa.keys() & pb.keys() if same(pa[k], pb[k]))
    return score


def _apart(moved, branches) -> bool:
    """Can no value match a branch in ``moved`` and another branch of
    ``branches``? (They share no type, or a property both require holds
    values of one that the other never takes: a discriminated union.)"""
    return all(_disjoint(branch, other) for branch in moved for other in branches
               if other is not branch)


def _disjoint(x, y) -> bool:
    if not _overlap(_branch_types(x), _branch_types(y)):
        return True
    if not isinstance(x, dict) or not isinstance(y, dict):
        return False
    both = _names(x.get("required")) & _names(y.get("required"))
    px, py = x.get("properties"), y.get("properties")
    if not both or not isinstance(px, dict) or not isinstance(py, dict):
        return False
    for name in both:
        vx, vy = _values(px.get(name)), _values(py.get(name))
        if vx is not None and vy is not None and not vx & vy:
            return True
    return False


def _values(schema):
    """The values a schema allows, as JSON keys, when it lists them."""
    if not isinstance(schema, dict):
        return None
    if "const" in schema:
        return {json_key(schema["const"])}
    if isinstance(schema.get("enum"), list):
        return {json_key(v) for v in schema["enum"]}
    return None


def _moot(old, new) -> set:
    """Keywords that changed but act only on types one side does not admit
    (a ``minimum`` added where a string became an integer, the properties
    of what is no longer an object): the type change is the whole story."""
    kinds_a, kinds_b = _type_set(old.get("type", MISSING)), _type_set(new.get("type", MISSING))
    if kinds_a is False or kinds_b is False or kinds_a == kinds_b:
        return set()
    return {k for k in (old.keys() | new.keys()) & ACTS_ON.keys()
            if not same(old.get(k, MISSING), new.get(k, MISSING))
            and not (_admits(kinds_a, ACTS_ON[k]) and _admits(kinds_b, ACTS_ON[k]))}


def _admits(kinds, acts_on) -> bool:
    return kinds is None or any(t in kinds for t in acts_on) or (
        "integer" in kinds and "number" in acts_on)


def _by_type(core):
    """A schema of several types as one schema per type, each with the
    keywords that act on its type (``type: [array, null], items: X`` is
    ``[{type: array, items: X}, {type: null}]``); ``[core]`` if it is not
    one such."""
    kinds = _type_set(core.get("type", MISSING))
    if not kinds or len(kinds) < 2 or not set(core) <= set(ACTS_ON) | {"type", "enum"}:
        return [core]
    out = []
    for kind in sorted(kinds):
        branch = {"type": kind}
        for key, value in core.items():
            if key == "enum":
                values = [v for v in value if _of_types(v, {kind})] if isinstance(value, list) else None
                if values is None:
                    return [core]
                if not values:
                    branch = None
                    break
                branch["enum"] = values
            elif key != "type" and kind in ACTS_ON[key]:
                branch[key] = value
        if branch is not None:
            out.append(branch)
    return out




def _overlap(kinds, theirs) -> bool:
    if kinds is None or theirs is None or kinds & theirs:
        return True
    return ("integer" in kinds and "number" in theirs) or ("number" in kinds and "integer" in theirs)


def _branch_types(branch):
    """The type names a branch's values can have, None if any type."""
    if not isinstance(branch, dict):
        return None
    kinds = _type_set(branch.get("type", MISSING))
    return kinds if kinds else None


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
    (_prefix_items, {"prefixItems"}),
    (_combinators, {"allOf", "anyOf", "oneOf"}),
    (_default, {"default"}),
    (_deprecated, {"deprecated"}),
    (_prose, {"description", "title"}),
    (_header, {"x-mcp-header"}),
)
