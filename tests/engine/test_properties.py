"""Property-based tests of the engine (hypothesis)."""

import contextlib
import io
import json
import pathlib
import random
import tempfile
import xml.etree.ElementTree as ET

import jsonschema
from hypothesis import HealthCheck, assume, given, settings, strategies as st
from hypothesis_jsonschema import from_schema

from mcpdelta.engine import diff
from mcpdelta.cli import main
from mcpdelta.engine.catalog import BREAKING, DOCUMENTATION, NON_BREAKING
from mcpdelta.engine.manifest import validate_manifest
from mcpdelta.engine.normalise import normalise_schema
from mcpdelta.engine.result import DiffResult
from mcpdelta.errors import InputError
from mcpdelta.report import FORMATS
from tests.engine.strategies import (INPUT_SCHEMAS, OUTPUT_SCHEMAS, _schemas, manifests, mutated,
                                     permuted, shuffled)

SAFE = {NON_BREAKING, DOCUMENTATION}
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(manifests())
def test_a_manifest_against_itself_has_no_changes(manifest):
    assert diff(manifest, manifest) == []


@FAST
@given(manifests(), st.randoms(use_true_random=False))
def test_shuffling_orders_changes_nothing(manifest, rnd):
    assert diff(manifest, shuffled(manifest, rnd)) == []


@FAST
@given(st.data())
def test_the_engine_never_raises_on_mutated_manifests(data):
    """A mutated manifest is either refused by validation with an InputError
    (the CLI's one-line exit 2) or diffed without raising."""
    old = data.draw(manifests())
    new = data.draw(mutated(old))
    try:
        validate_manifest(new, "new")
    except InputError:
        return
    changes = diff(old, new)
    backwards = diff(new, old)
    # a real edit is never silent, in either direction. Not real: a surface
    # present on one side only (not captured on the other), and a respelling
    # that means the same schema (``properties: {}`` dropped, say).
    if _meaning(old) != _meaning(new) and _surfaces(old) == _surfaces(new):
        assert changes and backwards


def _without_nulls(value):
    """Outside schemas a null field and an absent one are one spelling."""
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def _meaning(manifest):
    """The manifest with schemas in one dialect, null fields dropped outside
    schemas, vendor keys dropped inside them, and key order ignored."""
    tools = []
    for original in manifest.get("tools", []):
        tool = _without_nulls({k: v for k, v in original.items()
                               if k not in ("inputSchema", "outputSchema")})
        for key in ("inputSchema", "outputSchema"):
            if key in original:
                tool[key] = _vendor_keys_dropped(_redundant_types_dropped(normalise_schema(original[key])[0]))
        tools.append(tool)
    rest = _without_nulls({k: v for k, v in manifest.items() if k != "tools"})
    return json.dumps({**rest, "tools": tools}, sort_keys=True)


def _vendor_keys_dropped(node):
    """``x-`` keys validate nothing (docs/rules.md: not reported), except
    ``x-mcp-header``, which changes how a call is sent."""
    if isinstance(node, list):
        return [_vendor_keys_dropped(x) for x in node]
    if not isinstance(node, dict):
        return node
    return {k: _vendor_keys_dropped(v) for k, v in node.items()
            if not (isinstance(k, str) and k.startswith("x-") and k != "x-mcp-header")}


def _json_types(value) -> set:
    if isinstance(value, bool):
        return {"boolean"}
    if isinstance(value, int):
        return {"integer", "number"}
    if isinstance(value, float):
        return {"number"} | ({"integer"} if value.is_integer() else set())
    return {{str: "string", list: "array", dict: "object", type(None): "null"}[type(value)]}


def _redundant_types_dropped(node):
    """``type`` beside an ``enum`` whose every value is of that type says
    nothing more (``{"type": "string", "enum": ["a"]}`` is ``{"enum": ["a"]}``),
    nor does a bound no value of the enum crosses; a listed value a bound
    refuses is no value of the schema, and a keyword for a type the node
    refuses acts on nothing (the values each side accepts decide)."""
    if isinstance(node, list):
        return [_redundant_types_dropped(x) for x in node]
    if not isinstance(node, dict):
        return node
    out = {k: _redundant_types_dropped(v) for k, v in node.items()}
    if isinstance(out.get("enum"), list):  # a listed value a bound beside it refuses is not accepted
        out["enum"] = [v for v in out["enum"] if all(_holds(rule, v, out[key]) for key, rule in _BOUNDS.items()
                                                     if key in out)]
    kinds = out.get("type")
    kinds = {kinds} if isinstance(kinds, str) else set(kinds) if isinstance(kinds, list) else None
    if kinds is not None:  # a keyword for a type the node refuses acts on no value of it
        acted = kinds | ({"integer"} if "number" in kinds else set()) | ({"number"} if "integer" in kinds else set())
        out = {k: v for k, v in out.items() if _ACTS_ON.get(k, acted) & acted}
    if kinds is not None and isinstance(out.get("enum"), list) and all(_json_types(v) & kinds for v in out["enum"]):
        del out["type"]
    # so is a bound that excludes none of the enum's values (docs/rules.md)
    listed = out.get("enum")
    for key, holds in _BOUNDS.items():
        if key in out and isinstance(listed, list) and all(_holds(holds, v, out[key]) for v in listed):
            del out[key]
    return out


