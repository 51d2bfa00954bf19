"""A witness proves its own change: the rejecting side's validation errors
(python-jsonschema, independent of the witness package) include one from the
change's own keyword, at the change's place."""

from hypothesis import HealthCheck, Phase, given, settings, strategies as st
from jsonschema import validators

from tests.engine.strategies import INPUT_SCHEMAS, OUTPUT_SCHEMAS, mutated
from tests.witness.test_witness import _valid, diff, separates

# the keywords whose errors can show a change at a path ending in a keyword
# (a bound may move between its inclusive and exclusive forms)
FAMILY = {"minimum": {"minimum", "exclusiveMinimum"}, "exclusiveMinimum": {"minimum", "exclusiveMinimum"},
          "maximum": {"maximum", "exclusiveMaximum"}, "exclusiveMaximum": {"maximum", "exclusiveMaximum"},
          "enum": {"enum", "const"}, "const": {"enum", "const"}}
KEYWORDS = {"type", "enum", "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
            "multipleOf", "minLength", "maxLength", "pattern", "format", "minItems", "maxItems",
            "uniqueItems", "minProperties", "maxProperties", "required", "additionalProperties"}


def _errors(schema, value):
    cls = validators.validator_for(schema, default=validators.Draft202012Validator)
    stack = list(cls(schema, format_checker=cls.FORMAT_CHECKER).iter_errors(value))
    out = []
    while stack:
        error = stack.pop()
        out.append(error)
        stack.extend(error.context or ())
    return out


def expected(change):
    """The keywords allowed to reject a witness of ``change`` (None: not a
    keyword-level change this test can name)."""
    suffix = change.rule.split(".", 2)[2]
    last = change.path.rsplit("/", 1)[-1]
    if suffix in ("property.addedRequired", "required.added", "required.removed"):
        return {"required"}
    if suffix in ("property.removed", "property.added"):
        return {"additionalProperties", "unevaluatedProperties", "propertyNames", "required"} \
            if suffix == "property.added" else {"additionalProperties", "unevaluatedProperties",
                                                "propertyNames"}
    if last in KEYWORDS:
        return FAMILY.get(last, {last})
    return None


def test_a_property_named_like_a_number_has_its_change_witnessed():
    """jsonschema-rs names a key that reads as an unsigned integer ("007",
    "+1") by that integer in its error paths: the change at that key is
    still attributed to it, and witnessed like any other."""
    for name in ("007", "+1", "7", "x"):
        old = {"type": "object", "properties": {name: {"type": "number"}, "other": {"type": "string"}}}
        new = {"type": "object", "properties": {name: {"type": "integer"}, "other": {"type": "string"}}}
        result, old_tool, new_tool, _ = diff(old, new)
        [change] = [c for c in result.changes if c.rule == "tool.input.type.narrowed"]
        assert change.witness is not None, (name, change.witness_note)
        assert separates(change, old_tool, new_tool)
        errors = _errors(new, change.witness["value"])
        assert [list(e.absolute_schema_path) for e in errors] == [["properties", name, "type"]]


def test_a_sibling_reported_as_the_same_number_lends_no_witness():
    """ "7" and "007" side by side are both 7 in jsonschema-rs's error paths.
    Number with ``multipleOf: 1`` to integer changes nothing that validates,
    so "007" holds no change at all; "7"'s rejection must not be lent to
    anything there."""
    whole = {"type": "number", "multipleOf": 1}
    old = {"type": "object", "properties": {"7": {"type": "number"}, "007": dict(whole)}}
    new = {"type": "object", "properties": {"7": {"type": "integer"},
                                            "007": {"type": "integer", "multipleOf": 1}}}
    result, old_tool, new_tool, _ = diff(old, new)
    for change in result.changes:
        if change.witness is not None:
            places = [list(e.absolute_schema_path)[:2] for e in _errors(new, change.witness["value"])]
            assert ["properties", change.path.split("/")[-2]] in places, (change.path, places)
    assert not [c for c in result.changes if "/007/" in c.path]  # the same values
    assert [c.path for c in result.changes if c.witness is not None] == [
        "/tools/t/inputSchema/properties/7/type"]


def test_a_property_named_by_thousands_of_digits_is_witnessed_without_a_crash():
    """Beyond u64 ("18446744073709551616") jsonschema-rs keeps a key as text;
    leading zeros it drops, however many: neither may stop the witnesses."""
    for name in ("18446744073709551616", "0" * 5000 + "1"):
        old = {"type": "object", "properties": {name: {"type": "number"}}}
        new = {"type": "object", "properties": {name: {"type": "integer"}}}
        result, old_tool, new_tool, _ = diff(old, new)
        [change] = result.changes
        assert change.witness is not None, change.witness_note
        assert separates(change, old_tool, new_tool)


def _rejecting(change, old_tool, new_tool):
    side = "inputSchema" if change.rule.startswith("tool.input.") else "outputSchema"
    return (new_tool if side == "inputSchema" else old_tool)[side]


