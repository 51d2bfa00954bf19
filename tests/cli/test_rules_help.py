"""``mcpdelta rules RULE``: every rule of the catalog explained with an
example pair (one of the engine's rule cases) that really fires it."""

import json

import pytest

from mcpdelta.engine.catalog import RULES
from mcpdelta.report.rule_help import example, explain, severity_text


@pytest.mark.parametrize("rule_id", list(RULES))
def test_every_rule_is_explained_with_an_example_that_fires_it(rule_id):
    from mcpdelta.engine import diff

    rule = RULES[rule_id]
    case = example(rule_id)
    assert case is not None, f"{rule_id}: no rule case fires it"
    assert rule_id in {c.rule for c in diff(case["old"], case["new"])}
    text = explain(rule_id)
    assert text.startswith(f"{rule_id}  ({severity_text(rule)})\n")
    for part in (rule.summary, rule.note, case["shows"], "output of mcpdelta diff old new:"):
        assert part in text
    output = text.split("output of mcpdelta diff old new:\n", 1)[1]
    assert f" {rule_id}" in output  # the example's report names the rule
    if rule.category in ("tool.input", "tool.output"):
        assert "direction:" in text and ("contravariant" if rule.category == "tool.input" else "covariant") in text


def test_rules_command_explains_an_id_and_a_glob(mcpdelta):
    one = mcpdelta("rules", "tool.removed")
    assert one.returncode == 0 and one.stdout.startswith("tool.removed  (BREAKING)")
    assert "Tool export was removed." in one.stdout
    many = mcpdelta("rules", "tool.output.enum.*", "--format", "json")
    assert many.returncode == 0
    entries = json.loads(many.stdout)
    assert [e["id"] for e in entries] == [r for r in RULES if r.startswith("tool.output.enum.")]
    for entry in entries:
        assert entry["id"] in [c["rule"] for c in entry["example"]["changes"]]


@pytest.mark.parametrize("args, problem", [
    (["tool.gone"], "tool.gone: no rule has this id or matches this glob"),
    (["nothing.*"], "nothing.*: no rule has this id"),
    (["tool.removed", "--format", "markdown"], "with RULE use text or json"),
])
def test_an_unknown_rule_is_one_line(mcpdelta, args, problem):
    done = mcpdelta("rules", *args)
    assert done.returncode == 2 and problem in done.stderr and done.stderr.count("\n") == 1


def test_every_report_names_the_rule_command(mcpdelta):
    from tests.conftest import PAIRS

    done = mcpdelta("diff", PAIRS / "search_breaking" / "old.json", PAIRS / "search_breaking" / "new.json")
    assert done.stdout.rstrip().endswith("(mcpdelta rules RULE explains a rule: what fires it, what to do, an example)")
