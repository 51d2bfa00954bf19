"""``remembered``: within it a schema object is normalised once; outside it,
and for another object, the normaliser works as ever."""

import copy

from mcpdelta.engine.normalise import normalise_schema, remembered

SCHEMA = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
          "properties": {"q": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                         "n": {"$ref": "#/definitions/count"}},
          "definitions": {"count": {"type": "integer", "exclusiveMinimum": 0}}}


def test_within_one_object_is_normalised_once_and_the_result_is_the_same():
    plain = normalise_schema(SCHEMA)
    with remembered():
        first = normalise_schema(SCHEMA)
        again = normalise_schema(SCHEMA)
        twin = normalise_schema(copy.deepcopy(SCHEMA))
    assert again is first
    assert twin is not first and twin == first  # an equal object is its own
    assert first == plain


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
