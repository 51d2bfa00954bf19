"""JSON equality, the one comparison the engine uses everywhere."""

import pytest

from mcpdelta.engine.equality import clone, json_key, same, shallow

EQUAL = [
    ({"listChanged": True, "subscribe": False}, {"subscribe": False, "listChanged": True}),
    ({"a": {"x": 1, "y": [1, 2]}, "b": None}, {"b": None, "a": {"y": [1, 2], "x": 1}}),
    (1, 1.0),
    ({"maximum": 10}, {"maximum": 10.0}),
    ([0.0], [-0.0]),
    (10 ** 18, 1e18),
    ("a", "a"),
    (None, None),
]
UNEQUAL = [
    (True, 1),
    (False, 0),
    ({"readOnlyHint": True}, {"readOnlyHint": 1}),
    ({"a": 1, "b": True}, {"b": 1, "a": 1}),     # == says equal, marshal differs, JSON differs
    ([1, 2], [2, 1]),                            # list order is JSON
    ({"a": None}, {}),                           # null is not absent, here
    (10 ** 18 + 1, 1e18),                        # exact, not through a double
    ("1", 1),
    ([[True]], [[1.0]]),
]


@pytest.mark.parametrize("a, b", EQUAL)
def test_json_equal_values_are_same(a, b):
    assert same(a, b) and same(b, a)
    assert json_key(a) == json_key(b)


@pytest.mark.parametrize("a, b", UNEQUAL)
def test_json_unequal_values_are_not(a, b):
    assert not same(a, b) and not same(b, a)
    assert json_key(a) != json_key(b)


def test_clone_copies_every_container_and_shallow_only_the_top():
    value = {"a": [1, {"b": [True, None, 0.5]}], "c": "x"}
    deep, top = clone(value), shallow(value)
    assert deep == value and top == value and same(deep, value)
    assert deep is not value and deep["a"] is not value["a"] and deep["a"][1] is not value["a"][1]
    assert top is not value and top["a"] is value["a"]
    assert shallow("x") == "x" and clone(3) == 3

