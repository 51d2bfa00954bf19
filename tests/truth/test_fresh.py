"""Both differential checks over ``data/fresh``, servers the engine was never
tuned on: every BREAKING schema change proven, named or shown
(tests/truth/corpus.py), and no schema that changed with no BREAKING reported
letting a value through on one side only (tests/truth/missed.py).

The missed-break check itself is tested first on schemas whose answer is
known by construction. Over the corpus, the default run reads a slice of
servers; ``-m slow`` reads every one.
"""

import pathlib

import pytest

from tests.truth.corpus import FAILING, audit, captures
from tests.truth.missed import audit as missed_audit
from tests.truth.missed import check_schema, close_declared

FRESH = pathlib.Path(__file__).resolve().parents[2] / "data" / "fresh" / "captures"
OPEN = {"type": "object", "properties": {"a": {"type": "integer"}}}
CLOSED = {**OPEN, "additionalProperties": False}
WITH_B = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}}}
# two servers whose steps hold both BREAKING changes and changed schemas without one
SLICE = ("langfuse-mcp", "code-index-mcp")


def test_a_narrowed_bound_with_no_breaking_is_a_missed_break():
    narrowed = {"type": "object", "properties": {"a": {"type": "integer", "maximum": 3}}}
    found = check_schema(OPEN, narrowed, "input", 60)
    assert found is not None and found["value"]["a"] > 3
    assert found["why"][1] == "/properties/a/maximum"


def test_a_new_optional_property_of_an_open_object_is_no_missed_break():
    # an old caller never sends "b" (undeclared keys are outside the contract)
    assert check_schema(OPEN, WITH_B, "input", 60) is None
    # a removed optional input property is still accepted by the open object
    assert check_schema(WITH_B, OPEN, "input", 60) is None


def test_a_closed_output_object_gaining_a_property_is_a_missed_break():
    gained = {**WITH_B, "additionalProperties": False}
    found = check_schema(CLOSED, gained, "output", 60)
    assert found is not None and "b" in found["value"]
    assert found["why"][1] == "/additionalProperties"


def test_javascript_safe_integer_bounds_are_no_missed_break():
    safe = {"type": "object", "properties": {"a": {"type": "integer", "minimum": -(2 ** 53 - 1),
                                                   "maximum": 2 ** 53 - 1}}}
    assert check_schema(OPEN, safe, "input", 60) is None
    tighter = {"type": "object", "properties": {"a": {"type": "integer", "maximum": 2 ** 40}}}
    assert check_schema(OPEN, tighter, "input", 60)["value"]["a"] > 2 ** 40


def test_drawn_values_carry_only_declared_keys():
    closed = close_declared({"anyOf": [OPEN, {"type": "object", "patternProperties": {"^x": {}}}]})
    assert closed["anyOf"][0]["additionalProperties"] is False
    assert "additionalProperties" not in closed["anyOf"][1]  # it says what else it takes


def _corpus_failures(servers):
    records = list(audit(FRESH, servers))
    assert records
    return [f"{r['server']} {r['old_version']} -> {r['new_version']}: {r['rule']} at {r['path']} "
            f"({r['verdict'][0]}: {r['note'] or r['verdict'][1]})"
            for r in records if r["verdict"][0] in FAILING]


def _missed(servers):
    records = list(missed_audit(FRESH, servers, examples=40))
    assert records, "no changed schema without BREAKING to read"
    return [f"{r['server']} {r['old_version']} -> {r['new_version']}: {r['tool']} {r['side']}: "
            f"{r['error'] or r['found']}" for r in records if r["error"] or r["found"]]


def test_the_fresh_corpus_is_large_enough():
    held = captures(FRESH)
    steps = sum(max(0, len(v) - 1) for v in held.values())
    assert len([s for s, v in held.items() if len(v) >= 2]) >= 20 and steps >= 60


def test_a_slice_of_the_fresh_corpus():
    failures = _corpus_failures(SLICE) + _missed(SLICE)
    assert not failures, "\n".join(failures)


@pytest.mark.slow
def test_every_breaking_change_of_the_fresh_corpus_is_proven_or_explained():
    failures = _corpus_failures(None)
    assert not failures, "\n".join(failures)


@pytest.mark.slow
def test_the_fresh_corpus_has_no_missed_break():
    failures = _missed(None)
    assert not failures, "\n".join(failures)
