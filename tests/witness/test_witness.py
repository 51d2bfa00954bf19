"""Witnesses: per rule family, each one re-validated here with python-jsonschema
(never with the engine or the witness package's own judge, which is jsonschema-rs:
two independent validators agree on every witness)."""

import json
import os
import pathlib
import subprocess
import sys

import jsonschema
import pytest
import yaml
from jsonschema import validators

from mcpdelta.engine.result import DiffResult
from mcpdelta.witness import attach_witnesses

ROOT = pathlib.Path(__file__).resolve().parents[2]
CASES = sorted((ROOT / "tests" / "engine" / "cases").glob("*.yaml"))


def _valid(schema, value) -> bool:
    """The independent check: jsonschema, the schema's own dialect, formats on."""
    if schema is None:
        return True
    cls = validators.validator_for(schema, default=validators.Draft202012Validator)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError:
        for older in (validators.Draft7Validator, validators.Draft4Validator):
            try:
                older.check_schema(schema)
                cls = older
                break
            except jsonschema.SchemaError:
                continue
    return cls(schema, format_checker=cls.FORMAT_CHECKER).is_valid(value)


def separates(change, old_tool, new_tool) -> bool:
    side = "inputSchema" if change.rule.startswith("tool.input.") else "outputSchema"
    old, new = old_tool.get(side), new_tool.get(side)
    value = change.witness["value"]
    if side == "inputSchema":
        return change.witness["kind"] == "rejected" and _valid(old, value) and not _valid(new, value)
    return change.witness["kind"] == "accepted" and _valid(new, value) and not _valid(old, value)


def diff(old_schema, new_schema, side="input", **options):
    key = "inputSchema" if side == "input" else "outputSchema"
    old_tool = {"name": "t", key: old_schema}
    new_tool = {"name": "t", key: new_schema}
    if side == "output":
        old_tool["inputSchema"] = new_tool["inputSchema"] = {"type": "object"}
    result = DiffResult({"tools": [old_tool]}, {"tools": [new_tool]})
    stats = attach_witnesses(result, **options)
    return result, old_tool, new_tool, stats


def only(result, rule):
    found = [c for c in result.changes if c.rule == rule]
    assert len(found) == 1, [c.rule for c in result.changes]
    return found[0]


def obj(props, required=(), closed=False):
    schema = {"type": "object", "properties": props}
    if required:
        schema["required"] = list(required)
    if closed:
        schema["additionalProperties"] = False
    return schema


