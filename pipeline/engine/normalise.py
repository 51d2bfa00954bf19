"""Notation is not contract: bring a JSON Schema to one dialect before the walk.

Real servers change how the same schema is written when their SDK changes
(zod 3 -> 4, draft-07 -> 2020-12). Each rewrite here keeps what the schema
accepts and records the notation it undid, so the engine can report a
dialect switch once (``*.dialect.changed``) instead of as breaking noise.

The result is a fresh tree (inputs are never mutated) in which:

- ``$schema`` is gone (recorded), ``$comment`` is gone;
- local ``$ref`` (``#``, ``#/$defs/X``, ``#/definitions/X``) are inlined;
  a reference back into its own expansion (a cycle) stays as
  ``{"$ref": "#/$defs/X"}``; ``$defs`` / ``definitions`` are then dropped;
- array-form ``items`` is ``prefixItems`` (and ``additionalItems`` is ``items``);
- draft-04 boolean ``exclusiveMinimum`` / ``exclusiveMaximum`` are numbers;
- Python's ``Optional[...]`` (Pydantic, FastMCP), ``anyOf: [S, {"type":
  "null"}]`` with S a typed schema whose keywords cannot reject a null, is S
  with ``null`` added to its ``type`` (and its ``enum``): one schema however a
  generator spells "or null", so not recorded as a dialect;
- an ``anyOf`` of bare ``{"type": T}`` branches is a ``type`` list;
- an ``anyOf`` / ``oneOf`` of branches that only list values (``const``,
  ``enum``) is an ``enum`` of them;
- on an integer, an exclusive bound is the inclusive bound a step in, and
  the bounds at exactly JavaScript's safe-integer limits, +-(2^53 - 1) (zod
  4's ``.int()``), are dropped; any other bound stays, however large;
- set-valued keywords (``type``, ``enum``, ``required``, ``allOf`` /
  ``anyOf`` / ``oneOf`` branches) are sorted and de-duplicated;
- no-op spellings are dropped: ``true`` / ``{}`` ``additionalProperties`` and ``items``,
  ``uniqueItems: false``, ``deprecated: false``, empty ``required`` and
  ``properties``; the boolean schema ``true`` is ``{}``.
"""

import json

from pipeline.engine.equality import same
from pipeline.engine.keywords import (ANNOTATIONS, SCHEMA_LISTS, SCHEMA_MAPS, SCHEMA_VALUES,
                                      TYPE_SPECIFIC)

UNORDERED_LISTS = ("allOf", "anyOf", "oneOf")
_DROPPED = frozenset({"$ref", "$comment", "$defs", "definitions"})
_SUBSCHEMAS = SCHEMA_MAPS | SCHEMA_VALUES | SCHEMA_LISTS | _DROPPED

# Inlining stops this deep so a pathological ref chain cannot recurse forever,
# and after this many schema nodes so refs that fan out (each definition
# using the next one twice) cannot grow the tree exponentially. Past either
# bound a ref stays a ref, and the definitions stay in the tree for the net.
MAX_INLINE_DEPTH = 64
MAX_INLINED_NODES = 5000
# Marker targets worked out per schema (each at most once).
MAX_MARKED = 256


# A stable text form, for sorting and as a key. One encoder, built once:
# json.dumps with options builds a new one on every call.
canonical = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode


def json_key(value) -> str:
    """A text form JSON-equal values share (canonical, every integral float
    written as the integer it equals), for set membership."""
    return canonical(_integral(value))


def _integral(value):
    kind = type(value)
    if kind is float and value.is_integer():
        return int(value)
    # strings, the most common values, without a call each
    if kind is dict:
        return {k: v if type(v) is str else _integral(v) for k, v in value.items()}
    if kind is list:
        return [v if type(v) is str else _integral(v) for v in value]
    return value


class remembered:
    """Within it (``with remembered():``), ``normalise_schema`` works out
    each schema object once and gives every later call with that object its
    first result, shared. For a caller that changes neither the schemas nor
    the results while it lasts: the diff stage's batch, which decodes each
    stored tool once (the new side of one pair is the old side of the next
    pair that changes the tool). Results are the same as without it."""

    def __enter__(self):
        global _REMEMBERED
        self.outer, _REMEMBERED = _REMEMBERED, {}
        return self

    def __exit__(self, *exc):
        global _REMEMBERED
        _REMEMBERED = self.outer


