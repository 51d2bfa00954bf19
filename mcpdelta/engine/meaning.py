"""What schemas accept, read set-wise: types, listed values, one schema
taking another, branches no value can match twice.

Sound, not complete: each question answers True only where the schemas show
it plainly, and False means "not shown". Shared by the normaliser (which
drops what adds nothing) and the walk (which orders what changed).
"""

from mcpdelta.engine import values
from mcpdelta.engine.equality import json_key, same
from mcpdelta.engine.keywords import ANNOTATIONS, READ_TOGETHER
from mcpdelta.engine.net import MISSING
from mcpdelta.engine.values import json_type, type_names


def names_of(value) -> set:
    """The strings of a list (a ``required``), as a set."""
    return {n for n in value if isinstance(n, str)} if isinstance(value, list) else set()


def takes(wide, narrow, depth=0, declared=False) -> bool:
    """Does schema ``wide`` accept every value ``narrow`` does? Shown only
    where every constraint of ``wide`` is one ``narrow`` has too (a type set
    that holds ``narrow``'s, an enum that holds its values, required names
    ``narrow`` requires too, or, at a scalar place, a set of values that
    holds ``narrow``'s: ``values.relation``), and the schemas of properties and items ``wide``
    constrains take ``narrow``'s, one level at a time (keywords that read
    each other, such as ``additionalProperties`` beside ``properties``,
    alike as a group): False means "not shown". ``declared``: the values
    are those the open-objects convention sends (docs/rules.md): an object
    that says nothing of other keys carries only the properties it
    declares, so what ``wide`` says of a property ``narrow`` does not
    declare never applies."""
    if wide is True or wide == {}:
        return True
    if not isinstance(wide, dict) or not isinstance(narrow, dict) or depth > 16:
        return False
    return _by_keywords(wide, narrow, depth, declared) or _by_values(wide, narrow)


def _by_values(wide, narrow) -> bool:
    """At two scalar places whose types meet, their sets compared whole.
    A ``narrow`` that names no type and lists no values is left to the
    keywords (a bound alone lets every other type through)."""
    if not ("type" in narrow or "enum" in narrow or "const" in narrow):
        return False
    if values.BOUNDING.isdisjoint(wide) and values.BOUNDING.isdisjoint(narrow):
        return False  # types alone, which the keywords read whole
    return values.scalar_place(narrow) and values.scalar_place(wide) \
        and overlap(branch_types(wide), branch_types(narrow)) \
        and values.relation(narrow, wide)[0] in ("same", "wider")


def _by_keywords(wide, narrow, depth, declared) -> bool:
    listed = listed_values(narrow)
    if "type" in wide:  # first: the cheapest to refute (an Optional's null beside its object)
        theirs, mine = type_names(wide["type"]), type_names(narrow.get("type"))
        if not theirs:
            return False
        if mine is None and listed is not None:
            mine = sorted({json_type(v) for v in listed})
        if not mine or not all(t in theirs or (t == "integer" and "number" in theirs) for t in mine):
            return False
    for group, readers in _READ_BY:
        if not readers.isdisjoint(wide) and not all(
                same(wide.get(k, _ABSENT), narrow.get(k, _ABSENT)) for k in group):
            return False
    deep = []  # the subschemas, walked last: the keywords refute most pairs without a walk
    for key, value in wide.items():
        if key in ANNOTATIONS or key == "type":
            continue
        if key in ("properties", "items") and isinstance(value, dict):
            if not same(value, narrow.get(key)):
                deep.append(key)
        elif key == "enum" and isinstance(value, list):
            allowed = {json_key(v) for v in value}
            if listed is None or not all(json_key(v) in allowed for v in listed):
                return False
        elif key == "required" and isinstance(value, list) and isinstance(narrow.get(key), list):
            if not set(map(json_key, value)) <= set(map(json_key, narrow[key])):
                return False
        elif key not in narrow or not same(value, narrow[key]):
            return False
    if "properties" in deep:
        theirs = narrow.get("properties") if isinstance(narrow.get("properties"), dict) else {}
        only = declared and declares_all(narrow)
        if not all(takes(schema, theirs[name], depth + 1, declared) if name in theirs
                   else only or takes(schema, {})
                   for name, schema in wide["properties"].items()):
            return False
    if "items" in deep:
        return takes(wide["items"], narrow.get("items", {}), depth + 1, declared)
    return True


