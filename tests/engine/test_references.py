"""Notation is not contract: subschemas moved behind local references, and
back, are no change.

A generated schema has any subset of its subschemas moved out: into
``$defs``, into ``definitions``, or left where they are and pointed at from
a copy's place (``#/properties/...``, as OpenAPI generators write). Each
moved subschema's own children may be moved too, so references lead to
references. Either way round, the engine reports nothing but the dialect
note, and python-jsonschema agrees the two accept the same values."""

import copy

import jsonschema
from hypothesis import HealthCheck, given, settings, strategies as st
from hypothesis_jsonschema import from_schema

from mcpdelta.engine import diff
from tests.engine.strategies import INPUT_SCHEMAS, OUTPUT_SCHEMAS

CHILD_MAPS = ("properties",)
CHILD_VALUES = ("items", "additionalProperties")


def _places(schema, at=()):
    """Pointer parts of every subschema below the root (parents first)."""
    out = []
    if not isinstance(schema, dict):
        return out
    for key in CHILD_MAPS:
        for name, child in (schema.get(key) or {}).items():
            out.append(at + (key, name))
            out += _places(child, at + (key, name))
    for key in CHILD_VALUES:
        if isinstance(schema.get(key), dict):
            out.append(at + (key,))
            out += _places(schema[key], at + (key,))
    return out


def _get(schema, parts):
    for part in parts:
        schema = schema[part]
    return schema


def _pointer(parts):
    return "#" + "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def referenced(schema, chosen, how):
    """``schema`` with the subschemas at ``chosen`` moved behind references.

    ``how`` per place: "$defs" / "definitions" (moved out, deepest first so a
    moved subschema's children point on), or "sibling" (a copy is left at a
    twin place, #/$defs/twins/N, and the original place points at it: the
    reference leads into another part of the document, not into a bag of
    definitions)."""
    out = copy.deepcopy(schema)
    for n, (parts, kind) in enumerate(sorted(zip(chosen, how), key=lambda p: -len(p[0]))):
        holder = _get(out, parts[:-1])
        moved = holder[parts[-1]]
        if kind == "sibling":
            out.setdefault("$defs", {}).setdefault("twins", {"type": "object", "properties": {}})
            out["$defs"]["twins"]["properties"][f"t{n}"] = moved
            holder[parts[-1]] = {"$ref": _pointer(("$defs", "twins", "properties", f"t{n}"))}
        else:
            out.setdefault(kind, {})[f"d{n}"] = moved
            holder[parts[-1]] = {"$ref": _pointer((kind, f"d{n}"))}
    return out


@st.composite
def moved(draw, schemas):
    schema = draw(schemas)
    places = _places(schema)
    chosen = draw(st.lists(st.sampled_from(places), unique=True, max_size=len(places))) if places else []
    how = [draw(st.sampled_from(["$defs", "definitions", "sibling"])) for _ in chosen]
    return schema, referenced(schema, chosen, how), bool(chosen)


def _tool(key, schema):
    return {"tools": [{"name": "t", key: schema}]}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["inputSchema", "outputSchema"]).flatmap(
    lambda key: st.tuples(st.just(key), moved(INPUT_SCHEMAS if key == "inputSchema" else OUTPUT_SCHEMAS))),
    st.data())
def test_subschemas_moved_behind_references_and_back_are_no_change(case, data):
    key, (plain, behind, any_moved) = case
    side = "input" if key == "inputSchema" else "output"
    for old, new in ((plain, behind), (behind, plain)):
        # a respelling is no change at all: the same values validate
        rules = [c.rule for c in diff(_tool(key, old), _tool(key, new))]
        assert rules == [], rules
    # the references are real: a validator reads both as accepting the same values
    for source, other in ((plain, behind), (behind, plain)):
        value = data.draw(from_schema(source), label="value")
        assert jsonschema.Draft202012Validator(other).is_valid(value), (source, value)


def test_a_moved_subschema_that_changed_is_still_reported():
    """The property above would pass for an engine that ignores whatever sits
    behind a reference: a change behind one is reported at the place it
    reaches."""
    plain = {"type": "object", "properties": {"q": {"type": "string"}}}
    behind = referenced(plain, [("properties", "q")], ["sibling"])
    behind["$defs"]["twins"]["properties"]["t0"]["maxLength"] = 5
    changes = diff(_tool("inputSchema", plain), _tool("inputSchema", behind))
    assert [(c.rule, c.path) for c in changes if c.default_severity == "BREAKING"] == [
        ("tool.input.constraint.tightened", "/tools/t/inputSchema/properties/q/maxLength")]