# JSON Schema's type-specific keywords and the types they act on, written out here
# rather than read from the engine (keywords.ACTS_ON): the test judges the engine
_ACTS_ON = {**dict.fromkeys(("minLength", "maxLength", "pattern", "format"), {"string"}),
            **dict.fromkeys(("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"),
                            {"number", "integer"}),
            **dict.fromkeys(("items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains"),
                            {"array"}),
            **dict.fromkeys(("properties", "required", "additionalProperties", "patternProperties",
                             "propertyNames", "minProperties", "maxProperties", "dependentRequired"),
                            {"object"})}

_BOUNDS = {"minLength": (str, lambda v, b: len(v) >= b), "maxLength": (str, lambda v, b: len(v) <= b),
           "minimum": ((int, float), lambda v, b: v >= b), "maximum": ((int, float), lambda v, b: v <= b),
           "exclusiveMinimum": ((int, float), lambda v, b: v > b),
           "exclusiveMaximum": ((int, float), lambda v, b: v < b)}


def _holds(rule, value, bound) -> bool:
    """Does ``value`` keep to ``bound`` (a value of another type passes)?"""
    kind, test = rule
    if isinstance(value, bool) or not isinstance(value, kind):
        return True
    return isinstance(bound, (int, float)) and not isinstance(bound, bool) and test(value, bound)


def _surfaces(manifest):
    return set(manifest)  # a top-level key on one side only was not captured on the other


# --- no false alarms: order and capture are not contract -------------------

NO_CHANGE = {
    "text": lambda out: out.startswith("no changes; grade none; PASS"),
    "json": lambda out: (lambda d: d["changes"] == [] and d["grade"] == "none"
                         and d["verdict"] == "pass")(json.loads(out)),
    "markdown": lambda out: "grade **none** · no changes" in out,
    "sarif": lambda out: json.loads(out)["runs"][0]["results"] == [],
    "github": lambda out: out.strip() == "mcpdelta: no changes; grade none; pass",
    "junit": lambda out: (lambda root: (root.get("tests"), root.get("failures")) == ("0", "0"))(
        ET.fromstring(out)),
    "changelog": lambda out: "Grade **none**: no changes." in out,
}


def _cli_diff(old, new, fmt):
    """``mcpdelta diff OLD NEW --format FMT`` in this process: (exit, stdout)."""
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for side, manifest in (("old", old), ("new", new)):
            path = pathlib.Path(tmp) / f"{side}.json"
            path.write_text(json.dumps(manifest), encoding="utf-8")
            paths.append(str(path))
        config = pathlib.Path(tmp) / "empty.yml"
        config.write_text("{}\n", encoding="utf-8")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = main(["diff", *paths, "--format", fmt, "--config", str(config)])
    return code, out.getvalue()


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(manifests(), st.randoms(use_true_random=False), st.data())
def test_order_and_uncaptured_surfaces_are_no_change(manifest, rnd, data):
    """Every object's keys and every keyed list in another order, and any
    top-level surface dropped from one side: no change, grade none, exit 0,
    in every output format."""
    old, new = manifest, permuted(manifest, rnd)
    dropped = data.draw(st.sampled_from([None, *sorted(manifest)]), label="dropped")
    if dropped is not None:
        side = data.draw(st.sampled_from(["old", "new"]), label="from")
        if side == "old":
            old = {k: v for k, v in old.items() if k != dropped}
        else:
            new = {k: v for k, v in new.items() if k != dropped}
    result = DiffResult(old, new)
    assert (result.changes, result.grade, result.exit_code) == ([], "none", 0)
    for fmt in FORMATS:
        code, out = _cli_diff(old, new, fmt)
        assert code == 0 and NO_CHANGE[fmt](out), (fmt, out)
    # the same permuted pair is still compared: one tool gone is caught
    if old.get("tools") and new.get("tools"):
        gone = sorted(t["name"] for t in new["tools"])[0]
        fewer = {**new, "tools": [t for t in new["tools"] if t["name"] != gone]}
        code, out = _cli_diff(old, fewer, "json")
        found = [(c["rule"], c["entity"]) for c in json.loads(out)["changes"]]
        assert code == 1 and found == [("tool.removed", gone)], found