# (id, side, old schema, new schema, rule, expected witness value or None)
FAMILIES = [
    ("enum narrowed", "input",
     obj({"mode": {"enum": ["exact", "fuzzy", "prefix"]}}),
     obj({"mode": {"enum": ["fuzzy", "prefix"]}}),
     "tool.input.enum.narrowed", {"mode": "exact"}),
    ("type narrowed", "input",
     obj({"id": {"type": ["integer", "string"]}}), obj({"id": {"type": "string"}}),
     "tool.input.type.narrowed", {"id": 0}),
    ("type changed", "input",
     obj({"id": {"type": "string"}}), obj({"id": {"type": "integer"}}),
     "tool.input.type.changed", {"id": ""}),
    ("number narrowed to integer", "input",
     obj({"ratio": {"type": "number"}}), obj({"ratio": {"type": "integer"}}),
     "tool.input.type.narrowed", {"ratio": 0.5}),
    ("maxLength tightened", "input",
     obj({"text": {"type": "string", "maxLength": 500}}),
     obj({"text": {"type": "string", "maxLength": 280}}),
     "tool.input.constraint.tightened", {"text": "a" * 281}),
    ("maximum tightened", "input",
     obj({"n": {"type": "integer", "maximum": 100}}), obj({"n": {"type": "integer", "maximum": 50}}),
     "tool.input.constraint.tightened", {"n": 51}),
    ("exclusiveMinimum tightened", "input",
     obj({"n": {"type": "number", "minimum": 0}}), obj({"n": {"type": "number", "exclusiveMinimum": 0}}),
     "tool.input.constraint.tightened", {"n": 0}),
    ("minItems tightened", "input",
     obj({"tags": {"type": "array", "items": {"type": "string"}, "minItems": 1}}),
     obj({"tags": {"type": "array", "items": {"type": "string"}, "minItems": 2}}),
     "tool.input.constraint.tightened", {"tags": [""]}),
    ("pattern added", "input",
     obj({"sku": {"type": "string"}}), obj({"sku": {"type": "string", "pattern": "^[A-Z]{3}-\\d+$"}}),
     "tool.input.constraint.tightened", {"sku": ""}),
    ("pattern changed", "input",
     obj({"sku": {"type": "string", "pattern": "^[A-Z]{3}-\\d+$"}}),
     obj({"sku": {"type": "string", "pattern": "^[A-Z]{2}-\\d+$"}}),
     "tool.input.constraint.changed", None),
    ("additionalProperties false appeared", "input",
     obj({"q": {"type": "string"}}), obj({"q": {"type": "string"}}, closed=True),
     "tool.input.constraint.tightened", {"extra": ""}),
    ("uniqueItems appeared", "input",
     obj({"tags": {"type": "array", "items": {"type": "string"}}}),
     obj({"tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True}}),
     "tool.input.constraint.tightened", {"tags": ["", ""]}),
    ("required added", "input",
     obj({"q": {"type": "string"}}), obj({"q": {"type": "string"}}, required=["q"]),
     "tool.input.required.added", {}),
    ("property addedRequired", "input",
     obj({"q": {"type": "string"}}, required=["q"]),
     obj({"q": {"type": "string"}, "lang": {"type": "string"}}, required=["lang", "q"]),
     "tool.input.property.addedRequired", {"q": ""}),
    ("property removed, new schema closed", "input",
     obj({"q": {"type": "string"}, "lang": {"type": "string"}}, closed=True),
     obj({"q": {"type": "string"}}, closed=True),
     "tool.input.property.removed", {"lang": ""}),
    ("output type widened", "output",
     obj({"id": {"type": "string"}}), obj({"id": {"type": ["number", "string"]}}),
     "tool.output.type.widened", {"id": 0}),
    ("output enum widened", "output",
     obj({"state": {"enum": ["open", "closed"]}}), obj({"state": {"enum": ["open", "closed", "archived"]}}),
     "tool.output.enum.widened", {"state": "archived"}),
    ("output required removed", "output",
     obj({"state": {"type": "string"}}, required=["state"]), obj({"state": {"type": "string"}}),
     "tool.output.required.removed", {}),
    ("output maxLength loosened", "output",
     obj({"s": {"type": "string", "maxLength": 10}}), obj({"s": {"type": "string", "maxLength": 20}}),
     "tool.output.constraint.loosened", {"s": "a" * 11}),
    ("output minimum loosened", "output",
     obj({"n": {"type": "integer", "minimum": 5}}), obj({"n": {"type": "integer", "minimum": 0}}),
     "tool.output.constraint.loosened", {"n": 0}),
    ("output property removed, new schema open", "output",
     obj({"since": {"type": "string"}}), obj({}),
     "tool.output.property.removed", {"since": 0}),
    ("output additionalProperties false dropped", "output",
     obj({"q": {"type": "string"}}, closed=True), obj({"q": {"type": "string"}}),
     "tool.output.constraint.loosened", {"extra": ""}),
    ("net: not added", "input",
     obj({"q": {"type": "string"}}), obj({"q": {"type": "string", "not": {"const": "x"}}}),
     "tool.input.schema.changed", {"q": "x"}),
]


@pytest.mark.parametrize("family", FAMILIES, ids=[f[0] for f in FAMILIES])
def test_family_witness(family):
    _name, side, old, new, rule, expected = family
    result, old_tool, new_tool, stats = diff(old, new, side)
    change = only(result, rule)
    assert change.witness is not None, change.witness_note
    assert change.witness_note is None
    assert set(change.witness) == {"kind", "value", "validator"}
    assert change.witness["validator"].startswith("jsonschema-rs ")
    assert separates(change, old_tool, new_tool)
    if expected is not None:
        assert change.witness["value"] == expected
    assert stats["witnessed"] >= 1
    assert change.severity == change.default_severity == "BREAKING"


def test_maxlength_witness_is_the_smallest_old_valid_string():
    result, *_ = diff(obj({"text": {"type": "string", "maxLength": 5000}}),
                      obj({"text": {"type": "string", "maxLength": 256}}))
    text = only(result, "tool.input.constraint.tightened").witness["value"]["text"]
    assert len(text) == 257


def test_removed_property_on_an_open_schema_is_accepted_but_ignored():
    result, *_ = diff(obj({"q": {"type": "string"}, "lang": {"type": "string"}}),
                      obj({"q": {"type": "string"}}))
    change = only(result, "tool.input.property.removed")
    assert change.witness is None
    assert change.witness_note.startswith("accepted but ignored")
    assert "'lang'" in change.witness_note
    assert change.severity == "BREAKING"  # evidence never moves a severity


def test_witness_is_for_the_whole_schema_and_about_this_change():
    """Two breaks in one tool: each witness satisfies everything else the old
    schema asks (the required q) and is rejected by the new schema at its own
    place."""
    old = obj({"q": {"type": "string", "minLength": 2}, "n": {"type": "integer", "maximum": 9}},
              required=["q"])
    new = obj({"q": {"type": "string", "minLength": 2}, "n": {"type": "integer", "maximum": 5},
               "mode": {"enum": ["a"]}}, required=["mode", "q"])
    result, old_tool, new_tool, _ = diff(old, new)
    bound = only(result, "tool.input.constraint.tightened")
    added = only(result, "tool.input.property.addedRequired")
    for change in (bound, added):
        assert separates(change, old_tool, new_tool)
        assert change.witness["value"]["q"] == "aa"
    assert bound.witness["value"] == {"mode": "a", "n": 6, "q": "aa"}  # mode present: only n breaks
    assert "mode" not in added.witness["value"]


def test_rejection_is_attributed_to_the_change():
    validator = validators.Draft202012Validator(
        obj({"n": {"type": "integer", "maximum": 5}, "mode": {"enum": ["a"]}}, required=["mode"]))
    result, *_ = diff(obj({"n": {"type": "integer", "maximum": 9}, "mode": {"enum": ["a"]}}),
                      obj({"n": {"type": "integer", "maximum": 5}, "mode": {"enum": ["a"]}},
                          required=["mode"]))
    value = only(result, "tool.input.constraint.tightened").witness["value"]
    paths = [list(e.absolute_schema_path) for e in validator.iter_errors(value)]
    assert paths == [["properties", "n", "maximum"]]


def test_no_witness_by_nature():
    old = obj({"limit": {"type": "integer", "default": 10}})
    new = obj({"limit": {"type": "integer", "default": 100}})
    result, *_ = diff(old, new, min_severity="POTENTIALLY_BREAKING")
    change = only(result, "tool.input.default.changed")
    assert change.witness is None
    assert change.witness_note.startswith("none by nature")
    removed = DiffResult({"tools": [{"name": "t", "inputSchema": obj({"q": {"type": "string"}})}]},
                         {"tools": [{"name": "t"}]})
    attach_witnesses(removed)
    change = only(removed, "tool.input.removed")
    assert change.witness is None and "every arguments object is accepted" in change.witness_note


def test_below_threshold_is_not_attempted_and_severities_do_not_move():
    old = obj({"q": {"type": "string", "maxLength": 10}, "n": {"type": "integer"}})
    new = obj({"q": {"type": "string", "maxLength": 20}, "n": {"type": "integer"},
               "lang": {"type": "string"}})
    result = DiffResult({"tools": [{"name": "t", "inputSchema": old}]},
                        {"tools": [{"name": "t", "inputSchema": new}]})
    before = [(c.rule, c.severity) for c in result.changes]
    stats = attach_witnesses(result)
    assert [(c.rule, c.severity) for c in result.changes] == before
    assert all(c.witness is None and c.witness_note is None for c in result.changes)
    assert stats["skipped"] == len(result.changes) == 2
    attach_witnesses(result, min_severity="NON_BREAKING")
    loosened = only(result, "tool.input.constraint.loosened")
    assert loosened.witness is None and loosened.witness_note.startswith("none by nature")
    added = only(result, "tool.input.property.added")  # open old schema: lang could be an int
    assert added.witness == {"kind": "rejected", "value": {"lang": 0},
                             "validator": added.witness["validator"]}


def test_non_schema_changes_get_a_note():
    result = DiffResult({"tools": [{"name": "t"}, {"name": "u"}]}, {"tools": [{"name": "u"}]})
    attach_witnesses(result)
    change = only(result, "tool.removed")
    assert change.witness is None and change.witness_note.startswith("not a schema change")


def test_size_bound():
    # every witness holds the twelve required names: more than 100 characters
    names = {f"required_property_{i}": {"type": "boolean"} for i in range(12)}
    result, *_ = diff(obj({**names, "k": {"type": "integer", "maximum": 9}}, required=sorted(names)),
                      obj({**names, "k": {"type": "integer", "maximum": 3}}, required=sorted(names)),
                      max_size=100)
    change = only(result, "tool.input.constraint.tightened")
    assert change.witness is None and change.witness_note.startswith("unproven: no witness found")
    assert change.severity == "POTENTIALLY_BREAKING"  # no proof within the bounds: no BREAKING claim


def test_a_count_bound_is_proven_past_the_size_bound():
    # the shortest string 280 rejects is 281 characters long: a new upper
    # count bound lets its witness be as long as the bound needs
    result, *_ = diff(obj({"text": {"type": "string", "maxLength": 500}}),
                      obj({"text": {"type": "string", "maxLength": 280}}), max_size=100)
    change = only(result, "tool.input.constraint.tightened")
    assert change.severity == "BREAKING"
    assert len(change.witness["value"]["text"]) == 281


def test_renamed_tool_uses_the_old_tool_schema():
    schema = obj({"q": {"type": "string"}, "k": {"type": "integer", "maximum": 9}}, required=["q"])
    tighter = obj({"q": {"type": "string"}, "k": {"type": "integer", "maximum": 3}}, required=["q"])
    result = DiffResult({"tools": [{"name": "find", "inputSchema": schema}]},
                        {"tools": [{"name": "search", "inputSchema": tighter}]})
    # not a rename (schemas differ): removed + added; make it one by keeping the schema equal
    assert {c.rule for c in result.changes} == {"tool.removed", "tool.added"}
    result = DiffResult({"tools": [{"name": "find", "inputSchema": schema},
                                   {"name": "keep", "inputSchema": schema}]},
                        {"tools": [{"name": "keep", "inputSchema": tighter}]})
    attach_witnesses(result)
    change = only(result, "tool.input.constraint.tightened")
    assert separates(change, {"inputSchema": schema}, {"inputSchema": tighter})


def test_recursive_ref_schema():
    def schema(limit):
        return {"type": "object", "properties": {"root": {"$ref": "#/$defs/Node"}},
                "$defs": {"Node": {"type": "object", "properties": {
                    "title": {"type": "string", "maxLength": limit},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}}
    result, old_tool, new_tool, _ = diff(schema(8), schema(4))
    change = [c for c in result.changes if c.rule == "tool.input.constraint.tightened"][0]
    assert separates(change, old_tool, new_tool)
    assert change.witness["value"] == {"root": {"title": "aaaaa"}}


def test_draft04_schema_is_judged_in_its_own_dialect():
    old = obj({"s": {"type": "number", "minimum": 0, "exclusiveMinimum": True}})
    new = obj({"s": {"type": "number", "exclusiveMinimum": 1}})
    result, old_tool, new_tool, _ = diff(old, new)
    change = only(result, "tool.input.constraint.tightened")
    assert "Draft4Validator" in change.witness["validator"]
    assert separates(change, old_tool, new_tool)


def test_every_case_witness_separates_its_schemas():
    """Every witness over the engine's 172 cases, re-validated here; every
    attempted change has a witness or a note, never both."""
    witnessed = 0
    for path in CASES:
        case = yaml.safe_load(path.read_text(encoding="utf-8"))
        result = DiffResult(case["old"], case["new"])
        attach_witnesses(result, min_severity="NON_BREAKING")
        renames = {c.new: c.old for c in result.changes if c.rule == "tool.renamed"}
        old_tools = {t["name"]: t for t in case["old"].get("tools", [])}
        new_tools = {t["name"]: t for t in case["new"].get("tools", [])}
        for change in result.changes:
            if change.severity in ("BREAKING", "POTENTIALLY_BREAKING", "NON_BREAKING"):
                assert (change.witness is None) != (change.witness_note is None), (path.name, change)
            if change.witness is not None:
                witnessed += 1
                old_tool = old_tools[renames.get(change.entity, change.entity)]
                assert separates(change, old_tool, new_tools[change.entity]), (path.name, change)
    assert witnessed >= 30


SCRIPT = r"""
import json, pathlib, sys, yaml
from mcpdelta.engine.result import DiffResult
from mcpdelta.witness import attach_witnesses
out = []
for path in sorted(pathlib.Path(sys.argv[1]).glob("*.yaml")):
    case = yaml.safe_load(path.read_text(encoding="utf-8"))
    result = DiffResult(case["old"], case["new"])
    attach_witnesses(result, min_severity="NON_BREAKING")
    out += [[c.path, c.rule, c.witness, c.witness_note] for c in result.changes]
print(json.dumps(out, ensure_ascii=False))
"""


def test_deterministic_across_processes():
    runs = []
    for seed in ("0", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, "-c", SCRIPT, str(ROOT / "tests/engine/cases")],
                              capture_output=True, env=env, cwd=ROOT, timeout=120, check=True)
        runs.append(done.stdout)
    assert runs[0] == runs[1]
    assert b'"kind": "rejected"' in runs[0] and b'"kind": "accepted"' in runs[0]


def test_importing_the_package_does_not_load_the_validator():
    code = ("import sys, mcpdelta.witness, mcpdelta.engine.result; "
            "print('jsonschema' in sys.modules, 'mcpdelta.witness.attach' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          timeout=60, check=True)
    assert done.stdout.split() == ["False", "False"]


def test_a_whole_schema_disappearing_gets_an_object_witness():
    old = obj({"id": {"type": "string"}})
    result = DiffResult({"tools": [{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": old}]},
                        {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]})
    attach_witnesses(result)
    change = only(result, "tool.output.removed")
    assert change.witness["kind"] == "accepted"
    assert isinstance(change.witness["value"], dict)
    assert not _valid(old, change.witness["value"])


from hypothesis import HealthCheck, Phase, given, settings, strategies as st  # noqa: E402

from tests.engine.strategies import INPUT_SCHEMAS, OUTPUT_SCHEMAS, mutated  # noqa: E402


# no shrink phase: a failure prints its drawn schemas at once, and the
# test stays within its time budget even then
@settings(max_examples=40, deadline=None, derandomize=True, database=None,
          phases=[Phase.explicit, Phase.generate],
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_every_returned_witness_separates_random_schema_pairs(data):
    side = data.draw(st.sampled_from(["input", "output"]))
    old = data.draw(INPUT_SCHEMAS if side == "input" else OUTPUT_SCHEMAS)
    new = data.draw(mutated(old))
    result, old_tool, new_tool, _ = diff(old, new, side, min_severity="NON_BREAKING")
    for change in result.changes:
        if change.witness is not None:
            assert separates(change, old_tool, new_tool), change
        elif change.rule.startswith("tool."):
            assert change.witness_note, change


def test_no_schema_break_no_validator_import():
    code = ("import sys; from mcpdelta.engine.result import DiffResult; "
            "from mcpdelta.witness import attach_witnesses; "
            "r = DiffResult({'tools': [{'name': 'a'}, {'name': 'b', 'description': 'x'}]}, "
            "{'tools': [{'name': 'b', 'description': 'y'}]}); s = attach_witnesses(r); "
            "print('jsonschema' in sys.modules, 'jsonschema_rs' in sys.modules, s['none_by_nature'])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          timeout=60, check=True)
    assert done.stdout.split() == ["False", "False", "1"]


def _imported(importtime_log: str) -> set:
    """Module names from ``python -X importtime`` output."""
    names = set()
    for line in importtime_log.splitlines():
        if line.startswith("import time:") and "|" in line:
            name = line.rsplit("|", 1)[1].strip()
            if name != "imported package":
                names.add(name)
    return names


def test_constructive_diff_does_not_import_python_jsonschema():
    """The whole ``mcpdelta diff`` process on a pair whose breaks construction
    handles: witnesses are produced and confirmed by jsonschema-rs, and
    python-jsonschema (~50 ms of imports: referencing, rpds, attrs, the
    metaschemas) is never imported, nor is the search's generator stack."""
    pair = ROOT / "tests" / "fixtures" / "pairs" / "search_breaking"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "mcpdelta", "diff",
                           str(pair / "old.json"), str(pair / "new.json"), "--format", "json"],
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    report = json.loads(done.stdout)
    witnessed = [c for c in report["changes"] if c.get("witness")]
    assert witnessed, report["changes"]
    assert all(c["witness"]["validator"].startswith("jsonschema-rs ") for c in witnessed)
    old_tools = {t["name"]: t for t in json.loads((pair / "old.json").read_text())["tools"]}
    new_tools = {t["name"]: t for t in json.loads((pair / "new.json").read_text())["tools"]}
    for c in witnessed:  # the second, independent check: python-jsonschema, here in the test
        schema = "inputSchema" if c["rule"].startswith("tool.input.") else "outputSchema"
        accepting, rejecting = old_tools[c["entity"]], new_tools[c["entity"]]
        if schema == "outputSchema":
            accepting, rejecting = rejecting, accepting
        assert _valid(accepting.get(schema), c["witness"]["value"])
        assert not _valid(rejecting.get(schema), c["witness"]["value"])
    modules = _imported(done.stderr)
    assert "jsonschema_rs" in modules and "mcpdelta.witness.validate" in modules
    heavy = {m for m in modules if m.split(".")[0] in (
        "jsonschema", "jsonschema_specifications", "referencing", "rpds", "attrs", "attr",
        "hypothesis", "hypothesis_jsonschema",
        # the pipeline's heavy stack never loads on the diff path
        "polars", "duckdb", "prefect", "openai", "pyarrow", "rich", "typer", "httpx",
        # witnesses are copied as JSON (engine.equality.clone), not by copy.deepcopy
        "copy", "weakref")}
    assert not heavy, sorted(heavy)


# The judge (jsonschema-rs) reports the schema paths python-jsonschema
# reports: attribution reads them, so a port must not move them.
PATH_CASES = [
    ({"propertyNames": {"maxLength": 2}}, {"abc": 1}),
    ({"if": {"type": "string"}, "then": {"maxLength": 1}, "else": {"type": "integer"}}, "ab"),
    ({"if": {"type": "string"}, "then": {"maxLength": 1}, "else": {"type": "integer"}}, 1.5),
    ({"contains": {"type": "string"}}, [1]),
    ({"not": {"type": "string"}}, "a"),
    ({"dependentSchemas": {"a": {"required": ["b"]}}}, {"a": 1}),
    ({"allOf": [{"type": "string"}, {"anyOf": [{"maxLength": 1}, {"oneOf": [
        {"type": "integer"}, {"$ref": "#/$defs/X"}]}]}], "$defs": {"X": {"minLength": 5}}}, "abc"),
    ({"unevaluatedProperties": False, "properties": {"a": {}}}, {"b": 1}),
    ({"prefixItems": [{"type": "string"}], "items": {"type": "integer"}}, [1, "a"]),
    ({"$ref": "#/$defs/N", "$defs": {"N": {"type": "object", "properties": {
        "c": {"type": "array", "items": {"$ref": "#/$defs/N"}}, "t": {"maxLength": 1}}}}},
     {"c": [{"t": "ab"}]}),
    ({"oneOf": [{"type": "string"}, {"maxLength": 3}]}, "ab"),
    ({"type": "object", "properties": {"$ref": {"type": "string"}, "properties": {
        "properties": {"$ref": {"type": "integer"}}}}}, {"$ref": 1, "properties": {"$ref": "x"}}),
    (obj({"n": {"type": "integer", "maximum": 5}, "mode": {"enum": ["a"]}}, required=["mode"]),
     {"n": 6}),
    ({"properties": {"x": {}}, "additionalProperties": False, "required": ["id"]}, {"id": 1}),
    ({"anyOf": [{"properties": {}, "additionalProperties": False, "required": ["id"]},
                {"type": "string"}]}, {"id": 1}),
    ({"$schema": "http://json-schema.org/draft-07/schema#",
      "items": [{"type": "string"}], "additionalItems": False}, [1, 2]),
]


@pytest.mark.parametrize("schema,value", PATH_CASES)
def test_judge_paths_are_python_jsonschemas(schema, value):
    from mcpdelta.witness.validate import Judge

    cls = validators.validator_for(schema, default=validators.Draft202012Validator)
    reference = cls(schema, format_checker=cls.FORMAT_CHECKER)
    top = list(reference.iter_errors(value))
    every, stack = [], list(top)
    while stack:
        error = stack.pop()
        every.append(tuple(str(p) for p in error.absolute_schema_path))
        stack.extend(error.context or ())
    judge = Judge(schema)
    assert judge.accepts(value) == reference.is_valid(value)
    got_top, got_every = judge.error_paths(value)
    assert sorted(got_top) == sorted(tuple(str(p) for p in e.absolute_schema_path) for e in top)
    assert sorted(got_every) == sorted(every)


def test_judge_never_fetches_and_names_itself():
    from mcpdelta.witness.validate import Judge, SchemaUnusable, judge, quick

    remote = {"type": "object", "properties": {"a": {"$ref": "https://example.invalid/a.json"}}}
    with pytest.raises(SchemaUnusable):
        Judge(remote)
    assert quick({"$ref": "#/$defs/Missing"}, 1) is None
    assert quick({"$ref": "#/$defs/Missing"}, 1) is None  # a remembered failure
    assert judge({"type": "string", "format": "date"}).accepts("2000-13-45") is False  # formats asserted
    name = Judge({"type": "string"}).name
    assert name.startswith("jsonschema-rs ") and name.endswith(" Draft202012Validator")
    assert name.split()[1][0].isdigit()


@pytest.mark.parametrize("draft", [None, "http://json-schema.org/draft-07/schema#"])
def test_a_reference_to_nowhere_leaves_the_values_that_never_reach_it_judged(draft):
    from mcpdelta.witness.validate import Judge, SchemaUnusable

    schema = {"type": "object",
              "properties": {"name": {"type": "string"},
                             "jobs": {"type": "array", "items": {"$ref": "#/$defs/Job"}},
                             "either": {"anyOf": [{"$ref": "#/nowhere"}, {"type": "integer"}]},
                             "data": {"const": {"$ref": "#/nowhere"}}}}
    if draft:
        schema["$schema"] = draft
    judge = Judge(schema)
    assert "2 references to nowhere" in judge.name
    assert judge.accepts({"name": "a", "jobs": []}) is True
    assert judge.accepts({"name": 1}) is False
    assert judge.accepts({"data": {"$ref": "#/nowhere"}}) is True  # a "$ref" in data is data
    for reaching in ({"jobs": [{}]}, {"either": 1}, {"either": "a"}):
        with pytest.raises(SchemaUnusable, match="reaches a reference to nowhere"):
            judge.accepts(reaching)
    # a reference that leaves the document is no reference to nowhere
    with pytest.raises(SchemaUnusable, match="cannot resolve a reference"):
        Judge({**schema, "properties": {"a": {"$ref": "other.json#/a"}, "b": {"$ref": "#/nowhere"}}})