def declares_all(schema) -> bool:
    """Does the open-objects convention hold ``schema``'s objects to the
    properties it declares? It does where the schema lists ``properties`` and
    says nothing else of which keys an object may carry (nor brings
    properties in from elsewhere: ``allOf``, a reference, a condition)."""
    return isinstance(schema.get("properties"), dict) and _OTHER_KEYS.isdisjoint(schema)


_OTHER_KEYS = frozenset({"additionalProperties", "patternProperties", "unevaluatedProperties", "allOf",
                         "$ref", "if", "dependentSchemas", "dependencies"})


# Keyword groups whose members read each other, and the members whose
# meaning depends on the rest: where ``wide`` has one of those, the group
# must be alike on both sides.
_READ_BY = tuple((group, group - {"properties", "items"}) for group in READ_TOGETHER)


_ABSENT = object()


def listed_values(schema):
    if "const" in schema:
        return [schema["const"]]
    return schema["enum"] if isinstance(schema.get("enum"), list) else None


def type_set(value):
    if value is MISSING:
        return None  # every type
    if isinstance(value, str):
        return {value}
    if isinstance(value, list) and all(isinstance(t, str) for t in value):
        return set(value)
    return False  # not a type keyword the walk understands


def covers(wide, narrow) -> bool:
    """Does type set ``wide`` accept every value of ``narrow``? (None: all)"""
    if wide is None:
        return True
    if narrow is None:
        return False
    return all(t in wide or (t == "integer" and "number" in wide) for t in narrow)


def of_types(value, kinds) -> bool:
    """Does a JSON value have one of the type names ``kinds`` (None: any)?"""
    if kinds is None:
        return True
    kind = type(value)
    if kind is bool:
        return "boolean" in kinds
    if kind is int or kind is float:
        return "number" in kinds or ("integer" in kinds and (kind is int or value.is_integer()))
    return {str: "string", type(None): "null", list: "array", dict: "object"}.get(kind) in kinds


def apart(moved, branches) -> bool:
    """Can no value match a branch in ``moved`` and another branch of
    ``branches``? (They share no type, or a property both require holds
    values of one that the other never takes: a discriminated union.)"""
    return all(disjoint(branch, other) for branch in moved for other in branches
               if other is not branch)


def disjoint(x, y) -> bool:
    if not overlap(branch_types(x), branch_types(y)):
        return True
    if not isinstance(x, dict) or not isinstance(y, dict):
        return False
    both = names_of(x.get("required")) & names_of(y.get("required"))
    px, py = x.get("properties"), y.get("properties")
    if not both or not isinstance(px, dict) or not isinstance(py, dict):
        return False
    for name in both:
        vx, vy = value_keys(px.get(name)), value_keys(py.get(name))
        if vx is not None and vy is not None and not vx & vy:
            return True
    return False


def value_keys(schema):
    """The values a schema allows, as JSON keys, when it lists them."""
    if not isinstance(schema, dict):
        return None
    if "const" in schema:
        return {json_key(schema["const"])}
    if isinstance(schema.get("enum"), list):
        return {json_key(v) for v in schema["enum"]}
    return None


def branch_tags(branch) -> set:
    """(property, value) pairs a branch fixes: a required property whose
    schema allows one value."""
    if not isinstance(branch, dict) or not isinstance(branch.get("properties"), dict):
        return set()
    required = names_of(branch.get("required"))
    out = set()
    for name, schema in branch["properties"].items():
        values = value_keys(schema)
        if name in required and values is not None and len(values) == 1:
            out.add((name, next(iter(values))))
    return out


