"""The notation folds: one spelling for each schema meaning.

``tidy`` rewrites one freshly built schema node (its children already
tidied) into the engine's one dialect, recording in ``notation`` the forms it
undid that a generator chooses (so a switch of them is reported once, as
``*.dialect.changed``), and dropping, unrecorded, what constrains nothing.
``normalise.py`` says what the result looks like.
"""


from mcpdelta.engine.equality import json_key, same
from mcpdelta.engine.keywords import ANNOTATIONS, TYPE_SPECIFIC
from mcpdelta.engine.meaning import listed_values, takes
from mcpdelta.engine.values import json_type, type_names

UNORDERED_LISTS = ("allOf", "anyOf", "oneOf")


# The keywords tidy rewrites or drops; a node with none of them, or with
# only a type name, passes through untouched.
_TIDIED = frozenset({"pattern", "not", "exclusiveMinimum", "exclusiveMaximum", "minimum", "maximum", "type",
                     "anyOf", "allOf", "oneOf", "enum", "required", "additionalProperties",
                     "items", "uniqueItems", "deprecated", "properties", "minLength", "minItems",
                     "minProperties", "minContains", "propertyNames", "unevaluatedProperties",
                     "unevaluatedItems", "additionalItems", "patternProperties",
                     "dependentRequired", "dependentSchemas", "if", "then", "else", "dependencies"})


_TYPE_ONLY = {"type"}


# Spellings that reject nothing: the keyword is dropped.
_NOOPS = {"additionalProperties": {}, "items": {}, "uniqueItems": False,
          "deprecated": False, "required": [], "properties": {}, "minLength": 0,
          "minItems": 0, "minProperties": 0, "minContains": 1, "propertyNames": {},
          "unevaluatedProperties": {}, "unevaluatedItems": {}, "additionalItems": {},
          "patternProperties": {}, "dependentRequired": {}, "dependentSchemas": {},
          "then": {}, "else": {}}


# Lists whose order means nothing: sorted, each value once.
_SORTED = frozenset({"enum", "required"}) | frozenset(UNORDERED_LISTS)


# Every JSON value has one of these types ("integer" is inside "number").
_EVERY_TYPE = frozenset({"array", "boolean", "null", "number", "object", "string"})


def tidy(node, notation):
    tidied = node.keys() & _TIDIED
    if not tidied or (tidied == _TYPE_ONLY and type(node["type"]) is str):
        return node  # most nodes: a leaf with one type name has nothing to tidy
    if "exclusiveMinimum" in tidied or "exclusiveMaximum" in tidied:
        for bound, plain in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
            flag = node.get(bound)
            if isinstance(flag, bool):
                notation.add("boolean-exclusive")
                del node[bound]
                if flag and plain in node:
                    node[bound] = node.pop(plain)
    deps = node.get("dependencies")
    if isinstance(deps, dict) and deps and all(isinstance(v, list) for v in deps.values()) \
            and "dependentRequired" not in node:
        # draft-07's array form is 2020-12's dependentRequired
        notation.add("dependencies")
        node["dependentRequired"] = node.pop("dependencies")
    kind = node.get("type")
    if (kind in ("integer", "number") or type(kind) is list) and (_integers(kind) or _whole_steps(node)):
        _integer_bounds(node, notation)
    if "anyOf" in node or "allOf" in node:
        _redundant_branches(node)
    if "anyOf" in node or "oneOf" in node:
        _one_tag_apart(node)
    if ("anyOf" in node or "oneOf" in node) and "enum" not in node and "const" not in node:
        _listed(node, notation)
    if "anyOf" in node:
        _optional(node)
        branches = node.get("anyOf")
        if (isinstance(branches, list) and branches and "type" not in node
                and all(isinstance(b, dict) and set(b) == {"type"} and isinstance(b["type"], str)
                        for b in branches)):
            notation.add("anyOf-types")
            node["type"] = [b["type"] for b in branches]
            del node["anyOf"]
    kind = node.get("type")
    if isinstance(kind, list) and all(isinstance(t, str) for t in kind):
        kind = sorted(set(kind))
        node["type"] = kind[0] if len(kind) == 1 else kind
    for key in _SORTED.intersection(node):
        if isinstance(node[key], list):
            node[key] = sorted_set(node[key])
    for key in _NOOPS.keys() & node.keys():
        if same(node[key], _NOOPS[key]):
            del node[key]
    if isinstance(node.get("pattern"), str) and node["pattern"].startswith("^(?="):
        _length_lookahead(node, notation)
    _no_constraint(node)
    return _branches_tidied(node)


_LENGTH_AHEAD = None


