"""Where a witness looks for a change inside a union: the old side's branch
the walk compared with the new side's changed one."""

from mcpdelta.engine.normalise import normalise_schema
from mcpdelta.witness.location import locate


def _normal(union):
    return normalise_schema({"type": "object", "properties": {"v": {"anyOf": union}}, "required": ["v"]})[0]


def test_a_changed_branch_is_paired_as_the_walk_pairs_it():
    # one branch changed on each side, sharing nothing: the walk pairs the
    # two left over (integer -> boolean), whatever their places in the
    # normal forms; the unchanged string branch is no partner of anything
    old = _normal([{"type": "integer", "minimum": 0}, {"type": "string", "pattern": "^x"}])
    new = _normal([{"type": "boolean"}, {"type": "string", "pattern": "^x"}])
    at = [b["type"] for b in new["properties"]["v"]["anyOf"]].index("boolean")
    loc = locate(("properties", "v", "anyOf", at, "type"), old, new, "type.changed", new_side="r")
    assert loc.r_node == {"type": "boolean"}
    assert loc.a_node == {"type": "integer", "minimum": 0}


def test_an_unchanged_branch_is_its_own_partner():
    # a branch added before it moves it to another index on the new side:
    # the index alone would name the old side's string branch
    old = _normal([{"type": "integer", "minimum": 0}, {"type": "string", "pattern": "^x"}])
    new = _normal([{"type": "integer", "minimum": 0}, {"type": "string", "pattern": "^y"}, {"const": "a"}])
    at = [b.get("type") for b in new["properties"]["v"]["anyOf"]].index("integer")
    assert at != [b["type"] for b in old["properties"]["v"]["anyOf"]].index("integer")
    loc = locate(("properties", "v", "anyOf", at, "minimum"), old, new, "constraint.changed", new_side="r")
    assert loc.a_node == {"type": "integer", "minimum": 0}