_REMEMBERED = None  # id(schema) -> (schema, result) while ``remembered`` lasts


def normalise_schema(schema):
    """Return (normalised schema, notation) where notation is a sorted tuple of
    the notational forms the original used."""
    if _REMEMBERED is not None and isinstance(schema, dict):
        hit = _REMEMBERED.get(id(schema))
        if hit is None or hit[0] is not schema:
            # holding the schema keeps its id unique while it is remembered
            hit = _REMEMBERED[id(schema)] = (schema, _normalise_schema(schema))
        return hit[1]
    return _normalise_schema(schema)


def _normalise_schema(schema):
    notation = set()
    if schema is True:
        return {}, ()
    if not isinstance(schema, dict):
        return schema, ()
    if "$schema" in schema:
        notation.add(f"$schema={schema['$schema']}")
    if isinstance(schema.get("definitions"), dict):
        notation.add("definitions")
    walker = _Normaliser(schema, notation)
    result = walker.node(schema, 0)
    if isinstance(result, dict):
        result.pop("$schema", None)
        defs = walker.targets()
        if walker.kept_refs:
            # a reference the normaliser cannot follow (remote, an anchor,
            # $dynamicRef) may lead into the definitions: keep them, so the
            # net sees what changes there
            for key in ("definitions", "$defs"):
                if isinstance(schema.get(key), dict):
                    for name, value in schema[key].items():
                        defs.setdefault(name, walker.node(value, MAX_INLINE_DEPTH + 1))
        if defs:
            result["$defs"] = defs
    return result, tuple(sorted(notation))


# A reference back into its own expansion (recursion, recognised by the
# target's identity, not its name), or past the inlining bounds, becomes a
# *marker*: ``{"$ref": "#/$defs/@<pointer>"}``, with the target's normal
# form under that name in the root's ``$defs`` (each target worked out once,
# so the tree stays linear in the schema's size), and the tree stays a
# schema a validator can read. The "@" keeps marker targets apart from a
# schema's own definitions; ``{"$ref": "#"}`` marks the root itself. The
# walk compares markers by what they lead to, never by name.
MARKER_PREFIX = "#/$defs/@"


def marker_name(ref):
    """The ``$defs`` key a marker ``$ref`` names ("#" for the root), or None
    if ``ref`` is no marker."""
    if ref == "#":
        return "#"
    if isinstance(ref, str) and ref.startswith(MARKER_PREFIX):
        return ref[len("#/$defs/"):].replace("~1", "/").replace("~0", "~")
    return None


def marker_target(node, root):
    """What a marker node stands for: its target's normal form from ``root``
    (a normalised schema), sibling keywords merged in; None if ``node`` is no
    marker or its target is missing."""
    if not isinstance(node, dict):
        return None
    name = marker_name(node.get("$ref"))
    if name is None:
        return None
    if name == "#":
        target = root
    else:
        defs = root.get("$defs") if isinstance(root, dict) else None
        target = defs.get(name) if isinstance(defs, dict) else None
        if target is None:
            return None
    siblings = {k: v for k, v in node.items() if k != "$ref"}
    return _merge(target, siblings) if siblings else target


def _pointer_target(root, ref):
    """The value a local JSON pointer reference (``#/a/b``, percent-encoding
    allowed) names in ``root``; None if it names nothing."""
    from urllib.parse import unquote

    node = root
    for part in unquote(ref[2:]).split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and (part == "0" or part[0] != "0") \
                and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