def _length_lookahead(node, notation):
    """``pattern: "^(?=.{1,253}$)REST"`` is a length bound written as a
    lookahead: ``minLength: 1, maxLength: 253, pattern: "^REST"``, where
    REST can match no line break (``.`` cannot, so the two readings agree)."""
    import re

    global _LENGTH_AHEAD
    if _LENGTH_AHEAD is None:
        _LENGTH_AHEAD = re.compile(r"\^\(\?=\.\{(\d{1,6})(?:(,)(\d{0,6}))?\}\$\)(.*)", re.S)
    found = _LENGTH_AHEAD.fullmatch(node["pattern"])
    if found is None or not _no_line_break(found.group(4)):
        return
    low = int(found.group(1))
    high = None if found.group(2) and not found.group(3) else int(found.group(3) or low)
    notation.add("length-lookahead")
    node["pattern"] = "^" + found.group(4)
    if finite_number(node.get("minLength")):
        low = max(low, node["minLength"])
    node["minLength"] = low
    if high is not None:
        if finite_number(node.get("maxLength")):
            high = min(high, node["maxLength"])
        node["maxLength"] = high
    if node.get("minLength") == 0:
        del node["minLength"]


def _no_line_break(pattern) -> bool:
    """Can this regular expression match no line break? Read
    conservatively: any ``.``, negated class or class escape that could
    match one says it might."""
    i, in_class = 0, False
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            if pattern[i + 1:i + 2] in ("s", "S", "W", "D", "n", "r", "x", "u", "v", "f", "c", "p", "P"):
                return False
            i += 2
            continue
        if char == "[" and not in_class:
            in_class = True
            if pattern[i + 1:i + 2] == "^":
                return False
        elif char == "]" and in_class:
            in_class = False
        elif char == "." and not in_class:
            return False
        i += 1
    return True


def _branches_tidied(node):
    """Combinator branches that reject everything (``false``, ``{"not":
    {}}``) are dropped from ``anyOf`` / ``oneOf`` and make an ``allOf``
    reject everything; a node that is one combinator of one branch
    (annotations aside) is that branch. A node that is only
    ``{"not": {}}`` is the schema ``false``."""
    for key in UNORDERED_LISTS:
        branches = node.get(key)
        if not isinstance(branches, list) or not branches:
            continue
        if any(_rejects_all(b) for b in branches):
            if key == "allOf":
                return False
            branches = [b for b in branches if not _rejects_all(b)]
            if not branches:
                return False
            node[key] = branches
        if len(branches) == 1 and isinstance(branches[0], dict):
            rest = node.keys() - {key}
            if not rest - ANNOTATIONS and not branches[0].keys() & rest:
                del node[key]
                node.update(branches[0])
    if _rejects_all(node):
        return False
    return node


def _rejects_all(schema) -> bool:
    if schema is False:
        return True
    return (isinstance(schema, dict) and schema.get("not") == {}
            and not set(schema) - ANNOTATIONS - {"not"})


def _no_constraint(node):
    """Drop keywords that cannot reject a value, however written: a
    ``propertyNames`` every string passes (every object key is a string), a
    ``type`` naming every type, an ``if`` with nothing to apply (and a
    ``then`` / ``else`` with no ``if``)."""
    names = node.get("propertyNames")
    if isinstance(names, dict) and not set(names) - ANNOTATIONS - {"type"} and (
            "type" not in names or "string" in (type_names(names["type"]) or ())):
        del node["propertyNames"]
    kinds = type_names(node.get("type"))
    if kinds and _EVERY_TYPE <= set(kinds):
        del node["type"]
    if "if" in node and "then" not in node and "else" not in node:
        del node["if"]
    if "if" not in node:
        node.pop("then", None)
        node.pop("else", None)


def _redundant_branches(node):
    """Branches that add nothing: a nested combinator of the same kind is
    its branches (``anyOf [anyOf [A, B], C]``), an ``anyOf`` branch another
    branch takes whole is dropped, and a combinator one of whose ``anyOf``
    branches (or an ``allOf`` branch) the node's own keywords already hold
    to goes (that branch) away."""
    for key in ("anyOf", "allOf"):
        branches = node.get(key)
        if not isinstance(branches, list):
            continue
        if any(_pure(b, key) for b in branches):  # anyOf [anyOf [A, B], C] is anyOf [A, B, C]
            node[key] = branches = [x for b in branches for x in (b[key] if _pure(b, key) else [b])]
        if key == "anyOf" and len(branches) > 1:
            # a branch another branch takes whole adds nothing to their union
            wider = [b for i, b in enumerate(branches)
                     if not any(j != i and takes(o, b) and not (takes(b, o) and j > i)
                                for j, o in enumerate(branches))]
            if len(wider) < len(branches):
                node[key] = branches = wider
        rest = {k: v for k, v in node.items() if k != key}
        implied = [b for b in branches if takes(b, rest)]
        if key == "anyOf" and implied:
            del node["anyOf"]  # a branch the node's own keywords already hold to
        elif implied:
            kept = [b for b in branches if not any(b is i for i in implied)]
            if kept:
                node["allOf"] = kept
            else:
                del node["allOf"]


