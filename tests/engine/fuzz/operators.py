"""Mutation operators: each rewrites one place of a schema.

A place is a path of keys from the root to a subschema (the root itself,
a property's subschema, ``items``, a tuple slot, a union or ``allOf``
branch, an ``additionalProperties`` schema, a ``$defs`` entry). An operator
``applies(node, root)`` to the subschema there and ``apply(root, place, rnd)``
returns a new root (the input is never modified) or None. ``keeps`` says
whether it keeps the accepted values by construction: a respelling between
drafts or between generators (zod, pydantic, FastMCP, the TypeScript SDK)
keeps them, every other operator changes them. The runner also plays each
pair backwards (new -> old), so ``a -> b`` covers ``b -> a`` too.
"""

import copy

DRAFT4 = "http://json-schema.org/draft-04/schema#"
DRAFT7 = "http://json-schema.org/draft-07/schema#"
DRAFT2020 = "https://json-schema.org/draft/2020-12/schema"

MAX_DEPTH = 12  # places deeper than this are not visited
MAX_PLACES = 400  # nor more than this many per schema

_MAP_CHILDREN = ("properties", "$defs", "definitions")
_LIST_CHILDREN = ("anyOf", "oneOf", "allOf", "prefixItems")
_ONE_CHILDREN = ("items", "additionalProperties")
# keywords later than draft-04; a rewrite to draft-04 is offered only without them
_NOT_DRAFT4 = {"const", "contains", "propertyNames", "if", "then", "else", "examples", "$defs",
               "prefixItems", "dependentRequired", "dependentSchemas", "$comment", "unevaluatedProperties",
               "unevaluatedItems", "$anchor", "$dynamicRef", "readOnly", "writeOnly", "contentMediaType"}
_NUMERIC = {"integer", "number"}


# --- places ---------------------------------------------------------------

def places(root) -> list:
    """Every place in ``root``, parents before children, in document order."""
    out, stack = [], [((), root, 0)]
    while stack and len(out) < MAX_PLACES:
        path, node, depth = stack.pop(0)
        if not isinstance(node, dict):
            continue
        out.append(path)
        if depth >= MAX_DEPTH:
            continue
        for key in _MAP_CHILDREN:
            if isinstance(node.get(key), dict):
                stack.extend(((*path, key, name), child, depth + 1) for name, child in node[key].items())
        for key in _LIST_CHILDREN:
            if isinstance(node.get(key), list):
                stack.extend(((*path, key, i), child, depth + 1) for i, child in enumerate(node[key]))
        for key in _ONE_CHILDREN:
            value = node.get(key)
            if isinstance(value, dict):
                stack.append(((*path, key), value, depth + 1))
            elif key == "items" and isinstance(value, list):  # draft-07 tuple
                stack.extend(((*path, key, i), child, depth + 1) for i, child in enumerate(value))
    return out


def at(root, place):
    node = root
    for key in place:
        node = node[key]
    return node


def replaced(root, place, new_node):
    """A copy of ``root`` with the subschema at ``place`` replaced."""
    out = copy.deepcopy(root)
    if not place:
        return new_node
    parent = at(out, place[:-1])
    parent[place[-1]] = new_node
    return out


def in_defs(place) -> bool:
    return any(key in ("$defs", "definitions") for key in place if isinstance(key, str))


def types_of(node) -> set:
    t = node.get("type")
    if isinstance(t, str):
        return {t}
    if isinstance(t, list):
        return {x for x in t if isinstance(x, str)}
    return set()


def keywords(root) -> set:
    """Every key of every object in ``root`` (bounded by the document's size)."""
    found, stack = set(), [root]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            found.update(node)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


def dialect(root) -> str:
    s = root.get("$schema") if isinstance(root, dict) else None
    if isinstance(s, str) and "draft-04" in s:
        return "draft-04"
    if isinstance(s, str) and ("draft-07" in s or "draft-06" in s):
        return "draft-07"
    return "2020-12"


# --- the operator type ----------------------------------------------------

