"""A second reader for the engine's breaking changes, sharing none of its code.

The engine says a schema change is BREAKING and backs it with a witness, a
named reason, or nothing. This module checks each claim with other tools:

- a witness is confirmed by python-jsonschema (not jsonschema-rs, which the
  engine uses), references resolved by that validator itself;
- a change with neither is looked at where it happened: the sub-schema at
  that place is found in each raw schema by following ``$ref`` with this
  module's own resolver, values are drawn from the accepting side with
  hypothesis-jsonschema, and python-jsonschema decides whether one of them
  tells the two sides apart in the breaking direction.

Nothing here imports the engine's normaliser, walk or witness code.
"""

import copy
from urllib.parse import unquote

import jsonschema
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

MAPS = {"properties", "patternProperties", "dependentSchemas", "$defs", "definitions"}
VALUES = {"additionalProperties", "items", "additionalItems", "not", "if", "then", "else",
          "contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties"}
LISTS = {"prefixItems", "allOf", "anyOf", "oneOf"}
PROPERTY_RULES = ("property.removed", "property.added", "property.addedRequired",
                  "required.added", "required.removed")
URI = "urn:mcpdelta-truth:{}"


# --- references, read independently ------------------------------------------

def pointer_target(root, ref):
    """The value a local reference names in ``root`` (None if it names none)."""
    if ref == "#":
        return root
    if not isinstance(ref, str) or not ref.startswith("#/"):
        return None
    node = root
    for part in unquote(ref[2:]).split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


def _escape(part) -> str:
    return str(part).replace("~", "~0").replace("/", "~1")


def deref(root, node, where):
    """Follow ``$ref`` from ``node`` (at pointer ``where``) to what it names:
    (node, pointer), the last node without a reference."""
    for _ in range(64):
        if not (isinstance(node, dict) and isinstance(node.get("$ref"), str)):
            return node, where
        ref = node["$ref"]
        target = pointer_target(root, ref)
        if target is None:
            return node, where
        node, where = target, ref[1:]
    return node, where


def _child(root, node, where, key):
    """The subschema ``key`` of ``node``, looking through a ``$ref`` (its
    siblings first), an Optional's ``anyOf`` / ``oneOf`` (the one branch
    that is not null) and ``allOf`` branches (the one that has it)."""
    if isinstance(node, dict) and key in node:
        return node[key], f"{where}/{_escape(key)}"
    target, at = deref(root, node, where)
    if target is not node and isinstance(target, dict):
        found = _child(root, target, at, key)
        if found is not None:
            return found
    if not isinstance(target, dict):
        return None
    for combinator in ("anyOf", "oneOf", "allOf"):
        branches = target.get(combinator)
        if not isinstance(branches, list):
            continue
        hits = []
        for i, branch in enumerate(branches):
            branch, bat = deref(root, branch, f"{at}/{combinator}/{i}")
            if isinstance(branch, dict) and branch.get("type") == "null":
                continue
            found = _child(root, branch, bat, key)
            if found is not None:
                hits.append(found)
        if len(hits) == 1:
            return hits[0]
    return None


def place_of(root, parts, node=None, where=""):
    """The pointer of the schema node a change's path parts (below the tool's
    schema, or below ``node`` at pointer ``where``) name, read through
    references; stops at a combinator's branch index (the engine numbers
    branches in its own order) and at a keyword whose value is no schema.
    (pointer, parts used)."""
    node = root if node is None else node
    used = 0
    i = 0
    while i < len(parts):
        key = parts[i]
        if key in MAPS and i + 1 < len(parts):
            found = _child(root, node, where, key)
            if found is None or not isinstance(found[0], dict) or str(parts[i + 1]) not in found[0]:
                break
            name = str(parts[i + 1])
            node, where = found[0][name], f"{found[1]}/{_escape(name)}"
            i += 2
        elif key == "prefixItems" and i + 1 < len(parts):
            found = _child(root, node, where, "prefixItems") or _child(root, node, where, "items")
            index = int(parts[i + 1])
            if found is None or not isinstance(found[0], list) or index >= len(found[0]):
                break
            node, where = found[0][index], f"{found[1]}/{index}"
            i += 2
        elif key in VALUES:
            found = _child(root, node, where, key)
            if found is None:
                break
            node, where = found
            i += 1
        else:
            break
        used = i
    return where, used


def places_of(root, parts, limit=16):
    """Every place the parts can name, reading each combinator branch index
    as any of the raw branches (the engine numbers them in its own order):
    [(pointer, parts used)], the deepest first, at most ``limit``."""
    out = []

    def walk(node, where, i, used):
        if len(out) >= limit * 4:
            return
        if i + 1 < len(parts) and parts[i] in ("anyOf", "oneOf", "allOf") and str(parts[i + 1]).isdigit():
            target, at = deref(root, node, where)
            branches = target.get(parts[i]) if isinstance(target, dict) else None
            if isinstance(branches, list):
                for n, branch in enumerate(branches):
                    walk(branch, f"{at}/{parts[i]}/{n}", i + 2, i + 2)
            else:  # a plain schema is a combinator of one branch: itself
                walk(node, where, i + 2, i + 2)
            out.append((where, used))
            return
        reached, more = place_of(root, parts[i:], node, where)
        i += more
        if more:
            node = pointer_target(root, "#" + reached) if reached else root
            where, used = reached, i
        if more and i < len(parts) and parts[i] in ("anyOf", "oneOf", "allOf"):
            walk(node, where, i, used)
        else:
            out.append((where, used))

    walk(root, "", 0, 0)
    out.sort(key=lambda p: -p[1])
    seen, unique = set(), []
    for place in out:
        if place not in seen:
            seen.add(place)
            unique.append(place)
    return unique[:limit]