def _pure(branch, key) -> bool:
    """A branch that is nothing but a ``key`` combinator (annotations aside)."""
    return isinstance(branch, dict) and isinstance(branch.get(key), list) and not (
        set(branch) - ANNOTATIONS - {key})


NULL = {"type": "null"}


def _optional(node):
    """``anyOf: [S, {"type": "null"}]`` -> S or null, spelled as S with null
    in its type (and its enum). Only where every keyword of S lets a null
    through and no constraint sits on both levels. Annotations never stop
    the fold, wherever a generator puts them: the outer one stands, S's joins
    it where the outer level has none, and two descriptions that differ are
    both kept (a model reads both)."""
    branches = node.get("anyOf")
    if not (isinstance(branches, list) and len(branches) == 2):
        return
    first, second = branches
    if is_null_branch(second):
        typed = first
    elif is_null_branch(first):
        typed = second
    else:
        return
    if not isinstance(typed, dict):
        return
    kinds = type_names(typed.get("type"))
    enum = typed.get("enum")
    if "const" in typed:  # one value: with null, an enum of two
        if enum is not None:
            return
        enum = [typed["const"]]
        typed = {k: v for k, v in typed.items() if k != "const"}
    if (kinds is None and "type" in typed) or (enum is not None and not isinstance(enum, list)):
        return
    if (kinds is None and enum is None) or not set(typed) <= TYPE_SPECIFIC | ANNOTATIONS | {"type", "enum"}:
        return
    if (set(typed) - ANNOTATIONS) & (set(node) - {"anyOf"}):
        return
    del node["anyOf"]
    for key, value in typed.items():
        if key not in node:
            node[key] = value
        elif key == "description" and isinstance(value, str) and isinstance(node[key], str) \
                and not same(node[key], value):
            node[key] = node[key] + "\n\n" + value
    if kinds is not None:
        node["type"] = sorted(set(kinds) | {"null"})
    if enum is not None:
        node["enum"] = sorted_set(enum + [None])


def _listed(node, notation):
    """An ``anyOf`` / ``oneOf`` whose every branch lists its values
    (``const``, ``enum``, with or without a type) is an ``enum`` of them
    (a value two ``oneOf`` branches list matches neither)."""
    for key in ("anyOf", "oneOf"):
        branches = node.get(key)
        if not isinstance(branches, list) or not branches:
            continue
        seen = {}
        for branch in branches:
            listed = _branch_values(branch)
            if listed is None:
                break
            for value in listed:
                seen.setdefault(json_key(value), [value, 0])[1] += 1
        else:
            values = [v for v, count in seen.values() if key == "anyOf" or count == 1]
            del node[key]
            node["enum"] = sorted_set(values)
            notation.add(f"{key}-of-values")
            return


def _one_tag_apart(node):
    """Branches alike but for the values one property lists (a tagged union
    whose variants carry nothing else) are one branch listing all those
    values: ``oneOf [{type: {enum: [a]}}, {type: {enum: [b]}}]`` is
    ``{type: {enum: [a, b]}}`` (a ``oneOf``'s only where no value is listed
    twice)."""
    for key in ("anyOf", "oneOf"):
        branches = node.get(key)
        if not isinstance(branches, list) or len(branches) < 2 or len(branches) > 64:
            continue
        merged = True
        while merged and len(branches) > 1:
            merged = False
            for i in range(len(branches)):
                for j in range(i + 1, len(branches)):
                    joined = _joined(branches[i], branches[j], key == "oneOf")
                    if joined is not None:
                        branches = branches[:i] + [joined] + branches[i + 1:j] + branches[j + 1:]
                        merged = True
                        break
                if merged:
                    break
        node[key] = branches
        if len(branches) == 1 and not (set(node) - ANNOTATIONS - {key}) and isinstance(branches[0], dict) \
                and not set(branches[0]) & set(node):
            del node[key]
            node.update(branches[0])


