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

# Keywords whose value is a map of name -> subschema.
SCHEMA_MAPS = ("properties", "patternProperties", "dependentSchemas", "$defs", "definitions")
# Keywords whose value is one subschema.
SCHEMA_VALUES = ("additionalProperties", "items", "additionalItems", "not", "if", "then", "else",
                 "contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties",
                 "contentSchema")
# Keywords whose value is a list of subschemas (order-free combinators last).
SCHEMA_LISTS = ("prefixItems", "allOf", "anyOf", "oneOf")
UNORDERED_LISTS = ("allOf", "anyOf", "oneOf")
_DROPPED = frozenset({"$ref", "$comment", "$defs", "definitions"})
_SUBSCHEMAS = frozenset(SCHEMA_MAPS + SCHEMA_VALUES + SCHEMA_LISTS) | _DROPPED

# Inlining stops this deep so a pathological ref chain cannot recurse forever,
# and after this many schema nodes so refs that fan out (each definition
# using the next one twice) cannot grow the tree exponentially. Past either
# bound a ref stays a ref, and the definitions stay in the tree for the net.
MAX_INLINE_DEPTH = 64
MAX_INLINED_NODES = 5000


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
    defs = {}
    for key in ("definitions", "$defs"):
        if isinstance(schema.get(key), dict):
            if key == "definitions":
                notation.add("definitions")
            defs.update(schema[key])
    walker = _Normaliser(schema, defs, notation)
    result = walker.node(schema, (), 0)
    if isinstance(result, dict):
        result.pop("$schema", None)
        if walker.kept_refs and defs:
            # a ref the walk could not inline still points into the
            # definitions: keep them, so the net sees what changes there
            result["$defs"] = {k: walker.node(v, (), MAX_INLINE_DEPTH + 1) for k, v in defs.items()}
    return result, tuple(sorted(notation))


class _Normaliser:
    def __init__(self, root, defs, notation):
        self.root = root
        self.defs = defs
        self.notation = notation
        self.nodes = 0           # schema nodes built so far
        self.kept_refs = False   # a ref left in place other than a cycle

    def _target(self, ref):
        """The local definition a ``$ref`` names, with its canonical name."""
        if ref == "#":
            return "#", self.root
        for prefix in ("#/$defs/", "#/definitions/"):
            if ref.startswith(prefix):
                name = ref[len(prefix):].replace("~1", "/").replace("~0", "~")
                if name in self.defs:
                    return "#/$defs/" + ref[len(prefix):], self.defs[name]
        return None, None

    def node(self, schema, expanding, depth):
        if schema is True:
            return {}
        if not isinstance(schema, dict):
            return schema
        self.nodes += 1
        out = {}
        ref = schema.get("$ref")
        if "$dynamicRef" in schema or "$recursiveRef" in schema:
            self.kept_refs = True
        if isinstance(ref, str):
            name, target = self._target(ref)
            if name is not None:
                if name in expanding:
                    out["$ref"] = name  # a cycle: compared by name
                elif depth > MAX_INLINE_DEPTH or self.nodes > MAX_INLINED_NODES:
                    out["$ref"] = name
                    self.kept_refs = True
                else:
                    self.notation.add("$ref")
                    inlined = self.node(target, expanding + (name,), depth + 1)
                    siblings = {k: v for k, v in schema.items() if k != "$ref"}
                    return _merge(inlined, self.node(siblings, expanding, depth + 1))
            else:
                out["$ref"] = ref  # an anchor, a deeper pointer, a remote schema
                self.kept_refs = True
        for key, value in schema.items():
            if key not in _SUBSCHEMAS:  # a plain keyword (most of them)
                out[key] = value
                continue
            if key in _DROPPED:
                continue
            if key in SCHEMA_MAPS and isinstance(value, dict):
                out[key] = {k: self.node(v, expanding, depth + 1) for k, v in value.items()}
            elif key in SCHEMA_VALUES:
                if key == "items" and isinstance(value, list):
                    self.notation.add("items-array")
                    out["prefixItems"] = [self.node(v, expanding, depth + 1) for v in value]
                    if "additionalItems" in schema:
                        out["items"] = self.node(schema["additionalItems"], expanding, depth + 1)
                elif key == "additionalItems" and isinstance(schema.get("items"), list):
                    continue  # folded into items above
                else:
                    out[key] = self.node(value, expanding, depth + 1)
            elif key in SCHEMA_LISTS and isinstance(value, list):
                out[key] = [self.node(v, expanding, depth + 1) for v in value]
            else:
                out[key] = value
        return _tidy(out, self.notation)


def _merge(inlined, siblings):
    """A ``$ref`` with sibling keywords: annotations override, constraints
    that disagree are kept as an ``allOf`` (both must hold)."""
    if not siblings:
        return inlined
    if not isinstance(inlined, dict):
        return {"allOf": [inlined, siblings]}
    merged = dict(inlined)
    rest = {}
    for key, value in siblings.items():
        if key not in merged or same(merged[key], value) or key in (
                "description", "title", "default", "deprecated", "examples"):
            merged[key] = value
        else:
            rest[key] = value
    if rest:
        return {"allOf": sorted([merged, rest], key=canonical)}
    return merged


# The keywords _tidy rewrites or drops; a node with none of them, or with
# only a type name, passes through untouched.
_TIDIED = frozenset({"exclusiveMinimum", "exclusiveMaximum", "minimum", "maximum", "type",
                     "anyOf", "allOf", "oneOf", "enum", "required", "additionalProperties",
                     "items", "uniqueItems", "deprecated", "properties"})
_TYPE_ONLY = {"type"}
_NOOPS = (("additionalProperties", {}), ("items", {}), ("uniqueItems", False),
          ("deprecated", False), ("required", []), ("properties", {}))


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
    return node


# Keywords that constrain only instances of one type (a null passes them all),
# and annotations, which constrain nothing.
TYPE_SPECIFIC = frozenset({
    "minLength", "maxLength", "pattern", "format", "contentEncoding", "contentMediaType",
    "contentSchema",
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
    "items", "prefixItems", "additionalItems", "contains", "minContains", "maxContains",
    "minItems", "maxItems", "uniqueItems", "unevaluatedItems",
    "properties", "patternProperties", "additionalProperties", "required", "minProperties",
    "maxProperties", "propertyNames", "dependentRequired", "dependentSchemas", "dependencies",
    "unevaluatedProperties"})
ANNOTATIONS = frozenset({"title", "description", "default", "examples", "deprecated",
                         "readOnly", "writeOnly"})
NULL = {"type": "null"}


def _optional(node):
    """``anyOf: [S, {"type": "null"}]`` -> S or null, spelled as S with null
    in its type (and its enum). Only where every keyword of S lets a null
    through, and S's keywords do not collide with the node's own."""
    branches = node.get("anyOf")
    if not (isinstance(branches, list) and len(branches) == 2):
        return
    first, second = branches
    if same(second, NULL):
        typed = first
    elif same(first, NULL):
        typed = second
    else:
        return
    if not isinstance(typed, dict) or not _type_names(typed.get("type")):
        return
    if not set(typed) <= TYPE_SPECIFIC | ANNOTATIONS | {"type", "enum"}:
        return
    if not isinstance(typed.get("enum", []), list) or set(typed) & (set(node) - {"anyOf"}):
        return
    del node["anyOf"]
    node.update(typed)
    kinds = _type_names(typed["type"])
    node["type"] = sorted(set(kinds) | {"null"})
    if "enum" in typed:
        node["enum"] = _sorted_set(typed["enum"] + [None])


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