def test_resize_page_type_narrowing_is_shown_by_a_fraction_not_by_the_new_minimum():
    """chrome-devtools-mcp 1.10.1 -> 1.11.0: ``width`` went from a number to
    a positive integer below 2**53. ``{"width": 0}`` is rejected by the new
    exclusiveMinimum, not by the type; the type's witness must be a fraction
    the new bounds allow."""
    old = {"type": "object", "properties": {"width": {"type": "number"}, "height": {"type": "number"}},
           "required": ["width", "height"]}
    bounded = {"type": "integer", "exclusiveMinimum": 0, "maximum": 9007199254740991}
    new = {"type": "object", "properties": {"width": dict(bounded), "height": dict(bounded)},
           "required": ["width", "height"]}
    result, old_tool, new_tool, _ = diff(old, new)
    narrowed = [c for c in result.changes if c.rule == "tool.input.type.narrowed"]
    assert {c.path.rsplit("/", 2)[-2] for c in narrowed} == {"width", "height"}
    for change in narrowed:
        assert change.witness is not None, change.witness_note
        assert separates(change, old_tool, new_tool)
        name = change.path.split("/")[-2]
        value = change.witness["value"][name]
        assert value > 0 and value != int(value)  # a fraction, inside the new bounds
        errors = _errors(new, change.witness["value"])
        assert [e.validator for e in errors] == ["type"]
        assert list(errors[0].absolute_schema_path) == ["properties", name, "type"]
    tightened = [c for c in result.changes if c.rule == "tool.input.constraint.tightened"]
    for change in tightened:  # and each bound's witness is rejected by that bound
        if change.witness is not None:
            keyword = change.path.rsplit("/", 1)[-1]
            assert {e.validator for e in _errors(new, change.witness["value"])} & FAMILY.get(
                keyword, {keyword})


@settings(max_examples=60, deadline=None, derandomize=True, database=None,
          phases=[Phase.explicit, Phase.generate],
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_every_witness_is_rejected_by_its_own_keyword(data):
    side = data.draw(st.sampled_from(["input", "output"]))
    old = data.draw(INPUT_SCHEMAS if side == "input" else OUTPUT_SCHEMAS)
    new = data.draw(mutated(old))
    result, old_tool, new_tool, _ = diff(old, new, side, min_severity="NON_BREAKING")
    for change in result.changes:
        if change.witness is None:
            continue
        assert separates(change, old_tool, new_tool), change
        keywords = expected(change)
        if keywords is None:
            continue
        schema = _rejecting(change, old_tool, new_tool)
        assert not _valid(schema, change.witness["value"])
        errors = _errors(schema, change.witness["value"])
        found = {e.validator for e in errors}
        if change.rule.endswith(".property.removed"):
            # or the property's own schema, which the other side no longer has
            name = change.path.rsplit("/", 1)[-1]
            found |= {"<property>" for e in errors if _under(e.absolute_schema_path, name)}
            keywords = keywords | {"<property>"}
        assert found & keywords, (change, found)


def _under(path, name):
    path = list(path)
    return any(path[i] == "properties" and path[i + 1] == name for i in range(len(path) - 1))


def test_ambiguity_is_read_along_the_path_and_never_raises():
    from mcpdelta.witness.validate import ambiguous

    assert ambiguous({"properties": {"7": {}, "007": {}}}, ("properties", "007", "type"))
    assert ambiguous({"anyOf": [{"properties": {"7": {}, "+7": {}}}]}, ("anyOf", "0", "properties", "7"))
    assert not ambiguous({"properties": {"7": {}, "x": {}}}, ("properties", "7", "type"))
    assert not ambiguous({"type": {"7": {}, "007": {}}}, ("type", "7"))  # not a name
    # a malformed list where names belong, and a name of 5,001 digits
    assert not ambiguous({"properties": ["a"]}, ("properties", "0" * 5000 + "1", "type"))


def _tagged(vector):
    """A tagged union of field kinds (mongodb-mcp-server's create-index
    ``fields``), the vector branch's ``numDimensions`` as given."""
    return {"type": "object", "properties": {"fields": {"type": "array", "items": {"COMBINATOR": [
        {"type": "object", "properties": {"type": {"const": "filter"}, "path": {"type": "string"}},
         "required": ["type", "path"], "additionalProperties": False},
        {"type": "object", "properties": {"type": {"const": "vector"}, "path": {"type": "string"},
                                          "numDimensions": vector},
         "required": ["type", "path"], "additionalProperties": False}]}}}, "required": ["fields"]}


def _spelled(schema, combinator):
    import json

    return json.loads(json.dumps(schema).replace("COMBINATOR", combinator))


def test_each_bound_in_a_respelled_union_branch_is_shown_by_its_own_value():
    """anyOf -> oneOf over the same tagged branches, one branch gaining both
    bounds: each bound is proven by a value the other bound lets through
    (found by the tag, not by branch position), never by the sibling's."""
    old = _spelled(_tagged({"type": "number"}), "anyOf")
    new = _spelled(_tagged({"type": "number", "minimum": 1, "maximum": 8192}), "oneOf")
    result, old_tool, new_tool, _ = diff(old, new)
    bounds = {c.path.rsplit("/", 1)[-1]: c for c in result.changes if c.rule == "tool.input.constraint.tightened"}
    assert set(bounds) == {"minimum", "maximum"}
    for keyword, change in bounds.items():
        assert change.witness is not None, change.witness_note
        assert separates(change, old_tool, new_tool)
        [field] = change.witness["value"]["fields"]
        assert field["type"] == "vector"
        dimensions = field["numDimensions"]
        assert dimensions < 1 if keyword == "minimum" else dimensions > 8192