class _Normaliser:
    def __init__(self, root, notation):
        self.root = root
        self.notation = notation
        self.nodes = 0           # schema nodes built so far
        self.kept_refs = False   # a reference left as it was (remote, anchor, dynamic)
        self.on_path = set()     # ids of the raw schemas being normalised (recursion by identity)
        self.marked = {}         # marker name -> raw target, in order of first use

    def _target(self, ref):
        """(marker name, raw target) of a local reference, or (None, None)."""
        if ref == "#":
            return "#", self.root
        if ref.startswith("#/"):
            target = _pointer_target(self.root, ref)
            if isinstance(target, (dict, bool)):
                from urllib.parse import unquote

                return "@" + unquote(ref[1:]), target
        return None, None

    def targets(self) -> dict:
        """Every marker's target in normal form, by name (targets that mark
        further targets included, up to MAX_MARKED of them: a marker past
        that has no target, and is compared as written)."""
        done = {}
        pending = [n for n in self.marked if n != "#"]
        while pending and len(done) < MAX_MARKED:
            name = pending.pop(0)
            done[name] = self.node(self.marked[name], 0)
            pending += [n for n in self.marked if n != "#" and n not in done and n not in pending]
        return done

    def _marker(self, name, target):
        self.marked.setdefault(name, target)
        if name == "#":
            return "#"
        return MARKER_PREFIX + name[1:].replace("~", "~0").replace("/", "~1")

    def node(self, schema, depth):
        if schema is True:
            return {}
        if not isinstance(schema, dict):
            return schema
        self.nodes += 1
        key = id(schema)
        self.on_path.add(key)  # a reference back to it, from inside, is a cycle
        try:
            return self._node(schema, depth)
        finally:
            self.on_path.discard(key)

    def _node(self, schema, depth):
        out = {}
        ref = schema.get("$ref")
        if "$dynamicRef" in schema or "$recursiveRef" in schema:
            self.kept_refs = True
        if isinstance(ref, str):
            name, found = self._target(ref)
            if name is None:
                out["$ref"] = ref  # an anchor, a remote schema: as written
                self.kept_refs = True
            elif id(found) in self.on_path or depth > MAX_INLINE_DEPTH or self.nodes > MAX_INLINED_NODES:
                # back into its own expansion, or past the bounds: a marker
                out["$ref"] = self._marker(name, found)
            else:
                self.notation.add("$ref")
                inlined = self.node(found, depth + 1)
                siblings = {k: v for k, v in schema.items() if k != "$ref"}
                return _merge(inlined, self.node(siblings, depth + 1)) if siblings else inlined
        for key, value in schema.items():
            if key not in _SUBSCHEMAS:  # a plain keyword (most of them)
                out[key] = value
                continue
            if key in _DROPPED:
                continue
            if key in SCHEMA_MAPS and isinstance(value, dict):
                out[key] = {k: self.node(v, depth + 1) for k, v in value.items()}
            elif key in SCHEMA_VALUES:
                if key == "items" and isinstance(value, list):
                    self.notation.add("items-array")
                    out["prefixItems"] = [self.node(v, depth + 1) for v in value]
                    if "additionalItems" in schema:
                        out["items"] = self.node(schema["additionalItems"], depth + 1)
                elif key == "additionalItems" and isinstance(schema.get("items"), list):
                    continue  # folded into items above
                else:
                    out[key] = self.node(value, depth + 1)
            elif key in SCHEMA_LISTS and isinstance(value, list):
                out[key] = [self.node(v, depth + 1) for v in value]
            else:
                out[key] = value
        return _tidy(out, self.notation)


# Keywords that read each other: merged into one schema, a keyword of one
# group from each side would change what it means (``additionalProperties``
# beside another schema's ``properties``), so such a pair stays an ``allOf``.
_READ_TOGETHER = (
    frozenset({"properties", "patternProperties", "additionalProperties", "unevaluatedProperties"}),
    frozenset({"prefixItems", "items", "additionalItems", "unevaluatedItems"}),
    frozenset({"if", "then", "else"}),
    frozenset({"contains", "minContains", "maxContains"}),
)


def _merge(inlined, siblings):
    """A ``$ref`` with sibling keywords, read as 2020-12 reads it (both
    apply): annotations override, constraints the target lacks join it,
    constraints that disagree or read the target's keywords are kept as an
    ``allOf`` (both must hold)."""
    if not siblings:
        return inlined
    if not isinstance(inlined, dict):
        return {"allOf": [inlined, siblings]}
    merged = dict(inlined)
    rest = {}
    apart = set()
    for group in _READ_TOGETHER:
        if not group.isdisjoint(siblings) and not group.isdisjoint(inlined):
            apart |= group
    for key, value in siblings.items():
        if key in ANNOTATIONS:
            merged[key] = value
        elif key in merged and same(merged[key], value):
            continue  # said twice
        elif key in apart or key in merged:
            rest[key] = value
        else:
            merged[key] = value
    if rest:
        return {"allOf": sorted([merged, rest], key=canonical)}
    return merged


