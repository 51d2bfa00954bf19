"""The fuzzer's default run: no disagreement between the engine and the
values python-jsonschema reads (``tests.engine.fuzz``)."""

import pytest

from tests.engine.fuzz.operators import OPERATORS, at, places
from tests.engine.fuzz.oracle import closed, validator
from tests.engine.fuzz.runner import Draws, Pair, judge, run, summary
from tests.engine.fuzz.seeds import Seed, load_seeds

# Out of the default run: its draws are bounded in CPU seconds, which a loaded
# machine turns into skipped pairs, and its 250 pairs take about a minute of one
# core, past what the suite has left of its ten (-m slow runs these; the long
# run is python -m tests.engine.fuzz).
pytestmark = pytest.mark.slow

DEFAULT = {"pairs": 250, "seed_value": 1, "values_per_side": 10, "max_schema_chars": 2000}


@pytest.fixture(scope="module")
def seeds():
    return load_seeds()


def test_the_seeds_are_thousands_of_distinct_real_schemas(seeds):
    assert len(seeds) >= 2000
    assert {s.side for s in seeds} == {"input", "output"}


def test_operators_are_thirty_or_more_half_of_them_keeping_values():
    keeping = [o for o in OPERATORS if o.keeps]
    assert len(OPERATORS) >= 30
    assert len(keeping) >= len(OPERATORS) // 2 and len(OPERATORS) - len(keeping) >= len(OPERATORS) // 2


def _pair(side, schema, operator_name, place):
    operator = next(o for o in OPERATORS if o.name == operator_name)
    assert operator.applies(at(schema, place), schema, place)
    mutant = operator.apply(schema, place, __import__("random").Random(0))
    return Pair(0, Seed(side, schema, "hand-written"), operator, place, False, mutant)


def test_the_oracle_tells_a_narrowed_enum_apart():
    schema = {"type": "object", "properties": {"mode": {"type": "string", "enum": ["a", "b", "c"]}}}
    # values alone tell the sides apart, and the engine's BREAKING change for
    # it carries a witness python-jsonschema confirms: no disagreement
    outcome, found = judge(_pair("input", schema, "enum.narrowed", ("properties", "mode")), Draws(30, 1))
    assert (outcome, found) == ("changed", [])


def test_places_reach_properties_items_and_branches():
    schema = {"type": "object", "properties": {"a": {"type": "array", "items": {"anyOf": [
        {"type": "string"}, {"type": "null"}]}}}}
    assert places(schema) == [(), ("properties", "a"), ("properties", "a", "items"),
                              ("properties", "a", "items", "anyOf", 0), ("properties", "a", "items", "anyOf", 1)]


def test_the_default_run_finds_no_disagreement(seeds):
    report = run(seeds, DEFAULT["pairs"], DEFAULT["seed_value"], DEFAULT["values_per_side"],
                 DEFAULT["max_schema_chars"])
    skipped = report.outcomes.get("skipped", 0)
    assert report.pairs >= DEFAULT["pairs"] * 0.8, summary(report)
    assert skipped <= report.pairs * 0.2, summary(report)
    assert not report.disagreements, summary(report)


def test_the_convention_closes_only_objects_that_say_nothing_of_other_keys():
    schema = {"type": "object", "properties": {"a": {"type": "object", "properties": {}},
                                               "b": {"type": "object", "additionalProperties": True,
                                                     "properties": {"c": {"type": "string"}}}}}
    out = closed(schema)
    assert out["additionalProperties"] is False and out["properties"]["a"]["additionalProperties"] is False
    assert out["properties"]["b"]["additionalProperties"] is True
    assert "additionalProperties" not in schema  # the schema itself is left as it was


@pytest.mark.parametrize("side", ["input", "output"])
def test_a_format_its_draft_does_not_define_is_read_as_asserted(side):
    # uuid is not a draft-07 format: the engine reads it as later drafts
    # define it (docs/rules.md, "Formats") and reports the tightening
    # unproven; the oracle's asserted reading tells the sides apart by it,
    # so the pair changes values, and an unproven claim is no disagreement
    schema = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
              "properties": {"id": {"type": "string"}}}
    pair = _pair(side, schema, "format.annotation-added", ("properties", "id"))
    pair.new["properties"]["id"]["format"] = "uuid"  # the operator picks among four; this is the one
    outcome, found = judge(pair, Draws(30, 1))
    assert (outcome, found) == ("reclassified", [])


def _break_values(pair):
    old, new = validator(pair.old), validator(pair.new)
    values = [v for side in Draws(30, 1).values(pair) for v in side]
    keep = (lambda v: old.is_valid(v) and not new.is_valid(v)) if pair.side == "input" else (
        lambda v: new.is_valid(v) and not old.is_valid(v))
    return [v for v in values if keep(v)]


@pytest.mark.parametrize("side", ["input", "output"])
def test_a_new_optional_property_breaks_only_a_closed_output(side):
    open_object = {"type": "object", "properties": {"q": {"type": "string"}}}
    closed_object = {**open_object, "additionalProperties": False}
    assert _break_values(_pair(side, open_object, "property.added-optional", ())) == []
    found = _break_values(_pair(side, closed_object, "property.added-optional", ()))
    assert bool(found) == (side == "output")
    assert all("fuzz_new" in v for v in found)
