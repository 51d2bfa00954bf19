"""``remembered``: within it each schema is normalised once and each pair of
schemas diffed once; what it gives back is what the engine gives without
it, for any tool and place. Outside it nothing is kept."""

import copy

from mcpdelta.engine.normalise import normalise_schema
from mcpdelta.engine.prose import classify
from mcpdelta.engine.remember import remembered
from mcpdelta.engine.schema import diff_schema

SCHEMA = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
          "properties": {"q": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                         "n": {"$ref": "#/definitions/count"}},
          "definitions": {"count": {"type": "integer", "exclusiveMinimum": 0}}}

# n narrowed from 1..10 to 1..5, q no longer null, a required property added
OLD = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1, "maximum": 10},
                                        "q": {"type": ["string", "null"]}}}
NEW = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1, "maximum": 5},
                                        "q": {"type": "string"}, "k": {"type": "string"}},
       "required": ["k"]}


def _seen(changes):
    return [(c.as_json(), c.schema_path, c.probe) for c in changes]


def test_equal_schemas_are_normalised_once_and_the_result_is_the_same():
    plain = normalise_schema(SCHEMA)
    with remembered():
        first = normalise_schema(SCHEMA)
        twin = normalise_schema(copy.deepcopy(SCHEMA))  # another object, the same text
    assert twin is first
    assert first == plain


def test_another_spelling_is_its_own():
    """1 and 1.0 are one number to JSON, but a message or pointer may show
    either: only the same text shares a result."""
    spelled = copy.deepcopy(SCHEMA)
    spelled["definitions"]["count"]["exclusiveMinimum"] = 0.0
    reordered = dict(reversed(list(SCHEMA.items())))
    with remembered():
        first = normalise_schema(SCHEMA)
        assert normalise_schema(spelled) is not first
        assert normalise_schema(reordered) is not first


def test_outside_and_after_nothing_is_remembered():
    with remembered():
        inside = normalise_schema(SCHEMA)
    assert normalise_schema(SCHEMA) is not inside
    assert normalise_schema(SCHEMA) is not normalise_schema(SCHEMA)


def test_a_nested_use_keeps_its_own_and_gives_the_outer_one_back():
    with remembered():
        outer = normalise_schema(SCHEMA)
        with remembered():
            inner = normalise_schema(SCHEMA)
        assert inner is not outer
        assert normalise_schema(SCHEMA) is outer


def test_non_objects_are_never_remembered():
    with remembered():
        assert normalise_schema(True) == ({}, ())
        assert normalise_schema(False) == (False, ())


def test_a_pair_met_again_gives_the_changes_made_for_its_own_tool_and_place():
    alone = {(entity, side): _seen(diff_schema(side, entity, f"/tools/{entity}/inputSchema", OLD, NEW))
             for entity in ("search", "find") for side in ("input", "output")}
    assert len(alone[("search", "input")]) >= 3
    with remembered():
        first = diff_schema("input", "search", "/tools/search/inputSchema", OLD, NEW)
        kept = {(entity, side): _seen(diff_schema(side, entity, f"/tools/{entity}/inputSchema",
                                                  copy.deepcopy(OLD), copy.deepcopy(NEW)))
                for entity in ("search", "find") for side in ("input", "output")}
        again = diff_schema("input", "search", "/tools/search/inputSchema", OLD, NEW)
    assert kept == alone
    assert {row[0]["entity"] for row in kept[("find", "input")]} == {"find"}
    assert again is not first and all(a is not b for a, b in zip(again, first))  # fresh objects


def test_prose_scored_once_gives_the_same_verdict():
    old, new = "Search the notes.", "Search the notes by title only."
    plain = classify(old, new)
    assert classify(old, new) is not plain  # alone, each call scores again
    with remembered():
        first = classify(old, new)
        assert classify(old, new) is first  # met again: the verdict kept
        assert classify(new, old) is not first  # another pair of texts is its own
    assert first == plain


def test_a_tool_met_again_gives_its_very_changes_only_to_a_caller_that_settles_once():
    """``settles_once`` (the diff stage): the same two tool objects give back
    the changes they gave before, the very objects; otherwise, and for
    another tool, fresh ones equal to the engine's alone."""
    from mcpdelta.engine.tools import diff_tools

    old = [{"name": "search", "inputSchema": OLD}, {"name": "gone", "inputSchema": {}}]
    new = [{"name": "search", "inputSchema": NEW}, {"name": "came", "inputSchema": {}}]

    def diffed():
        changes = []
        diff_tools(old, new, changes)
        return changes

    alone = [c.as_json() for c in diffed()]
    with remembered():
        assert all(a is not b for a, b in zip(diffed(), diffed()))
    with remembered(settles_once=True):
        first = diffed()
        again = diffed()
        other = []
        diff_tools(copy.deepcopy(old), copy.deepcopy(new), other)
    assert len(first) >= 5 and all(a is b for a, b in zip(first, again))
    assert all(a is not b for a, b in zip(first, other))
    assert [c.as_json() for c in first] == [c.as_json() for c in other] == alone
