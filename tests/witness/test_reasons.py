"""Every BREAKING schema change is proven or explained: the named reasons
a witness note gives, each on a small named pair, and each checked against
python-jsonschema where a value is involved."""

import jsonschema

from mcpdelta.engine.result import DiffResult
from mcpdelta.witness import attach_witnesses
from mcpdelta.witness.evidence import BY_RULE, PROVEN, evidence
from tests.witness.test_witness import obj


def _changes(old, new, key="inputSchema"):
    result = DiffResult({"tools": [{"name": "t", key: old}]}, {"tools": [{"name": "t", key: new}]})
    attach_witnesses(result)
    return {c.path.split(f"/{key}", 1)[1]: c for c in result.changes if c.severity == "BREAKING"}


def test_a_pattern_that_lost_strings_is_witnessed_by_one_of_them():
    old = obj({"name": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"}}, ["name"])
    new = obj({"name": {"type": "string", "pattern": "^[a-z][a-z_]*$"}}, ["name"])
    change = _changes(old, new)["/properties/name/pattern"]
    assert change.rule == "tool.input.constraint.tightened"
    value = change.witness["value"]
    assert jsonschema.Draft202012Validator(old).is_valid(value)
    assert not jsonschema.Draft202012Validator(new).is_valid(value)


def test_a_change_only_a_format_tells_apart_is_format_only():
    """A format removed and a minimum length added: with formats asserted
    every old value ("a URI") is non-empty; read as an annotation, "" tells
    the two apart. The note names that, and no witness is claimed."""
    old = obj({"url": {"type": "string", "format": "uri"}}, ["url"])
    new = obj({"url": {"type": "string", "minLength": 1}}, ["url"])
    change = _changes(old, new)["/properties/url/minLength"]
    assert change.witness is None
    assert change.witness_note.startswith("format-only: ")
    assert evidence(None, change.witness_note) == BY_RULE


def test_a_keyword_no_validator_knows_is_named_and_not_searched():
    old = obj({"cur": {"type": "string", "nullable": True}})
    new = obj({"cur": {"type": "string"}})
    change = _changes(old, new)["/properties/cur/nullable"]
    assert change.rule == "tool.input.schema.changed"
    assert change.witness_note.startswith("none by nature for a standard validator: 'nullable'")


def test_an_unmodelled_keyword_without_a_value_is_named_as_such():
    """dependentSchemas is a validation keyword the walk does not model: the
    net reports it, and where no value shows it the note says the rule, not
    the search, stands behind it."""
    old = obj({"a": {"type": "string"}, "b": {"type": "string"}})
    new = dict(old, dependentSchemas={"a": {"required": ["b"]}})
    change = _changes(old, new)["/dependentSchemas"]
    assert change.rule == "tool.input.schema.changed"
    if change.witness is None:
        assert change.witness_note.startswith("unmodelled keyword 'dependentSchemas'")
    else:  # shown: a call with a and without b
        assert evidence(change.witness, None) == PROVEN
        assert "a" in change.witness["value"] and "b" not in change.witness["value"]


def test_a_combinator_change_borrows_the_witness_of_a_change_inside_it():
    """A oneOf whose branches moved in a way that cannot be ordered, left
    without a witness of its own (here: its search made to give up), is
    shown by the witness of a change inside one of its branches, on the same
    side: that value crosses the combinator the wrong way too."""
    from mcpdelta.witness.attach import _borrowed

    old = obj({"op": {"oneOf": [obj({"kind": {"const": "add"}, "n": {"type": "number"}}, ["kind"]),
                                obj({"n": {"type": "string"}})]}}, ["op"])
    new = obj({"op": {"oneOf": [obj({"kind": {"const": "add"}, "n": {"type": "integer"}}, ["kind"]),
                                obj({"n": {"type": "string", "minLength": 2}})]}}, ["op"])
    result = DiffResult({"tools": [{"name": "t", "inputSchema": old}]},
                        {"tools": [{"name": "t", "inputSchema": new}]})
    attach_witnesses(result)
    outer = next(c for c in result.changes if c.path.endswith("/properties/op/oneOf"))
    assert outer.rule == "tool.input.constraint.changed"
    outer.witness, outer.witness_note = None, "no witness found within the bounds: 0 constructed"
    stats = {"witnessed": 0, "not_found": 1, "cut_short": 0}
    _borrowed(result.changes, stats)
    assert outer.witness is not None and stats == {"witnessed": 1, "not_found": 0, "cut_short": 0}
    assert outer.witness_note.startswith("the witness of tool.input.")
    value = outer.witness["value"]
    assert jsonschema.Draft202012Validator(old).is_valid(value)
    assert not jsonschema.Draft202012Validator(new).is_valid(value)
