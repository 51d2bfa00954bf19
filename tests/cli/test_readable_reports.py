"""Text and Markdown arranged for reading, on two real release steps in
data/: server-filesystem 2025.8.18 -> 2025.8.21 (the same three rules for
every tool) and server-everything 2025.12.18 -> 2026.1.14 (100 resources
removed, prose rewritten). Expectations come from the manifests and the
rule catalog, never from the output under test."""

import json
import re

import pytest

from mcpdelta.engine.catalog import RULES
from mcpdelta.engine.policy import Policy
from mcpdelta.engine.result import DiffResult
from mcpdelta.report import render
from mcpdelta.report.view import PROSE_LIMIT, natural_key
from tests.conftest import ROOT

REFERENCE = ROOT / "data" / "samples" / "reference"
FILESYSTEM = (REFERENCE / "server-filesystem" / "2025.8.18.json", REFERENCE / "server-filesystem" / "2025.8.21.json")
EVERYTHING = (REFERENCE / "server-everything" / "2025.12.18.json", REFERENCE / "server-everything" / "2026.1.14.json")


def _result(pair, **policy):
    old, new = (json.loads(p.read_text()) for p in pair)
    return DiffResult(old, new, Policy(**policy), str(pair[0]), str(pair[1]))


@pytest.fixture(scope="module", params=["filesystem", "everything"])
def step(request):
    pair = {"filesystem": FILESYSTEM, "everything": EVERYTHING}[request.param]
    return request.param, pair, _result(pair)


def _groups(text):
    """(section, severity, rule) of each group heading in the text format."""
    section, out = None, []
    for line in text.splitlines():
        if line and not line.startswith(" "):
            section = line
        m = re.match(r"^  (\S+) +(\S+)(  \(\d+ .+\))?$", line)
        if m and section:
            out.append((section, m.group(1), m.group(2)))
    return out


def test_one_heading_and_one_advice_line_per_rule_group(step):
    _, _, result = step
    text = render("text", result)
    heads = _groups(text)
    assert len(heads) == len(set(heads))
    expected = {(c.severity, c.rule) for c in result.changes}
    assert {(s, r) for _, s, r in heads} == expected
    advice = [l.strip() for l in text.splitlines() if l.strip().startswith("advice: ")]
    # one per group at or above POTENTIALLY_BREAKING, never one per change
    assert len(advice) == sum(1 for _, s, _ in heads if s in ("BREAKING", "POTENTIALLY_BREAKING"))
    assert len(advice) < len(result.changes)


def test_the_filesystem_rules_are_stated_once_with_every_tool_listed():
    result = _result(FILESYSTEM)
    text = render("text", result)
    old, new = ({t["name"]: t for t in json.loads(p.read_text())["tools"]} for p in FILESYSTEM)
    # the tools whose input schema gained a root type: each gets all three rules
    typed = sorted((n for n in old if "type" not in old[n].get("inputSchema", {})
                    and new[n]["inputSchema"].get("type") == "object"), key=natural_key)
    assert len(typed) == 13
    listing = f"13 tools: {', '.join(typed)}"
    assert text.count(listing) == 2
    for rule in ("tool.input.constraint.tightened", "tool.input.type.narrowed"):
        assert listing in _block(text, rule), rule
    assert "The type of the arguments object in the input of tool <tool> narrowed from absent to \"object\"." in text
    assert "additionalProperties constraint of the arguments object" in text and "{*}" not in text
    assert len(text.splitlines()) < len(result.changes)


def _block(text, rule):
    """The lines of one rule group: its heading to the next heading."""
    lines = text.splitlines()
    start = next(i for i, l in enumerate(lines) if re.match(rf"^  \S+ +{re.escape(rule)}\b", l))
    end = next((i for i in range(start + 1, len(lines)) if re.match(r"^  \S|^\S|^$", lines[i])), len(lines))
    return "\n".join(lines[start:end])


def test_no_null_for_an_absent_value(step):
    _, _, result = step
    for fmt in ("text", "markdown"):
        out = render(fmt, result)
        assert not re.search(r"\bnull\b", out), fmt
    assert any(c.old is None or c.new is None for c in result.changes)


def test_resources_in_natural_order_as_one_range():
    result = _result(EVERYTHING)
    text = render("text", result)
    old = {r["uri"] for r in json.loads(EVERYTHING[0].read_text())["resources"]}
    new = {r["uri"] for r in json.loads(EVERYTHING[1].read_text())["resources"]}
    removed = old - new
    assert removed == {f"test://static/resource/{i}" for i in range(1, 101)}
    assert "100 resources: test://static/resource/{1..100}" in text


def test_entities_that_are_not_a_run_are_listed_in_natural_order():
    old = {"resources": [{"uri": f"test://r/{i}", "name": f"r{i}"} for i in (10, 2, 33, 1, 100)]}
    result = DiffResult(old, {"resources": []})
    text = render("text", result, max_entities=50)
    line = next(l for l in text.splitlines() if "5 resources:" in l)
    assert line.strip() == "5 resources: test://r/1, test://r/2, test://r/10, test://r/33, test://r/100"


