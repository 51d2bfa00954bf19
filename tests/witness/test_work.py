"""Witness work: a group of candidates that are all rejected alike (for an
error none of them changes) is given up after its first, and giving it up
never changes a witness."""

import json
import pathlib
import re

import jsonschema_rs
import pytest

from mcpdelta.engine.result import DiffResult
from mcpdelta.witness import DEFAULTS, attach, validate
from tests.witness.test_witness import diff, separates

ROOT = pathlib.Path(__file__).resolve().parents[2]
PLAYWRIGHT = ROOT / "data" / "survey" / "captures" / "playwright-mcp"


ROOT_HOLDER = lambda holder: holder  # noqa: E731
IN_ARRAY = lambda holder: {"type": "object", "properties": {"fields": {"type": "array", "items": holder}},  # noqa: E731
                           "required": ["fields"], "additionalProperties": False}


@pytest.mark.parametrize("wrap", [ROOT_HOLDER, IN_ARRAY], ids=["at the root", "inside array items"])
def test_a_renamed_property_costs_a_candidate_or_two(wrap):
    """Playwright's ``ref`` -> ``target``: every old call lacks the new
    required property and carries the removed one, so each change has only
    a loose witness. Before, 17 to 25 more candidates were tried for a clean
    one that cannot exist."""
    old = {"type": "object", "properties": {"ref": {"type": "string"}, "name": {"type": "string"}},
           "required": ["ref", "name"], "additionalProperties": False}
    new = {"type": "object", "properties": {"target": {"type": "string"}, "name": {"type": "string"}},
           "required": ["target", "name"], "additionalProperties": False}
    old, new = wrap(old), wrap(new)
    result, old_tool, new_tool, stats = diff(old, new)
    changes = [c for c in result.changes
               if c.rule in ("tool.input.property.removed", "tool.input.property.addedRequired")]
    assert len(changes) == 2 and stats["witnessed"] == 2
    for change in changes:
        assert separates(change, old_tool, new_tool)
        attach._MEMO.clear()  # the work itself, not a remembered result
        budget = attach.Budget(DEFAULTS["change_budget"], DEFAULTS["search_budget"])
        witness, note = attach.witness_for(change, result.old, result.new, budget=budget)
        assert witness == change.witness and note is None
        assert budget.used <= 2, (change.rule, budget.used)


def _errors(schema, value):
    return list(jsonschema_rs.validator_for(schema).iter_errors(value))


HOLDER = {"type": "object", "properties": {"a": {"type": "object",
                                                 "properties": {"b": {"type": "string"}},
                                                 "required": ["c"], "additionalProperties": False},
                                           "z": {"type": "integer"}, "t": {}},
          "required": ["t"], "additionalProperties": False}


@pytest.mark.parametrize("value, varied, kind, expected", [
    # raised outside the varied value: stays
    ({"a": {}, "z": "x", "t": 1}, ("a", "b"), "Type", True),
    # the varied value's own error: may go
    ({"a": {"b": 1, "c": 1}, "t": 1}, ("a", "b"), "Type", False),
    # an ancestor's missing required property other than the leading key: stays
    ({"a": {"b": ""}, "t": 1}, ("a", "b"), "Required", True),
    ({"a": {"c": 1}}, ("a", "c"), "Required", True),
    # the leading key itself missing: a candidate may add it
    ({"a": {"b": ""}, "t": 1}, ("a", "c"), "Required", False),
    # an unexpected key other than the leading one: stays; the leading one: may go
    ({"a": {"x": 1}, "t": 1}, ("a", "b"), "AdditionalProperties", True),
    ({"a": {"x": 1}, "t": 1}, ("a", "x"), "AdditionalProperties", False),
])
def test_which_errors_no_candidate_can_change(value, varied, kind, expected):
    errors = [e for e in _errors(HOLDER, value) if type(e.kind).__name__ == kind]
    assert errors, (kind, [type(e.kind).__name__ for e in _errors(HOLDER, value)])
    assert any(validate.unchanged_by(e, varied) for e in errors) is expected


def test_an_error_a_condition_raised_may_go():
    """Under ``then`` the error depends on the ``if``, which sees the varied
    value: a required property missing on an ancestor stays only when no
    condition raised it."""
    plain = _errors({"type": "object", "required": ["extra"]}, {"mode": "x"})
    assert validate.unchanged_by(plain[0], ("mode",))
    schema = {"type": "object", "if": {"properties": {"mode": {"const": "x"}}},
              "then": {"required": ["extra"]}}
    errors = _errors(schema, {"mode": "x"})
    assert [type(e.kind).__name__ for e in errors] == ["Required"]
    assert not validate.unchanged_by(errors[0], ("mode",))


def _version(path):
    return [int(p) for p in re.findall(r"\d+", path.name)]


def _witnesses():
    files = sorted(PLAYWRIGHT.glob("*.json"), key=_version)
    out = []
    for a, b in zip(files, files[1:]):
        result = DiffResult(json.loads(a.read_text()), json.loads(b.read_text()))
        attach.attach_witnesses(result, **DEFAULTS)
        out += [(b.name, c.rule, c.path, c.witness, c.witness_note) for c in result.changes
                if c.witness is not None or c.witness_note is not None]
    return out


def test_giving_up_a_group_never_changes_a_witness(monkeypatch):
    """Every playwright release step, with the shortcut and without it."""
    attach._MEMO.clear()
    quick = _witnesses()
    attach._MEMO.clear()
    monkeypatch.setattr(validate, "unchanged_by", lambda error, varied: False)
    slow = _witnesses()
    attach._MEMO.clear()
    assert sum(w[3] is not None for w in quick) >= 50  # a comparison with substance
    assert quick == slow


@pytest.mark.parametrize("keyword, name, key", [("properties", "0", "0"),
                                               ("patternProperties", "^\\+[0-9]$", "+0")])
def test_a_property_named_like_a_number_is_the_same_place(keyword, name, key):
    """jsonschema-rs reports a key that reads as an unsigned integer ("0",
    "+0") as that integer, as it does an index: an error on the varied
    value itself is not "outside" it, and the clean witness (a string the
    new ``not`` allows, rejected for its type alone) is kept."""
    old = {"type": "object", keyword: {name: {"type": "string"}}}
    new = {"type": "object", keyword: {name: {"type": "integer", "not": {"enum": ["", 0]}}}}
    result, old_tool, new_tool, _ = diff(old, new)
    [narrowed] = [c for c in result.changes if c.rule == "tool.input.type.changed"]
    assert separates(narrowed, old_tool, new_tool)
    assert narrowed.witness["value"] == {key: "a"}


def test_a_missing_holder_keeps_its_candidates_order():
    """An optional object the base leaves out: its candidates come from a
    whole valid value of it and from an empty one, ranked together as
    before; the removed ``ref`` alone (within the new ``maxProperties``) is
    the clean witness."""
    holder = {"type": "object", "minProperties": 1, "additionalProperties": False}
    old = {"type": "object", "properties": {"opt": {**holder, "properties": {
        "ref": {"enum": list(range(100, 150))}, "name": {"type": "string"}}}}}
    new = {"type": "object", "properties": {"opt": {**holder, "maxProperties": 1, "properties": {
        "name": {"type": "string"}}}}}
    new["properties"]["opt"].pop("minProperties")
    result, old_tool, new_tool, _ = diff(old, new)
    [removed] = [c for c in result.changes if c.rule == "tool.input.property.removed"]
    assert separates(removed, old_tool, new_tool)
    assert removed.witness["value"] == {"opt": {"ref": 100}}