# --- validators ----------------------------------------------------------------

def validator(root, where="", formats=False):
    """A python-jsonschema validator for the schema at pointer ``where`` of
    ``root``, references resolved by the library against ``root``."""
    cls = jsonschema.validators.validator_for(root, default=jsonschema.Draft202012Validator) \
        if isinstance(root, dict) else jsonschema.Draft202012Validator
    uri = URI.format(id(root))
    resource = Resource.from_contents(root, default_specification=DRAFT202012) \
        if isinstance(root, dict) else Resource.opaque(root)
    registry = Registry().with_resource(uri, resource)
    schema = {"$ref": f"{uri}#{where}"} if where else root
    checker = cls.FORMAT_CHECKER if formats else None
    return cls(schema, registry=registry, format_checker=checker)


def accepts(check, value) -> bool:
    try:
        return check.is_valid(value)
    except (jsonschema.exceptions.SchemaError, jsonschema.exceptions._WrappedReferencingError,
            RecursionError, ValueError, TypeError):
        return False


# --- drawing values ------------------------------------------------------------

def standalone(root, node, depth=0, budget=None):
    """``node`` with every local reference copied in (a recursion past a few
    levels, or a huge schema, becomes ``{}``): a schema hypothesis-jsonschema
    can draw from. Values it gives are only candidates: the validators
    decide."""
    budget = budget if budget is not None else [4000]
    budget[0] -= 1
    if budget[0] < 0 or depth > 12:
        return {}
    if isinstance(node, list):
        return [standalone(root, v, depth + 1, budget) for v in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key in ("$defs", "definitions", "$schema", "$id", "$comment"):
            continue
        if key == "$ref":
            continue
        if key in MAPS:
            out[key] = {k: standalone(root, v, depth + 1, budget) for k, v in value.items()} \
                if isinstance(value, dict) else value
        elif key in VALUES or key in LISTS:
            out[key] = standalone(root, value, depth + 1, budget)
        else:
            out[key] = copy.deepcopy(value)
    ref = node.get("$ref")
    if isinstance(ref, str):
        target = pointer_target(root, ref)
        if target is None:
            return {}
        inlined = standalone(root, target, depth + 1, budget)
        return {"allOf": [inlined, out]} if out else inlined
    return out


class _Found(Exception):
    def __init__(self, value):
        self.value = value


def distinguishing(gen_schema, tells, examples=120):
    """A value drawn from ``gen_schema`` for which ``tells(value)`` holds, or
    None (also when hypothesis-jsonschema cannot draw from the schema)."""
    try:
        strategy = from_schema(gen_schema)
    except Exception:
        return None

    # generation only: a value that tells is kept as drawn (no shrinking, no
    # explaining, which would trace every line of the validators)
    @settings(max_examples=examples, derandomize=True, database=None, deadline=None,
              phases=(Phase.generate,), suppress_health_check=list(HealthCheck))
    @given(st.data())
    def probe(data):
        value = data.draw(strategy)
        if tells(value):
            raise _Found(value)

    try:
        probe()
    except _Found as found:
        return found.value
    except Exception:
        return None
    return None


# --- one change ------------------------------------------------------------------

def check(change, old_tool, new_tool):
    """What the independent reader makes of one BREAKING schema change:
    ("confirmed" | "confirmed with format" | "refuted", detail) for a
    witness; ("named", note) for a named reason; ("distinguished", value) or
    ("unshown", detail) for a change with neither."""
    side = "input" if change["rule"].startswith("tool.input.") else "output"
    key = "inputSchema" if side == "input" else "outputSchema"
    old_raw, new_raw = old_tool.get(key, {}), new_tool.get(key, {})
    accepting, rejecting = (old_raw, new_raw) if side == "input" else (new_raw, old_raw)
    witness = change.get("witness")
    if witness is not None:
        value = witness["value"]
        if accepts(validator(accepting), value) and not accepts(validator(rejecting), value):
            return "confirmed", None
        if accepts(validator(accepting, formats=True), value) and not accepts(
                validator(rejecting, formats=True), value):
            return "confirmed with format", None
        return "refuted", f"witness {value!r}"
    return "unexplained", None


def look_closer(change, old_tool, new_tool, examples=120):
    """For a change with no witness and no named reason: a value from the
    accepting side's sub-schema at the change's place that the other side's
    rejects, or why none was found."""
    side = "input" if change["rule"].startswith("tool.input.") else "output"
    key = "inputSchema" if side == "input" else "outputSchema"
    old_raw, new_raw = old_tool.get(key, {}), new_tool.get(key, {})
    accepting, rejecting = (old_raw, new_raw) if side == "input" else (new_raw, old_raw)
    parts = change["parts"]
    rule = change["rule"].split(".", 2)[2]
    if rule in PROPERTY_RULES and len(parts) >= 2 and parts[-2] == "properties":
        parts = parts[:-2]
    # every reading of the combinator branches on each side, deepest first
    pairs = [(a, r) for a in places_of(accepting, parts) for r in places_of(rejecting, parts)
             if a[1] == r[1]][:8]
    if not pairs:
        pairs = [(("", 0), ("", 0))]
    used = pairs[0][0][1]
    for (a_where, used), (r_where, _) in pairs:
        a_check, r_check = validator(accepting, a_where), validator(rejecting, r_where)
        node = pointer_target(accepting, "#" + a_where) if a_where else accepting
        gen = standalone(accepting, node)
        found = distinguishing(gen, lambda v: accepts(a_check, v) and not accepts(r_check, v),
                               max(20, examples // len(pairs)))
        if found is not None:
            return "distinguished", {"place": "/".join(map(str, parts[:used])), "value": found}
    return "unshown", {"place": "/".join(map(str, parts[:used]))}