def _joined(a, b, apart):
    """``a`` and ``b`` as one branch, if they differ only in the values one
    property lists (disjoint ones when ``apart``); else None."""
    if not isinstance(a, dict) or not isinstance(b, dict) or a.keys() != b.keys() \
            or not isinstance(a.get("properties"), dict) or not isinstance(b.get("properties"), dict):
        return None
    if any(not same(a[k], b[k]) for k in a if k != "properties"):
        return None
    pa, pb = a["properties"], b["properties"]
    if pa.keys() != pb.keys():
        return None
    differ = [p for p in pa if not same(pa[p], pb[p]) and not _alike(pa[p], pb[p])]
    if len(differ) != 1:
        return None
    x, y = pa[differ[0]], pb[differ[0]]
    listing_x, listing_y = _listing(x), _listing(y)
    if listing_x is None or listing_y is None or listing_x[0] != listing_y[0]:
        return None
    vx, vy = listed_values(x), listed_values(y)
    rest_x = {k: v for k, v in x.items() if k not in ("enum", "const")}
    keys_x = listing_x[1]
    required = a.get("required") if isinstance(a.get("required"), list) else []
    if apart and (differ[0] not in required or any(json_key(v) in keys_x for v in vy)):
        return None  # a oneOf's variants stay apart only by a required tag
    joined = dict(a)
    joined["properties"] = {**pa, differ[0]: {**rest_x, "enum": sorted_set(list(vx) + list(vy))}}
    return joined


def _alike(x, y) -> bool:
    """Two schemas that list the same values beside the same keywords,
    whether as ``const`` or as an ``enum`` of one."""
    listing = _listing(x)
    return listing is not None and listing == _listing(y)


def _listing(schema):
    """(the keywords beside them, the values listed) of a schema that lists
    its values (``const`` or ``enum``, spelled either way), else None."""
    if not isinstance(schema, dict):
        return None
    values = listed_values(schema)
    if not isinstance(values, list) or ("const" in schema and "enum" in schema):
        return None
    rest = {k: v for k, v in schema.items() if k not in ("enum", "const")}
    return json_key(rest), frozenset(json_key(v) for v in values)


def _branch_values(branch):
    """The values a branch of nothing but const / enum (and type) lists."""
    if not isinstance(branch, dict) or set(branch) - ANNOTATIONS - {"const", "enum", "type"}:
        return None
    if "const" in branch and "enum" not in branch:
        values = [branch["const"]]
    elif isinstance(branch.get("enum"), list) and "const" not in branch:
        values = branch["enum"]
    else:
        return None
    kinds = type_names(branch.get("type")) if "type" in branch else None
    if "type" in branch and kinds is None:
        return None
    return values if kinds is None else [v for v in values if json_type(v) in kinds
                                         or (json_type(v) == "integer" and "number" in kinds)]


def is_null_branch(branch) -> bool:
    """A branch that accepts null and nothing else (annotations aside)."""
    if not isinstance(branch, dict):
        return False
    rules = {k: v for k, v in branch.items() if k not in ANNOTATIONS}
    return (same(rules, NULL) or same(rules, {"type": ["null"]}) or same(rules, {"const": None})
            or same(rules, {"enum": [None]}))


def _integers(kind) -> bool:
    """Does a ``type`` admit integers and nothing else (but null)?"""
    names = type_names(kind)
    return bool(names) and "integer" in names and set(names) <= {"integer", "null"}


def _whole_steps(node) -> bool:
    """A number held to a whole ``multipleOf`` is an integer (draft 6 on):
    ``{type: number, multipleOf: 1}`` is zod's and some generators' integer."""
    names = type_names(node.get("type"))
    step = node.get("multipleOf")
    return bool(names) and "number" in names and set(names) <= {"number", "integer", "null"} \
        and finite_number(step) and step > 0 and step == int(step)


SAFE_INTEGER = 2 ** 53 - 1


def _integer_bounds(node, notation):
    """On integers an exclusive bound is an inclusive one a step in: zod 4
    writes ``exclusiveMinimum: 0`` where zod 3 wrote ``minimum: 1``. And zod
    4 bounds every ``.int()`` by exactly JavaScript's safe integers
    (+-(2^53 - 1)): those two bounds are notation too. Any other bound is a
    bound, compared exactly (Python compares ints and floats exactly)."""
    import math

    for exclusive, inclusive, step, pick in (("exclusiveMinimum", "minimum", 1, max),
                                             ("exclusiveMaximum", "maximum", -1, min)):
        value = node.get(exclusive)
        if finite_number(value):
            notation.add("integer-exclusive")
            bound = math.floor(value) + 1 if step > 0 else math.ceil(value) - 1
            del node[exclusive]
            if finite_number(node.get(inclusive)):
                bound = pick(bound, node[inclusive])
            node[inclusive] = bound
    for key, sign in (("minimum", -1), ("maximum", 1)):
        if finite_number(node.get(key)) and node[key] == sign * SAFE_INTEGER:
            notation.add("safe-integer-bounds")
            del node[key]


def finite_number(value) -> bool:
    import math

    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def sorted_set(values):
    if all(isinstance(v, str) for v in values):  # required, most enums: no JSON round trip
        return sorted(set(values))
    unique = {}
    for value in values:
        unique.setdefault(json_key(value), value)
    return [unique[k] for k in sorted(unique)]