class Operator:
    def __init__(self, name, keeps, applies, edit, whole=False, needs=None):
        self.name, self.keeps = name, keeps
        self._applies, self._edit, self._whole = applies, edit, whole
        # a pattern a schema's canonical JSON must match for the operator to
        # fit anywhere in it: seeds are looked for among those
        self.needs = needs

    def applies(self, node, root, place) -> bool:
        try:
            return isinstance(node, dict) and bool(self._applies(node, root, place))
        except (KeyError, TypeError, ValueError, IndexError):
            return False

    def apply(self, root, place, rnd):
        """The mutated root, or None when the edit does not fit after all."""
        if self._whole:  # edits that touch more than the place (refs, $schema)
            return self._edit(copy.deepcopy(root), place, rnd)
        node = copy.deepcopy(at(root, place))
        new = self._edit(node, rnd)
        return None if new is None else replaced(root, place, new)

    def __repr__(self):
        return f"Operator({self.name}, keeps={self.keeps})"


OPERATORS = []


def op(name, keeps, applies, whole=False, needs=None):
    def register(edit):
        OPERATORS.append(Operator(name, keeps, applies, edit, whole, needs))
        return edit
    return register


def _not_root(place):
    return bool(place)


# --- operators that keep the values ----------------------------------------

@op("exclusive.number-to-draft04-bool", True,
    lambda n, r, p: any(isinstance(n.get(k), (int, float)) and not isinstance(n.get(k), bool)
                        and b not in n for k, b in (("exclusiveMinimum", "minimum"),
                                                    ("exclusiveMaximum", "maximum")))
    and dialect(r) != "draft-04" and not (keywords(r) & _NOT_DRAFT4), whole=True, needs='"exclusiveM')
def _exclusive_to_draft4(root, place, rnd):
    node = at(root, place)
    for k, b in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
        v = node.get(k)
        if isinstance(v, (int, float)) and not isinstance(v, bool) and b not in node:
            node[b], node[k] = v, True
    root["$schema"] = DRAFT4
    return root


@op("exclusive.bound-to-draft04-bool", True,
    lambda n, r, p: types_of(n) <= {"integer"} and types_of(n)
    and isinstance(n.get("minimum"), int) and "exclusiveMinimum" not in n
    and dialect(r) != "draft-04" and not (keywords(r) & _NOT_DRAFT4), whole=True)
def _bound_to_draft4(root, place, rnd):
    # an integer's minimum m is draft-04's {minimum: m - 1, exclusiveMinimum: true}
    node = at(root, place)
    node["minimum"] -= 1
    node["exclusiveMinimum"] = True
    root["$schema"] = DRAFT4
    return root