def _with_null(schema):
    """S with null added to its type (and to its enum, if any)."""
    out = dict(schema)
    out["type"] = [schema["type"], "null"]
    if "enum" in schema:
        out["enum"] = schema["enum"] + [None]
    return out


@FAST
@given(st.one_of(_schemas(closed=True), _schemas(closed=False)),
       st.sampled_from(["inputSchema", "outputSchema"]), st.data())
def test_optional_spelled_either_way_is_no_breaking_change(schema, key, data):
    """Pydantic's ``anyOf: [S, {"type": "null"}]`` against S with null in
    its type: the same values validate, and the engine reports nothing
    (so certainly nothing BREAKING), in both directions of the rewrite."""
    optional = {"anyOf": [schema, {"type": "null"}]}
    spelled = _with_null(schema)

    def tool(value):
        return _tool({"type": "object", "properties": {"x": value}}, key)

    for a, b in ((optional, spelled), (spelled, optional)):
        changes = diff(tool(a), tool(b))
        assert not [c for c in changes if c.default_severity == BREAKING], changes
        assert changes == [], changes
    # an independent validator agrees the two accept the same values
    for source, other in ((optional, spelled), (spelled, optional)):
        value = data.draw(from_schema(source), label="value")
        assert jsonschema.Draft202012Validator(other).is_valid(value), (source, value)
    # and the engine does read that place: S itself against S-or-null
    # widens, by one value (null) where S lists its values
    widened = [c.rule for c in diff(tool(schema), tool(spelled))]
    side = "input" if key == "inputSchema" else "output"
    rule = "enum.widened" if "enum" in schema else "type.widened"
    assert f"tool.{side}.{rule}" in widened, widened


def _tool(schema, key="inputSchema"):
    return {"tools": [{"name": "t", "inputSchema": {"type": "object"}, key: schema}]}


def _safe_change(data, schemas, key):
    """A valid schema, a valid mutation of it, and the engine's changes, when
    the engine called every one of them NON_BREAKING or DOCUMENTATION."""
    old = data.draw(schemas, label="old")
    new = data.draw(mutated(old), label="new")
    assume(jsonschema.Draft202012Validator(jsonschema.Draft202012Validator.META_SCHEMA).is_valid(new))
    changes = diff(_tool(old, key), _tool(new, key))
    assume(changes and all(c.default_severity in SAFE for c in changes))
    return old, new, [c.rule for c in changes]


PROPERTY = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


@PROPERTY
@given(st.data())
def test_non_breaking_input_changes_accept_every_old_call(data):
    old, new, rules = _safe_change(data, INPUT_SCHEMAS, "inputSchema")
    accept = jsonschema.Draft202012Validator(new)
    for _ in range(2):
        call = data.draw(from_schema(old), label="call")
        assert accept.is_valid(call), (call, rules)


@PROPERTY
@given(st.data())
def test_non_breaking_output_changes_keep_every_new_result_readable(data):
    old, new, rules = _safe_change(data, OUTPUT_SCHEMAS, "outputSchema")
    reader = jsonschema.Draft202012Validator(old)
    for _ in range(2):
        result = data.draw(from_schema(new), label="result")
        assert reader.is_valid(result), (result, rules)


def test_determinism_across_processes(tmp_path):
    """Byte-identical JSON output from two separate processes, with hash
    randomisation differing between them."""
    import os
    import subprocess
    import sys

    from tests.conftest import PAIRS

    old, new = PAIRS / "search_breaking" / "old.json", PAIRS / "search_breaking" / "new.json"
    outputs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        outputs.append(subprocess.run([sys.executable, "-m", "mcpdelta", "diff", str(old), str(new),
                                       "--format", "json"], capture_output=True, env=env).stdout)
    assert outputs[0] == outputs[1] and len(outputs[0]) > 100


def test_shuffled_real_pair_gives_identical_json():
    import json

    from mcpdelta.engine.result import DiffResult
    from tests.conftest import PAIRS

    old = json.loads((PAIRS / "search_breaking" / "old.json").read_text())
    new = json.loads((PAIRS / "search_breaking" / "new.json").read_text())
    rnd = random.Random(7)
    first = json.dumps(DiffResult(old, new).as_json())
    for _ in range(5):
        again = json.dumps(DiffResult(shuffled(old, rnd), shuffled(new, rnd)).as_json())
        assert again == first
