"""Witnesses by construction at every depth the walk reaches: each input
rule family of ``test_witness.FAMILIES`` nested inside an array's items, a
tuple's prefixItems, an open map's additionalProperties, a patternProperties
entry, an anyOf branch, an Optional (``anyOf [S, null]``) and a local $ref, each
witness re-validated with python-jsonschema."""

import pytest

from tests.witness.test_witness import FAMILIES, diff, separates

WRAPS = {
    "items": lambda s: {"type": "object", "properties": {"rows": {"type": "array", "items": s}},
                        "required": ["rows"]},
    "prefixItems": lambda s: {"type": "object", "properties": {"pair": {
        "type": "array", "prefixItems": [{"type": "string"}, s]}}},
    "additionalProperties": lambda s: {"type": "object", "properties": {"map": {
        "type": "object", "additionalProperties": s}}},
    "patternProperties": lambda s: {"type": "object", "properties": {"map": {
        "type": "object", "patternProperties": {"^k_": s}}}},
    "anyOf": lambda s: {"type": "object", "properties": {"either": {"anyOf": [s, {"type": "integer"}]}}},
    # Python's Optional[...]: the engine reads it as S with null added (notation)
    "optional": lambda s: {"type": "object", "properties": {"either": {"anyOf": [s, {"type": "null"}]}}},
    "$ref": lambda s: {"type": "object", "$defs": {"Row": s},
                       "properties": {"row": {"$ref": "#/$defs/Row"}}},
}
# families whose nested form keeps a witness (a property removed under an
# open holder is "accepted but ignored" at any depth)
NESTED = [f for f in FAMILIES if f[1] == "input" and f[0] not in ("pattern changed",)]


@pytest.mark.parametrize("wrap", sorted(WRAPS))
@pytest.mark.parametrize("family", NESTED, ids=[f[0] for f in NESTED])
def test_a_nested_break_is_witnessed(family, wrap):
    _name, side, old, new, rule, _expected = family
    result, old_tool, new_tool, _ = diff(WRAPS[wrap](old), WRAPS[wrap](new), side)
    found = [c for c in result.changes if c.rule == rule]
    assert found, [c.rule for c in result.changes]
    for change in found:
        assert change.witness is not None, (change.path, change.witness_note)
        assert separates(change, old_tool, new_tool), change.witness