def likeness(a, b) -> int:
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


def overlap(kinds, theirs) -> bool:
    if kinds is None or theirs is None or kinds & theirs:
        return True
    return ("integer" in kinds and "number" in theirs) or ("number" in kinds and "integer" in theirs)


def branch_types(branch):
    """The type names a branch's values can have, None if any type."""
    if not isinstance(branch, dict):
        return None
    kinds = type_set(branch.get("type", MISSING))
    return kinds if kinds else None


def listed_types(node):
    """The types of the values a node lists (None: it lists none, any type)."""
    values = enum_list(node)
    if values is None:
        return None
    return {"null" if v is None else "boolean" if isinstance(v, bool)
            else "integer" if isinstance(v, int) or (isinstance(v, float) and v.is_integer())
            else "number" if isinstance(v, float)
            else {str: "string", list: "array", dict: "object"}[type(v)] for v in values}


def enum_list(node):
    """The values a node lists: its ``enum``, or its ``const`` as one value
    (None if it lists none, or lists them in a way the walk cannot read)."""
    if "const" in node:
        return [node["const"]] if "enum" not in node else None
    value = node.get("enum", MISSING)
    return value if isinstance(value, list) else None


def pair_branches(removed, added, equivalent) -> list:
    """Pairs of a removed and an added branch that are one branch changed:
    equivalent ones first (respelled, re-annotated), then the one left on
    each side, then the branches alone in carrying a tag, then each with the
    one most like it where both share a type. Paired branches leave
    ``removed`` and ``added``. ``equivalent(a, b)``: do two branches accept
    the same values (the walk's own, bounded per diff; the witness, which
    cannot repeat that bound, passes equality). The walk pairs with it, and
    a witness finds a changed branch's partner with it."""
    pairs = []
    for branch in list(removed):
        match = next((x for x in added if equivalent(branch, x)), None)
        if match is not None:
            pairs.append((branch, match))
            removed.remove(branch)
            added.remove(match)
    if len(removed) == 1 and len(added) == 1:
        pairs.append((removed.pop(), added.pop()))
    # then branches that carry the same tag (a property fixed to one value:
    # the discriminator of a tagged union) and no other branch does
    tags_of = {id(x): branch_tags(x) for x in (*removed, *added)}  # each branch's read once
    for branch in list(removed):
        tags = tags_of[id(branch)]
        mates = [x for x in added if tags & tags_of[id(x)]]
        if len(mates) == 1 and [x for x in removed if tags_of[id(x)] & tags_of[id(mates[0])]] == [branch]:
            pairs.append((branch, mates[0]))
            removed.remove(branch)
            added.remove(mates[0])
    # then each removed branch with the added one most like it, where each
    # is the other's closest and shares a type with it (a tie pairs neither)
    scored = sorted(((likeness(r, x), -i, -j) for i, r in enumerate(removed)
                     for j, x in enumerate(added) if overlap(branch_types(r), branch_types(x))),
                    reverse=True)
    alike = {}  # score -> its (removed, added) places: a tie is sought among these alone
    for score, i, j in scored:
        alike.setdefault(score, []).append((-i, -j))
    taken_r, taken_a = set(), set()
    for score, i, j in scored:
        i, j = -i, -j
        if score <= 0 or i in taken_r or j in taken_a:
            continue
        if any((r == i) != (x == j) and r not in taken_r and x not in taken_a for r, x in alike[score]):
            continue  # as like another: no pairing is better than the other
        taken_r.add(i)
        taken_a.add(j)
        pairs.append((removed[i], added[j]))
    removed[:] = [r for i, r in enumerate(removed) if i not in taken_r]
    added[:] = [x for j, x in enumerate(added) if j not in taken_a]
    return pairs