def test_old_and_new_text_for_every_prose_change(step):
    _, _, result = step
    text = render("text", result)
    prose = [c for c in result.changes if RULES[c.rule].prose]
    for c in prose:
        for label, value in (("old", c.old), ("new", c.new)):
            value = "absent" if value is None else value
            shown = value if len(value) <= PROSE_LIMIT else value[: PROSE_LIMIT - 1] + "…"
            shown = shown.replace("\n", "\\n")  # cut first, then the newlines shown as \n
            assert f"      {label}: {shown}\n" in text, (c.rule, c.entity, label)


def test_markdown_stays_under_the_comment_limit(step):
    _, _, result = step
    out = render("markdown", result)
    assert len(out) < 60_000
    assert out.index("| Severity | Count |") < out.index("####")


def test_markdown_cut_at_the_limit_says_how_many_changes_were_left_out():
    # 400 tools whose descriptions each change differently: 400 statements
    old = {"tools": [{"name": f"t{i}", "description": f"Reads row {i} of the table"} for i in range(400)]}
    new = {"tools": [{"name": f"t{i}", "description": f"Reads and deletes row {i} of the table"}
                     for i in range(400)]}
    result = DiffResult(old, new)
    for limit in (60_000, 8_000):
        out = render("markdown", result, max_chars=limit)
        assert len(out) <= limit
        shown = out.count("\n- The description of tool ")
        m = re.search(r"\*\*(\d+) more changes left out\*\*", out)
        assert m and int(m.group(1)) == 400 - shown and 0 < shown < 400
        assert out.count("<details>") == out.count("</details>")


def test_show_hides_lower_severities_without_moving_the_verdict(mcpdelta):
    full = mcpdelta("diff", *EVERYTHING)
    breaking = mcpdelta("diff", *EVERYTHING, "--show", "BREAKING")
    assert full.returncode == breaking.returncode == 1
    assert "tool.added" in full.stdout and "tool.added" not in _body(breaking.stdout)
    hidden = sum(1 for c in _result(EVERYTHING).changes if c.severity != "BREAKING")
    assert f"{hidden} changes below BREAKING not shown (--show)" in breaking.stdout
    lenient = mcpdelta("diff", *EVERYTHING, "--show", "BREAKING", "--fail-on", "never")
    assert lenient.returncode == 0
    assert mcpdelta("diff", *EVERYTHING, "--show", "LOUD").returncode == 2


def _body(text):
    """The text after the summary block."""
    return text.split("\n\n", 1)[1]


def test_output_file_holds_the_report_and_stdout_stays_empty(mcpdelta, tmp_path):
    target = tmp_path / "diff.md"
    result = mcpdelta("diff", *FILESYSTEM, "--format", "markdown", "--output", target)
    assert result.returncode == 1 and result.stdout == ""
    assert target.read_text().startswith("## mcpdelta contract diff")
    bad = mcpdelta("diff", *FILESYSTEM, "--output", tmp_path)  # a folder
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1 and str(tmp_path) in bad.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["diff.md"]  # no temporary file left behind


def test_two_changes_that_read_the_same_carry_their_pointers():
    # two unmodelled keywords of one property: the engine's message names
    # the property, not the keyword, so only the pointers tell them apart
    old = {"tools": [{"name": "t", "inputSchema": {"type": "object", "properties": {
        "a": {"type": "string", "acmeA": 1, "acmeB": 1}}}}]}
    new = {"tools": [{"name": "t", "inputSchema": {"type": "object", "properties": {
        "a": {"type": "string", "acmeA": 2, "acmeB": 2}}}}]}
    result = DiffResult(old, new)
    assert len({c.message for c in result.changes}) == 1 < len(result.changes)
    for fmt in ("text", "markdown"):
        out = render(fmt, result)
        assert "/tools/t/inputSchema/properties/a/acmeA" in out, fmt
        assert "/tools/t/inputSchema/properties/a/acmeB" in out, fmt
    # where the messages differ, no pointer is printed
    assert "/tools/" not in render("text", _result(FILESYSTEM))


def test_github_annotates_at_most_ten_of_each_kind_then_one_summary_line():
    result = _result(EVERYTHING)
    lines = render("github", result).splitlines()
    failing = sum(1 for c in result.changes if result.policy.fails(c))
    assert failing > 10
    assert sum(l.startswith("::error ") for l in lines) == 10
    assert sum(l.startswith("::warning ") for l in lines) <= 10
    assert sum(l.startswith("::notice ") for l in lines) <= 10
    rest = [l for l in lines if not l.startswith("::")]
    assert len(rest) == 1 and rest == lines[-1:]
    assert f"{failing - 10} errors" in rest[0] and "not annotated" in rest[0]
    small = render("github", result, max_annotations=3).splitlines()
    assert sum(l.startswith("::error ") for l in small) == 3 and f"{failing - 3} errors" in small[-1]
