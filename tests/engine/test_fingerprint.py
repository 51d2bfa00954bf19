"""The response fingerprint is value-tolerant and shape-exact."""

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from mcpdelta.engine.fingerprint import result_shape, shape, shape_hash, string_format

# plain words only: a generated string never falls into a format class by chance
words = st.text(alphabet="abcdefghij klm", max_size=12)
scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6),
                    st.floats(allow_nan=False, allow_infinity=False).filter(lambda f: not f.is_integer()),
                    words)
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text("xyz_", min_size=1, max_size=4), inner, max_size=4)),
    max_leaves=25)


def same_kind(value, draw):
    """Another value of the same shape: every scalar replaced by another of its
    type and format class, every object's keys reordered."""
    if value is None or isinstance(value, bool):
        return value if value is None else draw(st.booleans())
    if isinstance(value, int):
        return draw(st.integers(-10**6, 10**6))
    if isinstance(value, float):
        return draw(st.floats(-1e6, 1e6).filter(lambda f: not f.is_integer()))
    if isinstance(value, str):
        return draw(words)
    if isinstance(value, list):
        # every element keeps its shape; an array's shape is the union, so
        # the same elements in another order are the same shape
        return [same_kind(v, draw) for v in reversed(value)]
    keys = list(value)
    return {k: same_kind(value[k], draw) for k in reversed(keys)}


@settings(max_examples=200, deadline=None)
@given(value=values, data=st.data())
def test_values_change_and_the_shape_does_not(value, data):
    other = same_kind(value, data.draw)
    assert shape(other) == shape(value)
    assert shape_hash(shape(other)) == shape_hash(shape(value))
    block = lambda v: {"content": [{"type": "text", "text": json.dumps(v)}], "structuredContent": v}
    assert result_shape(block(other)) == result_shape(block(value))


objects = st.dictionaries(st.text("xyz_", min_size=1, max_size=4), values, min_size=1, max_size=4)


@settings(max_examples=200, deadline=None)
@given(value=objects, data=st.data())
def test_a_removed_key_changes_the_shape(value, data):
    key = data.draw(st.sampled_from(sorted(value)))
    smaller = {k: v for k, v in value.items() if k != key}
    assert shape(smaller) != shape(value)
    assert shape_hash(shape(smaller)) != shape_hash(shape(value))


@settings(max_examples=200, deadline=None)
@given(value=objects, data=st.data())
def test_a_changed_type_changes_the_shape(value, data):
    key = data.draw(st.sampled_from(sorted(value)))
    replacement = [] if not isinstance(value[key], list) else "text"
    changed = {**value, key: replacement}
    assert shape(changed) != shape(value)


def test_format_classes_and_number_kinds():
    assert string_format("2026-12-01T10:00:00Z") == "date-time"
    assert string_format("4f6c0d4e-9d2b-4b6f-8a47-3c1e2f9a7b10") == "uuid"
    assert string_format("https://example.org/x") == "uri"
    assert string_format("someone@example.org") == "email"
    assert string_format("hello world") is None
    assert shape(1) != shape(1.5) and shape(None) != shape("x")
    assert shape([]) == {"type": "array", "items": None}  # an array of unknown


def test_blocks_by_type_and_is_error_kept():
    ok = result_shape({"content": [{"type": "text", "text": "hi"}, {"type": "image", "data": "", "mimeType": "image/png"}]})
    assert sorted(ok["content"]) == ["image", "text"] and ok["isError"] is False
    failed = result_shape({"isError": True, "content": [{"type": "text", "text": "hi"}]})
    assert failed["isError"] is True and failed != ok


def test_a_huge_response_is_bounded():
    deep = current = {}
    for _ in range(200):
        current["a"] = {}
        current = current["a"]
    text = json.dumps(shape(deep))
    assert "truncated" in text and len(text) < 10_000