# The keywords _tidy rewrites or drops; a node with none of them, or with
# only a type name, passes through untouched.
_TIDIED = frozenset({"pattern", "not", "exclusiveMinimum", "exclusiveMaximum", "minimum", "maximum", "type",
                     "anyOf", "allOf", "oneOf", "enum", "required", "additionalProperties",
                     "items", "uniqueItems", "deprecated", "properties", "minLength", "minItems",
                     "minProperties", "minContains", "propertyNames", "unevaluatedProperties",
                     "unevaluatedItems", "additionalItems", "patternProperties",
                     "dependentRequired", "dependentSchemas", "if", "then", "else"})
_TYPE_ONLY = {"type"}
# Spellings that reject nothing: the keyword is dropped.
_NOOPS = (("additionalProperties", {}), ("items", {}), ("uniqueItems", False),
          ("deprecated", False), ("required", []), ("properties", {}), ("minLength", 0),
          ("minItems", 0), ("minProperties", 0), ("minContains", 1), ("propertyNames", {}),
          ("unevaluatedProperties", {}), ("unevaluatedItems", {}), ("additionalItems", {}),
          ("patternProperties", {}), ("dependentRequired", {}), ("dependentSchemas", {}),
          ("then", {}), ("else", {}))
# Every JSON value has one of these types ("integer" is inside "number").
_EVERY_TYPE = frozenset({"array", "boolean", "null", "number", "object", "string"})


def _tidy(node, notation):
    tidied = node.keys() & _TIDIED
    if not tidied or (tidied == _TYPE_ONLY and type(node["type"]) is str):
        return node  # most nodes: a leaf with one type name has nothing to tidy
    for bound, plain in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
        flag = node.get(bound)
        if isinstance(flag, bool):
            notation.add("boolean-exclusive")
            del node[bound]
            if flag and plain in node:
                node[bound] = node.pop(plain)
    if _integers(node.get("type")):
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
    for key in ("enum", "required") + UNORDERED_LISTS:
        if isinstance(node.get(key), list):
            node[key] = _sorted_set(node[key])
    for key, noop in _NOOPS:
        if key in node and same(node[key], noop):
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
    if _finite_number(node.get("minLength")):
        low = max(low, node["minLength"])
    node["minLength"] = low
    if high is not None:
        if _finite_number(node.get("maxLength")):
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
        rest = {k: v for k, v in node.items() if k != key}
        if len(branches) == 1 and isinstance(branches[0], dict) and not set(rest) - ANNOTATIONS \
                and not set(branches[0]) & set(rest):
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
            "type" not in names or "string" in (_type_names(names["type"]) or ())):
        del node["propertyNames"]
    kinds = _type_names(node.get("type"))
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


def takes(wide, narrow, depth=0) -> bool:
    """Does schema ``wide`` accept every value ``narrow`` does? Shown only
    where every constraint of ``wide`` is one ``narrow`` has too (a type set
    that holds ``narrow``'s, an enum that holds its values, required names
    ``narrow`` requires too), and the schemas of properties and items ``wide``
    constrains take ``narrow``'s, one level at a time (keywords that read
    each other, such as ``additionalProperties`` beside ``properties``,
    alike as a group): False means "not shown"."""
    if wide is True or wide == {}:
        return True
    if not isinstance(wide, dict) or not isinstance(narrow, dict) or depth > 16:
        return False
    for group, readers in _READ_BY:
        if not readers.isdisjoint(wide) and not all(
                same(wide.get(k, _ABSENT), narrow.get(k, _ABSENT)) for k in group):
            return False
    listed = _listed_values(narrow)
    for key, value in wide.items():
        if key in ANNOTATIONS:
            continue
        if key == "type":
            theirs, mine = _type_names(value), _type_names(narrow.get("type"))
            if not theirs:
                return False
            if mine is None and listed is not None:
                mine = sorted({_json_type(v) for v in listed})
            if not mine or not all(t in theirs or (t == "integer" and "number" in theirs) for t in mine):
                return False
        elif key == "enum" and isinstance(value, list):
            allowed = {json_key(v) for v in value}
            if listed is None or not all(json_key(v) in allowed for v in listed):
                return False
        elif key == "required" and isinstance(value, list) and isinstance(narrow.get(key), list):
            if not set(map(json_key, value)) <= set(map(json_key, narrow[key])):
                return False
        elif key == "properties" and isinstance(value, dict) and not same(value, narrow.get(key)):
            theirs = narrow.get(key) if isinstance(narrow.get(key), dict) else {}
            if not all(takes(schema, theirs[name], depth + 1) if name in theirs else takes(schema, {})
                       for name, schema in value.items()):
                return False
        elif key == "items" and isinstance(value, dict) and not same(value, narrow.get(key)):
            if not takes(value, narrow.get(key, {}), depth + 1):
                return False
        elif key not in narrow or not same(value, narrow[key]):
            return False
    return True