@op("integer.bound-inclusive-to-exclusive", True,
    lambda n, r, p: types_of(n) == {"integer"} and dialect(r) != "draft-04"
    and any(isinstance(n.get(k), int) and not isinstance(n.get(k), bool) and x not in n
            for k, x in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum"))))
def _inclusive_to_exclusive(node, rnd):
    # zod's .gt(n) / .lt(n) against .gte(n + 1) / .lte(n - 1) on integers
    for k, x, step in (("minimum", "exclusiveMinimum", -1), ("maximum", "exclusiveMaximum", 1)):
        v = node.get(k)
        if isinstance(v, int) and not isinstance(v, bool) and x not in node:
            node[x] = node.pop(k) + step
    return node


def _tuple_2020(n, r, p):
    return isinstance(n.get("prefixItems"), list) and dialect(r) == "2020-12"


@op("tuple.prefixItems-to-draft07-items", True, _tuple_2020, whole=True, needs='"prefixItems"')
def _prefix_to_items(root, place, rnd):
    if keywords(root) & {"$defs", "dependentRequired", "dependentSchemas", "unevaluatedProperties",
                         "unevaluatedItems", "$anchor", "$dynamicRef"}:
        return None
    node = at(root, place)
    rest = node.pop("items", None)
    node["items"] = node.pop("prefixItems")
    if rest is not None:
        node["additionalItems"] = rest
    root["$schema"] = DRAFT7
    return root


@op("tuple.draft07-items-to-prefixItems", True,
    lambda n, r, p: isinstance(n.get("items"), list) and dialect(r) != "2020-12", whole=True, needs=r'"items":\[')
def _items_to_prefix(root, place, rnd):
    if "definitions" in keywords(root) and "$ref" in keywords(root):
        return None
    node = at(root, place)
    node["prefixItems"] = node.pop("items")
    if "additionalItems" in node:
        node["items"] = node.pop("additionalItems")
    root["$schema"] = DRAFT2020
    return root


def _required_names(n):
    return [x for x in n.get("required", []) if isinstance(x, str)] if isinstance(n.get("required"), list) else []


@op("dependentRequired.redundant-added", True,
    lambda n, r, p: len(_required_names(n)) >= 2 and "dependentRequired" not in n
    and "dependencies" not in n, whole=True)
def _dependent_required_added(root, place, rnd):
    # a dependency on properties that are required anyway holds for every value
    node = at(root, place)
    first, *rest = _required_names(node)
    if dialect(root) == "2020-12":
        node["dependentRequired"] = {first: rest}
    else:
        node["dependencies"] = {first: rest}
    return root


@op("dependencies.draft07-to-dependentRequired", True,
    lambda n, r, p: isinstance(n.get("dependencies"), dict)
    and all(isinstance(v, list) for v in n["dependencies"].values()), whole=True, needs='"dependencies"')
def _dependencies_to_dependent_required(root, place, rnd):
    if "definitions" in keywords(root) and "$ref" in keywords(root):
        return None
    node = at(root, place)
    node["dependentRequired"] = node.pop("dependencies")
    root["$schema"] = DRAFT2020
    return root


def _has_defs(n, r, p):
    return not p and (isinstance(n.get("$defs"), dict) or isinstance(n.get("definitions"), dict)) \
        and not (isinstance(n.get("$defs"), dict) and isinstance(n.get("definitions"), dict))


def _rewrite_refs(node, old_prefix, new_prefix):
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(old_prefix):
            node["$ref"] = new_prefix + ref[len(old_prefix):]
        for value in node.values():
            _rewrite_refs(value, old_prefix, new_prefix)
    elif isinstance(node, list):
        for value in node:
            _rewrite_refs(value, old_prefix, new_prefix)


@op("defs.definitions-renamed", True, _has_defs, whole=True, needs='efs')
def _defs_renamed(root, place, rnd):
    # $defs <-> definitions; refs follow (both resolve as plain JSON pointers)
    old, new = ("$defs", "definitions") if "$defs" in root else ("definitions", "$defs")
    root[new] = root.pop(old)
    _rewrite_refs(root, f"#/{old}/", f"#/{new}/")
    return root


def _refs_to(root, pointer) -> int:
    count, stack = 0, [root]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            count += node.get("$ref") == pointer
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return count


@op("ref.subschema-moved-into-defs", True,
    lambda n, r, p: p and not in_defs(p) and "$ref" not in keywords(n)
    and not (keywords(n) & {"$id", "$anchor"}), whole=True)
def _ref_out(root, place, rnd):
    node = at(root, place)
    key = "definitions" if dialect(root) != "2020-12" or "definitions" in root else "$defs"
    defs = root.setdefault(key, {})
    if not isinstance(defs, dict):
        return None
    name = "Moved" + str(len(defs))
    defs[name] = node
    parent = at(root, place[:-1])
    parent[place[-1]] = {"$ref": f"#/{key}/{name}"}
    return root


def _inlinable(n, r, p):
    ref = n.get("$ref")
    if not (isinstance(ref, str) and len(n) == 1 and ref.count("/") == 2 and p):
        return False
    _, key, name = ref.split("/")
    target = r.get(key, {}).get(name) if isinstance(r.get(key), dict) else None
    return isinstance(target, dict) and "$ref" not in keywords(target)


@op("ref.inlined", True, _inlinable, whole=True, needs=r'"\$ref"')
def _ref_in(root, place, rnd):
    node = at(root, place)
    _, key, name = node["$ref"].split("/")
    target = copy.deepcopy(root[key][name])
    parent = at(root, place[:-1])
    parent[place[-1]] = target
    if _refs_to(root, f"#/{key}/{name}") == 0:  # the last use: the definition goes too
        del root[key][name]
        if not root[key]:
            del root[key]
    return root


def _nullable_anyof(n, r, p):
    branches = n.get("anyOf")
    if not (isinstance(branches, list) and len(branches) == 2 and {"type": "null"} in branches):
        return False
    other = branches[1 - branches.index({"type": "null"})]
    return isinstance(other.get("type"), str) and other["type"] != "null" and not (
        set(other) & {"enum", "const", "anyOf", "oneOf", "allOf", "not", "$ref", "if"}) and not (
        set(n) & {"type", "enum", "const"})


@op("nullable.anyOf-to-type-list", True, _nullable_anyof, needs=r'\{"type":"null"\}')
def _anyof_to_type_list(node, rnd):
    # pydantic's Optional[T] (anyOf [T, null]) against zod's type [T, "null"]
    branches = node.pop("anyOf")
    other = branches[1 - branches.index({"type": "null"})]
    node.update({k: v for k, v in other.items() if k != "type"})
    node["type"] = [other["type"], "null"]
    return node


@op("nullable.type-list-to-anyOf", True,
    lambda n, r, p: isinstance(n.get("type"), list) and "null" in n["type"] and len(n["type"]) == 2
    and not (set(n) & {"enum", "const", "anyOf", "oneOf"}), needs=r'"type":\[')
def _type_list_to_anyof(node, rnd):
    other = next(t for t in node["type"] if t != "null")
    annotations = {k: node.pop(k) for k in ("title", "description", "default") if k in node}
    node["type"] = other
    return {"anyOf": [node, {"type": "null"}], **annotations}


@op("enum.single-to-const", True,
    lambda n, r, p: isinstance(n.get("enum"), list) and len(n["enum"]) == 1 and "const" not in n
    and dialect(r) != "draft-04", needs='"enum"')
def _enum_to_const(node, rnd):
    node["const"] = node.pop("enum")[0]
    return node


@op("const.to-enum-of-one", True, lambda n, r, p: "const" in n and "enum" not in n, needs='"const"')
def _const_to_enum(node, rnd):
    node["enum"] = [node.pop("const")]
    return node


@op("integer.to-number-multipleOf-1", True,
    lambda n, r, p: n.get("type") == "integer" and "multipleOf" not in n and dialect(r) != "draft-04")
def _integer_to_number(node, rnd):
    node["type"], node["multipleOf"] = "number", 1
    return node


@op("allOf.of-one", True, lambda n, r, p: p and "allOf" not in n and "$ref" not in n)
def _allof_of_one(node, rnd):
    annotations = {k: node.pop(k) for k in ("title", "description") if k in node}
    return {"allOf": [node], **annotations}


def _union(n):
    for key in ("anyOf", "oneOf"):
        if isinstance(n.get(key), list) and len(n[key]) >= 2:
            return key
    return None


@op("union.branches-reordered", True, lambda n, r, p: _union(n), needs=r'Of":\[')
def _union_reordered(node, rnd):
    key = _union(node)
    node[key] = node[key][::-1]
    return node


@op("annotation.title-description-added", True, lambda n, r, p: "title" not in n or "description" not in n)
def _prose_added(node, rnd):
    node.setdefault("title", "Fuzzed title")
    node.setdefault("description", "A description the fuzzer wrote.")
    return node


@op("annotation.examples-and-comment-added", True,
    lambda n, r, p: "examples" not in n and "$comment" not in n and dialect(r) != "draft-04")
def _examples_added(node, rnd):
    node["examples"] = [None]  # examples need not validate: annotations only
    node["$comment"] = "fuzzed"
    return node


@op("annotation.vendor-keyword-added", True, lambda n, r, p: not any(k.startswith("x-") for k in n))
def _vendor_added(node, rnd):
    node[rnd.choice(["x-fastmcp-wrap-result", "x-order", "x-vendor-hint"])] = rnd.choice([True, 3, "v"])
    return node


_ANNOTATIONS = ("title", "description", "examples", "$comment", "readOnly", "writeOnly")


@op("annotation.all-stripped", True,
    lambda n, r, p: any(k in n for k in _ANNOTATIONS) or any(k.startswith("x-") for k in n))
def _annotations_stripped(node, rnd):
    for key in list(node):
        if key in _ANNOTATIONS or key.startswith("x-"):
            del node[key]
    return node


@op("format.annotation-added", True,
    lambda n, r, p: n.get("type") == "string" and "format" not in n)
def _format_added(node, rnd):
    # format is an annotation unless a validator is asked to assert it
    node["format"] = rnd.choice(["date-time", "email", "uri", "uuid"])
    return node


@op("required.reordered", True, lambda n, r, p: len(set(_required_names(n))) >= 2)
def _required_reordered(node, rnd):
    node["required"] = node["required"][::-1]
    return node


@op("type.list-reordered", True,
    lambda n, r, p: isinstance(n.get("type"), list) and len(set(n["type"])) >= 2, needs=r'"type":\[')
def _type_list_reordered(node, rnd):
    node["type"] = node["type"][::-1]
    return node


@op("object.properties-reordered", True,
    lambda n, r, p: isinstance(n.get("properties"), dict) and len(n["properties"]) >= 2)
def _properties_reordered(node, rnd):
    node["properties"] = dict(reversed(list(node["properties"].items())))
    return node


@op("object.additionalProperties-true-spelled", True,
    lambda n, r, p: isinstance(n.get("properties"), dict) and "additionalProperties" not in n
    and "patternProperties" not in n)
def _explicit_open(node, rnd):
    node["additionalProperties"] = rnd.choice([True, {}])
    return node


@op("object.empty-properties-spelled", True,
    lambda n, r, p: n.get("type") == "object" and "properties" not in n)
def _empty_properties(node, rnd):
    # the TypeScript SDK writes properties: {} for a tool without arguments
    node["properties"] = {}
    return node


# --- operators that change the values -------------------------------------

def _numbers(values):
    return [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]


@op("enum.to-range", False,
    lambda n, r, p: isinstance(n.get("enum"), list) and _numbers(n["enum"])
    and len(_numbers(n["enum"])) == len(n["enum"]), needs=r'"enum":\[-?\d')
def _enum_to_range(node, rnd):
    values = node.pop("enum")
    node["minimum"], node["maximum"] = min(values), max(values) + rnd.choice([0, 10])
    node.setdefault("type", "integer" if all(isinstance(v, int) for v in values) else "number")
    return node


@op("range.to-enum", False,
    lambda n, r, p: types_of(n) == {"integer"} and isinstance(n.get("minimum"), int)
    and isinstance(n.get("maximum"), int) and n["minimum"] <= n["maximum"] and "enum" not in n, needs='"maximum"')
def _range_to_enum(node, rnd):
    lo, hi = node.pop("minimum"), node.pop("maximum")
    node["enum"] = sorted({lo, hi, (lo + hi) // 2})
    return node


@op("enum.widened", False, lambda n, r, p: isinstance(n.get("enum"), list) and n["enum"], needs='"enum"')
def _enum_widened(node, rnd):
    sample = node["enum"][0]
    extra = sample + "_new" if isinstance(sample, str) else (
        max(_numbers(node["enum"])) + 1 if _numbers(node["enum"]) else None)
    if extra in node["enum"]:
        return None
    node["enum"] = [*node["enum"], extra]
    return node


@op("enum.narrowed", False, lambda n, r, p: isinstance(n.get("enum"), list) and len(n["enum"]) >= 2, needs='"enum"')
def _enum_narrowed(node, rnd):
    values = list(node["enum"])
    del values[rnd.randrange(len(values))]
    node["enum"] = values
    return node


_BOUNDS = {"integer": ("minimum", "maximum"), "number": ("minimum", "maximum"),
           "string": ("minLength", "maxLength"), "array": ("minItems", "maxItems"),
           "object": ("minProperties", "maxProperties")}


def _bounded_type(n):
    t = types_of(n) - {"null"}
    return next(iter(t)) if len(t) == 1 and next(iter(t)) in _BOUNDS else None


@op("bound.tightened", False, lambda n, r, p: _bounded_type(n) and "enum" not in n and "const" not in n)
def _bound_tightened(node, rnd):
    lo, hi = _BOUNDS[_bounded_type(node)]
    if rnd.random() < 0.5:
        current = node.get(lo)
        node[lo] = (current + 1) if isinstance(current, (int, float)) and not isinstance(current, bool) else 1
    else:
        current = node.get(hi)
        node[hi] = max(current - 1, 0) if isinstance(current, (int, float)) and not isinstance(current, bool) \
            else 3
    if isinstance(node.get(lo), (int, float)) and isinstance(node.get(hi), (int, float)) and node[lo] > node[hi]:
        return None
    return node


@op("bound.loosened", False,
    lambda n, r, p: any(isinstance(n.get(k), (int, float)) and not isinstance(n.get(k), bool)
                        for k in ("minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems",
                                  "exclusiveMinimum", "exclusiveMaximum", "minProperties",
                                  "maxProperties")))
def _bound_loosened(node, rnd):
    keys = [k for k in ("minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems",
                        "exclusiveMinimum", "exclusiveMaximum", "minProperties", "maxProperties")
            if isinstance(node.get(k), (int, float)) and not isinstance(node.get(k), bool)]
    key = rnd.choice(keys)
    if rnd.random() < 0.5:
        del node[key]
    elif key.startswith(("min", "exclusiveMin")):
        node[key] = node[key] - 1 if not key.endswith(("Length", "Items", "Properties")) or node[key] > 0 else 0
    else:
        node[key] = node[key] + 1
    return node


_OTHER_TYPE = {"string": "integer", "integer": "string", "number": "string", "boolean": "string",
               "array": "string", "object": "string", "null": "string"}


@op("type.widened", False, lambda n, r, p: isinstance(n.get("type"), str) and n["type"] != "null")
def _type_widened(node, rnd):
    if node["type"] == "integer" and rnd.random() < 0.5:
        node["type"] = "number"
    else:
        node["type"] = [node["type"], _OTHER_TYPE[node["type"]] if node["type"] in _OTHER_TYPE else "string"]
    return node


@op("type.narrowed", False,
    lambda n, r, p: n.get("type") == "number" or (isinstance(n.get("type"), list) and len(n["type"]) >= 2))
def _type_narrowed(node, rnd):
    if node["type"] == "number":
        node["type"] = "integer"
    else:
        node["type"] = [t for t in node["type"] if t != rnd.choice(node["type"])] or node["type"][:1]
    return node


@op("type.changed", False,
    lambda n, r, p: isinstance(n.get("type"), str) and n["type"] in _OTHER_TYPE and p)
def _type_changed(node, rnd):
    node["type"] = _OTHER_TYPE[node["type"]]
    return node


@op("union.branch-added", False, lambda n, r, p: _union(n) and {"type": "boolean"} not in n[_union(n)], needs=r'Of":\[')
def _branch_added(node, rnd):
    key = _union(node)
    node[key] = [*node[key], {"type": "boolean"}]
    return node


@op("union.branch-removed", False, lambda n, r, p: _union(n), needs=r'Of":\[')
def _branch_removed(node, rnd):
    key = _union(node)
    branches = list(node[key])
    del branches[rnd.randrange(len(branches))]
    node[key] = branches
    return node


@op("object.closed-to-open", False, lambda n, r, p: n.get("additionalProperties") is False, needs='"additionalProperties":false')
def _closed_to_open(node, rnd):
    del node["additionalProperties"]
    return node


@op("object.open-to-closed", False,
    lambda n, r, p: isinstance(n.get("properties"), dict) and n.get("additionalProperties") in (None, True, {}))
def _open_to_closed(node, rnd):
    node["additionalProperties"] = False
    return node


def _optional_names(n):
    props = n.get("properties")
    if not isinstance(props, dict):
        return []
    required = set(_required_names(n))
    return [k for k in props if k not in required]


@op("required.added", False, lambda n, r, p: _optional_names(n))
def _required_added(node, rnd):
    node["required"] = [*_required_names(node), rnd.choice(_optional_names(node))]
    return node


@op("required.removed", False, lambda n, r, p: _required_names(n))
def _required_removed(node, rnd):
    names = _required_names(node)
    del names[rnd.randrange(len(names))]
    if names:
        node["required"] = names
    else:
        del node["required"]
    return node


@op("property.added-optional", False,
    lambda n, r, p: isinstance(n.get("properties"), dict) and "fuzz_new" not in n["properties"])
def _property_added(node, rnd):
    node["properties"] = {**node["properties"], "fuzz_new": {"type": rnd.choice(["string", "integer"])}}
    return node


@op("property.added-required", False,
    lambda n, r, p: isinstance(n.get("properties"), dict) and "fuzz_new" not in n["properties"])
def _property_added_required(node, rnd):
    node["properties"] = {**node["properties"], "fuzz_new": {"type": "string"}}
    node["required"] = [*_required_names(node), "fuzz_new"]
    return node


@op("property.removed", False,
    lambda n, r, p: isinstance(n.get("properties"), dict) and n["properties"])
def _property_removed(node, rnd):
    name = rnd.choice(sorted(node["properties"]))
    node["properties"] = {k: v for k, v in node["properties"].items() if k != name}
    if name in _required_names(node):
        node["required"] = [x for x in node["required"] if x != name]
        if not node["required"]:
            del node["required"]
    return node


@op("string.pattern-changed", False, lambda n, r, p: n.get("type") == "string" and "enum" not in n)
def _pattern_changed(node, rnd):
    node["pattern"] = "^[a-z0-9_]+$" if node.get("pattern") != "^[a-z0-9_]+$" else "^[A-Z]+$"
    return node


@op("combinator.not-added", False,
    lambda n, r, p: "not" not in n and (n.get("type") in ("string", "integer", "number")))
def _not_added(node, rnd):
    node["not"] = {"enum": ["" if node["type"] == "string" else 0]}
    return node


@op("combinator.allOf-member-removed", False,
    lambda n, r, p: isinstance(n.get("allOf"), list) and n["allOf"], needs='"allOf"')
def _allof_member_removed(node, rnd):
    members = list(node["allOf"])
    del members[rnd.randrange(len(members))]
    if members:
        node["allOf"] = members
    else:
        del node["allOf"]
    return node


@op("const.changed", False, lambda n, r, p: "const" in n, needs='"const"')
def _const_changed(node, rnd):
    v = node["const"]
    node["const"] = v + "_x" if isinstance(v, str) else (not v if isinstance(v, bool) else (
        v + 1 if isinstance(v, (int, float)) else "x"))
    return node


@op("nullable.added", False,
    lambda n, r, p: isinstance(n.get("type"), str) and n["type"] != "null" and p
    and not (set(n) & {"enum", "const"}))
def _nullable_added(node, rnd):
    node["type"] = [node["type"], "null"]
    return node


@op("nullable.removed", False, lambda n, r, p: _nullable_anyof(n, r, p) or (
    isinstance(n.get("type"), list) and "null" in n["type"] and len(n["type"]) >= 2))
def _nullable_removed(node, rnd):
    if isinstance(node.get("anyOf"), list):
        branches = node.pop("anyOf")
        other = branches[1 - branches.index({"type": "null"})]
        node.update(other)
    else:
        node["type"] = [t for t in node["type"] if t != "null"]
        if len(node["type"]) == 1:
            node["type"] = node["type"][0]
    return node


@op("object.propertyNames-added", False,
    lambda n, r, p: types_of(n) == {"object"} and "propertyNames" not in n and dialect(r) != "draft-04")
def _property_names_added(node, rnd):
    node["propertyNames"] = {"maxLength": 4}
    return node


@op("object.propertyNames-removed", False, lambda n, r, p: "propertyNames" in n, needs='"propertyNames"')
def _property_names_removed(node, rnd):
    del node["propertyNames"]
    return node


@op("array.uniqueItems-added", False, lambda n, r, p: types_of(n) == {"array"} and not n.get("uniqueItems"))
def _unique_added(node, rnd):
    node["uniqueItems"] = True
    return node


@op("number.multipleOf-added", False,
    lambda n, r, p: types_of(n) & _NUMERIC and "multipleOf" not in n and "enum" not in n)
def _multiple_of_added(node, rnd):
    node["multipleOf"] = rnd.choice([2, 5, 0.5])
    return node


BY_NAME = {o.name: o for o in OPERATORS}
assert len(BY_NAME) == len(OPERATORS), "operator names are unique"
