"""Every report format, checked against what its readers require."""

import json
import pathlib
import re

import jsonschema
import pytest
import xmlschema

from mcpdelta.engine.catalog import RULES
from mcpdelta.engine.policy import Ignore, Policy
from mcpdelta.engine.result import DiffResult
from mcpdelta.report import render
from tests.conftest import PAIRS

SCHEMAS = pathlib.Path(__file__).resolve().parent.parent / "schemas"


def _pair(name):
    folder = PAIRS / name
    return (json.loads((folder / "old.json").read_text()),
            json.loads((folder / "new.json").read_text()))


@pytest.fixture(scope="module")
def breaking():
    old, new = _pair("search_breaking")
    return DiffResult(old, new, Policy(), "old.json", "new.json")


@pytest.fixture(scope="module")
def mixed():
    """One suppressed change, one documentation change, breaking ones."""
    old, new = _pair("search_breaking")
    policy = Policy(ignores=[Ignore("tool.input.constraint.tightened", "search", "bound is enforced upstream")])
    return DiffResult(old, new, policy, "old.json", "new.json")


def test_sarif_validates_against_the_official_2_1_0_schema(mixed):
    log = json.loads(render("sarif", mixed))
    schema = json.loads((SCHEMAS / "sarif-2.1.0.json").read_text())
    jsonschema.validate(log, schema)
    run = log["runs"][0]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == list(RULES)
    levels = {r["ruleId"]: r["level"] for r in run["results"]}
    assert levels["tool.input.property.removed"] == "error"
    assert levels["server.identity.changed"] == "note"
    suppressed = [r for r in run["results"] if "suppressions" in r]
    assert [r["ruleId"] for r in suppressed] == ["tool.input.constraint.tightened"]
    assert suppressed[0]["suppressions"][0]["justification"] == "bound is enforced upstream"


def test_sarif_rule_index_points_at_the_rule(breaking):
    run = json.loads(render("sarif", breaking))["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]


def test_junit_validates_and_fails_once_per_change_at_threshold(mixed):
    xml = render("junit", mixed)
    schema = xmlschema.XMLSchema(str(SCHEMAS / "junit.xsd"))
    schema.validate(xml)
    decoded = schema.to_dict(xml)
    suite = decoded["testsuite"][0]
    cases = {c["@name"]: c for c in suite["testcase"]}
    assert set(cases) == {"search", "server"}
    # property.removed and property.addedRequired fail; the tightened bound is suppressed
    assert len(cases["search"]["failure"]) == 2
    assert "failure" not in cases["server"]
    assert suite["@tests"] == 2 and suite["@failures"] == 1
    assert "suppressed tool.input.constraint.tightened" in cases["search"]["system-out"]


def test_github_annotations_by_severity_against_threshold(mixed):
    lines = render("github", mixed).splitlines()
    errors = [l for l in lines if l.startswith("::error ")]
    notices = [l for l in lines if l.startswith("::notice ")]
    assert len(errors) == 2
    assert any("server.identity.changed" in l for l in notices)
    assert not any("constraint.tightened" in l for l in lines if l.startswith("::"))
    for line in errors + notices:
        assert re.match(r"^::(error|warning|notice) file=new\.json,title=[A-Z_]+ [\w.]+::", line), line


def test_github_threshold_moves_annotation_levels():
    old, new = _pair("search_breaking")
    result = DiffResult(old, new, Policy(cli_fail_on="never"), "old.json", "new.json")
    lines = render("github", result).splitlines()
    assert not any(l.startswith("::error") for l in lines)
    assert sum(l.startswith("::warning") for l in lines) == 3


def test_markdown_has_a_verdict_a_summary_table_and_a_section_per_kind(mixed):
    text = render("markdown", mixed)
    assert text.startswith("## mcpdelta contract diff")
    assert "**❌ fail**" in text
    assert "| 🔴 `BREAKING` | 2 |" in text
    assert "| `tool.input.property.removed` | 🔴 `BREAKING` | 1 |" in text
    assert "### Tools (1)" in text and "<summary><b>Server</b></summary>" in text  # documentation only: collapsed
    assert "suppressed: bound is enforced upstream" in text
    assert text.index("| Severity | Count |") < text.index("### Tools")


def test_text_starts_with_the_summary_and_groups_by_kind_most_severe_first(breaking):
    text = render("text", breaking)
    first = text.splitlines()[0]
    assert first == "4 changes (3 BREAKING, 1 DOCUMENTATION); grade major; FAIL (fail on BREAKING)"
    assert text.index("\nserver\n") < text.index("\ntools (1)\n")
    tools = text[text.index("\ntools (1)\n"):]
    heads = [l.split()[0] for l in tools.splitlines() if l.startswith("  ") and not l.startswith("   ")]
    assert heads == ["BREAKING", "BREAKING", "BREAKING"]
    assert "\033[" not in text


def test_text_colour_only_when_asked(breaking):
    assert "\033[31m" in render("text", breaking, colour=True)


def test_no_changes_says_no_changes():
    old, _ = _pair("search_breaking")
    result = DiffResult(old, old)
    assert render("text", result).strip().startswith("no changes; grade none; PASS")