# Keyword groups whose members read each other, and the members whose
# meaning depends on the rest: where ``wide`` has one of those, the group
# must be alike on both sides.
_READ_BY = tuple((group, group - {"properties", "items"}) for group in _READ_TOGETHER)


_ABSENT = object()


def _listed_values(schema):
    if "const" in schema:
        return [schema["const"]]
    return schema["enum"] if isinstance(schema.get("enum"), list) else None


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
    if _is_null(second):
        typed = first
    elif _is_null(first):
        typed = second
    else:
        return
    if not isinstance(typed, dict):
        return
    kinds = _type_names(typed.get("type"))
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
        node["enum"] = _sorted_set(enum + [None])


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
            node["enum"] = _sorted_set(values)
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
    differ = [p for p in pa if not same(pa[p], pb[p])]
    if len(differ) != 1:
        return None
    x, y = pa[differ[0]], pb[differ[0]]
    if not isinstance(x, dict) or not isinstance(y, dict):
        return None
    vx, vy = _listed_values(x), _listed_values(y)
    rest_x = {k: v for k, v in x.items() if k not in ("enum", "const")}
    rest_y = {k: v for k, v in y.items() if k not in ("enum", "const")}
    if vx is None or vy is None or not same(rest_x, rest_y):
        return None
    keys_x = {json_key(v) for v in vx}
    required = a.get("required") if isinstance(a.get("required"), list) else []
    if apart and (differ[0] not in required or any(json_key(v) in keys_x for v in vy)):
        return None  # a oneOf's variants stay apart only by a required tag
    joined = dict(a)
    joined["properties"] = {**pa, differ[0]: {**rest_x, "enum": _sorted_set(list(vx) + list(vy))}}
    return joined


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
    kinds = _type_names(branch.get("type")) if "type" in branch else None
    if "type" in branch and kinds is None:
        return None
    return values if kinds is None else [v for v in values if _json_type(v) in kinds
                                         or (_json_type(v) == "integer" and "number" in kinds)]


def _json_type(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return "integer"
    if isinstance(value, float):
        return "number"
    return {str: "string", list: "array", dict: "object"}.get(type(value), "?")


def _is_null(branch) -> bool:
    """A branch that accepts null and nothing else (annotations aside)."""
    if not isinstance(branch, dict):
        return False
    rules = {k: v for k, v in branch.items() if k not in ANNOTATIONS}
    return (same(rules, NULL) or same(rules, {"type": ["null"]}) or same(rules, {"const": None})
            or same(rules, {"enum": [None]}))


def _type_names(kind):
    """The type names of a ``type`` keyword, or None if it is not one."""
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list) and kind and all(isinstance(t, str) for t in kind):
        return kind
    return None


def _integers(kind) -> bool:
    """Does a ``type`` admit integers and nothing else (but null)?"""
    names = _type_names(kind)
    return bool(names) and "integer" in names and set(names) <= {"integer", "null"}


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
        if _finite_number(value):
            notation.add("integer-exclusive")
            bound = math.floor(value) + 1 if step > 0 else math.ceil(value) - 1
            del node[exclusive]
            if _finite_number(node.get(inclusive)):
                bound = pick(bound, node[inclusive])
            node[inclusive] = bound
    for key, sign in (("minimum", -1), ("maximum", 1)):
        if _finite_number(node.get(key)) and node[key] == sign * SAFE_INTEGER:
            notation.add("safe-integer-bounds")
            del node[key]


def _finite_number(value) -> bool:
    import math

    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _sorted_set(values):
    if all(isinstance(v, str) for v in values):  # required, most enums: no JSON round trip
        return sorted(set(values))
    unique = {}
    for value in values:
        unique.setdefault(json_key(value), value)
    return [unique[k] for k in sorted(unique)]
