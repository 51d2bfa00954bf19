"""``mcpdelta diff`` through the real console script: exit codes 0 / 1 / 2."""

import json

import pytest

from tests.conftest import PAIRS

BREAKING_PAIR = (PAIRS / "search_breaking" / "old.json", PAIRS / "search_breaking" / "new.json")
DOCS_PAIR = (PAIRS / "search_docs_only" / "old.json", PAIRS / "search_docs_only" / "new.json")


def test_breaking_change_exits_1_with_default_threshold(mcpdelta):
    result = mcpdelta("diff", *BREAKING_PAIR)
    assert result.returncode == 1
    assert "tool.input.property.removed" in result.stdout
    assert "FAIL" in result.stdout


def test_documentation_change_exits_0(mcpdelta):
    result = mcpdelta("diff", *DOCS_PAIR)
    assert result.returncode == 0, result.stderr
    assert "tool.description.changed" in result.stdout


def test_fail_on_documentation_fails_a_documentation_change(mcpdelta):
    assert mcpdelta("diff", *DOCS_PAIR, "--fail-on", "DOCUMENTATION").returncode == 1


def test_fail_on_never_and_advisory_profile_pass_a_breaking_change(mcpdelta):
    assert mcpdelta("diff", *BREAKING_PAIR, "--fail-on", "never").returncode == 0
    assert mcpdelta("diff", *BREAKING_PAIR, "--profile", "advisory").returncode == 0


def test_override_on_the_command_line_lowers_a_rule_below_the_threshold(mcpdelta):
    result = mcpdelta("diff", *BREAKING_PAIR, "--format", "json",
                      "--severity-override", "tool.input.property.removed=NON_BREAKING",
                      "--severity-override", "tool.input.property.addedRequired=NON_BREAKING",
                      "--severity-override", "tool.input.constraint.tightened=POTENTIALLY_BREAKING")
    assert result.returncode == 0, result.stdout
    doc = json.loads(result.stdout)
    removed = [c for c in doc["changes"] if c["rule"] == "tool.input.property.removed"][0]
    assert removed["severity"] == "NON_BREAKING"
    assert removed["default_severity"] == "BREAKING"
    assert doc["verdict"] == "pass"
    assert doc["grade"] == "minor"


def test_json_output_follows_the_contract(mcpdelta):
    doc = json.loads(mcpdelta("diff", *BREAKING_PAIR, "--format", "json").stdout)
    assert doc["format"] == "mcpdelta.diff/v1"
    assert doc["engine"]["name"] == "mcpdelta"
    assert doc["old"]["digest"].startswith("mcp-contract-v2-sha256:")
    assert doc["old"]["digest"] != doc["new"]["digest"]
    assert doc["grade"] == "major" and doc["verdict"] == "fail" and doc["fail_on"] == "BREAKING"
    removed = [c for c in doc["changes"] if c["rule"] == "tool.input.property.removed"]
    # the new input schema is open: q is accepted and ignored, so no call proves the break
    assert removed[0].pop("witness") is None
    assert removed[0].pop("witness_note").startswith("accepted but ignored")
    assert removed == [{
        "rule": "tool.input.property.removed",
        "severity": "BREAKING",
        "default_severity": "BREAKING",
        "entity": "search",
        "path": "/tools/search/inputSchema/properties/q",
        "old": {"description": "Keywords", "type": "string"},
        "new": None,
        "message": "Property q was removed from the input of tool search.",
        "note": "Accept and ignore the property for one release so existing callers keep working, then remove it.",
        "suppressed": False,
        "suppressed_reason": None,
        "advisory": [],
    }]
    assert doc["summary"] == {"BREAKING": 3, "POTENTIALLY_BREAKING": 0, "NON_BREAKING": 0,
                              "DOCUMENTATION": 1, "suppressed": 0, "unproven": 0}


def test_witnesses_prove_breaks_and_below_breaks_can_be_turned_off(mcpdelta):
    doc = json.loads(mcpdelta("diff", *BREAKING_PAIR, "--format", "json").stdout)
    bound = [c for c in doc["changes"] if c["rule"] == "tool.input.constraint.tightened"][0]
    # maximum 100 -> 50: the old schema accepts limit 51, the new one rejects it
    assert bound["witness"]["kind"] == "rejected"
    assert bound["witness"]["value"]["limit"] == 51
    identity = [c for c in doc["changes"] if c["rule"] == "server.identity.changed"][0]
    assert identity["witness"] is None and identity["witness_note"] is None  # below the level
    off = json.loads(mcpdelta("diff", *BREAKING_PAIR, "--format", "json", "--witness", "never").stdout)
    # a BREAKING schema claim is proven whatever --witness says: the proofs alone remain
    proofs = [(c["path"], c["witness"], c["witness_note"]) for c in off["changes"]
              if c["witness"] is not None or c["witness_note"] is not None]
    assert proofs and proofs == [(c["path"], c["witness"], c["witness_note"]) for c in doc["changes"]
                                 if c["default_severity"] == "BREAKING" and c["rule"].startswith("tool.")
                                 and (c["witness"] is not None or c["witness_note"] is not None)]
    assert [c["severity"] for c in off["changes"]] == [c["severity"] for c in doc["changes"]]


def test_manifest_from_stdin(mcpdelta):
    result = mcpdelta("diff", BREAKING_PAIR[0], "-", stdin=BREAKING_PAIR[1].read_text())
    assert result.returncode == 1
    assert "tool.input.property.removed" in result.stdout


def test_all_suppressed_says_so_and_passes(mcpdelta):
    folder = PAIRS / "all_suppressed"
    result = mcpdelta("diff", "old.json", "new.json", cwd=folder)  # picks up .mcpdelta.yml
    assert result.returncode == 0
    assert "all 2 changes suppressed" in result.stdout
    assert "no changes" not in result.stdout
    assert "Legacy tools are being rewritten" in result.stdout


def test_strict_profile_fails_potentially_breaking(mcpdelta, tmp_path):
    old = tmp_path / "old.json"
    new = tmp_path / "new.json"
    old.write_text('{"tools": [{"name": "t", "description": "Returns at most 10 rows"}]}')
    new.write_text('{"tools": [{"name": "t", "description": "Returns at most 100 rows"}]}')
    assert mcpdelta("diff", old, new).returncode == 0
    assert mcpdelta("diff", old, new, "--profile", "strict").returncode == 1


BAD_INPUTS = {
    "broken.json": (b'{"tools": [', "invalid JSON"),
    "binary.json": (b"\xff\xfe not utf8", "not valid UTF-8"),
    "list.json": (b"[1, 2]", "expected an object"),
    "tools_object.json": (b'{"tools": {}}', "'tools' is a JSON object, expected a list"),
    "nameless.json": (b'{"tools": [{"description": "x"}]}', "no string 'name'"),
    "bad_schema.json": (b'{"tools": [{"name": "a", "inputSchema": "object"}]}', "expected an object or boolean"),
    "duplicate.json": (b'{"tools": [{"name": "a"}, {"name": "a"}]}', "duplicate name 'a'"),
    "deep.json": (b'{"tools": [{"name": "a", "inputSchema": ' + b'{"items": ' * 300 + b"{}" + b"}" * 300 + b"}]}",
                  "nesting deeper than the limit of 256"),
    "very_deep.json": (b"[" * 100000 + b"]" * 100000, "nesting deeper"),
    "nan.json": (b'{"tools": [], "x": NaN}', "invalid JSON"),
    # json's own message ends "starting at": the place follows once, not "at at"
    "unterminated.json": (b'{"tools": [],\n "x": "abc}', "invalid JSON: Unterminated string starting at (line 2, column 7)"),
    "huge_number.json": (b'{"tools": [], "x": 1e400}', "number 1e400 is out of range"),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_bad_input_exits_2_with_one_line_naming_the_file(mcpdelta, tmp_path, name):
    content, problem = BAD_INPUTS[name]
    (tmp_path / name).write_bytes(content)
    (tmp_path / "ok.json").write_text('{"tools": [{"name": "a", "inputSchema": {"type": "object"}}]}')
    result = mcpdelta("diff", "ok.json", name, cwd=tmp_path)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert name in lines[0] and problem in lines[0], lines[0]


def test_missing_file_exits_2(mcpdelta, tmp_path):
    result = mcpdelta("diff", BREAKING_PAIR[0], tmp_path / "nope.json")
    assert result.returncode == 2
    assert "nope.json: no such file" in result.stderr
    assert "Traceback" not in result.stderr


def test_size_limit_from_config(mcpdelta, tmp_path):
    (tmp_path / ".mcpdelta.yml").write_text("limits: {max_bytes: 100}\n")
    big = tmp_path / "big.json"
    big.write_text('{"tools": [], "instructions": "' + "x" * 200 + '"}')
    result = mcpdelta("diff", BREAKING_PAIR[0], big, cwd=tmp_path)
    assert result.returncode == 2
    assert "larger than the 100-byte limit" in result.stderr


CONFIG_ERRORS = {
    "unknown_rule": ("severity_overrides:\n  tool.nope.changed: BREAKING\n", ":2", "unknown rule id 'tool.nope.changed'"),
    "unknown_severity": ("severity_overrides:\n  tool.removed: FATAL\n", ":2", "unknown severity 'FATAL'"),
    "ignore_unknown_rule": ("ignore:\n  - rule: tool.icon.changed\n", ":2", "unknown rule id"),
    "unknown_key": ("profile: strict\nfail-on: BREAKING\n", ":2", "unknown config key 'fail-on'"),
    "bad_profile": ("profile: lenient\n", ":1", "unknown profile 'lenient'"),
    "bad_yaml": ("ignore: [\n", "", "not valid YAML"),
}


@pytest.mark.parametrize("name", sorted(CONFIG_ERRORS))
def test_config_mistakes_exit_2_naming_the_line(mcpdelta, tmp_path, name):
    text, line, problem = CONFIG_ERRORS[name]
    config = tmp_path / "cfg.yml"
    config.write_text(text)
    result = mcpdelta("diff", *BREAKING_PAIR, "--config", config)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert f"cfg.yml{line}" in result.stderr and problem in result.stderr, result.stderr


def test_bad_command_line_override_exits_2(mcpdelta):
    result = mcpdelta("diff", *BREAKING_PAIR, "--severity-override", "tool.removed")
    assert result.returncode == 2 and "RULE=SEVERITY" in result.stderr
    result = mcpdelta("diff", *BREAKING_PAIR, "--fail-on", "SEVERE")
    assert result.returncode == 2 and "unknown severity 'SEVERE'" in result.stderr


def test_python_dash_m_mcpdelta_is_the_same_command(tmp_path):
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-m", "mcpdelta", "diff", *map(str, DOCS_PAIR)],
                            capture_output=True, text=True)
    assert result.returncode == 0
    assert "tool.description.changed" in result.stdout


def test_a_value_no_digest_can_represent_is_one_line_exit_2_for_json(mcpdelta, tmp_path):
    (tmp_path / "plain.json").write_text('{"tools": [{"name": "a", "description": "x"}]}')
    (tmp_path / "surrogate.json").write_text('{"tools": [{"name": "a", "description": "\\ud800"}]}')
    result = mcpdelta("diff", "plain.json", "surrogate.json", "--format", "json", cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip() == ("mcpdelta: error: surrogate.json: cannot compute the contract "
                                     "digest: input contains non-UTF-8 codepoints (a lone surrogate)")
    # formats without a digest still print, the surrogate as its JSON escape
    text = mcpdelta("diff", "plain.json", "surrogate.json", "--format", "sarif", cwd=tmp_path)
    assert text.returncode == 0 and "\\ud800" in text.stdout


def test_a_digest_that_moves_with_nothing_to_classify_grades_patch(mcpdelta, tmp_path):
    # a null field that was absent classifies as nothing; the contract digest still moves
    (tmp_path / "a.json").write_text('{"tools": [{"name": "t", "inputSchema": {"type": "object"}, "icons": null}]}')
    (tmp_path / "b.json").write_text('{"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}')
    doc = json.loads(mcpdelta("diff", "a.json", "b.json", "--format", "json", cwd=tmp_path).stdout)
    assert doc["changes"] == [] and doc["grade"] == "patch" and doc["verdict"] == "pass"
    text = mcpdelta("diff", "a.json", "b.json", cwd=tmp_path).stdout
    assert text.startswith("no classified changes, but the contract digest moved; grade patch")
    same = json.loads(mcpdelta("diff", "a.json", "a.json", "--format", "json", cwd=tmp_path).stdout)
    assert same["grade"] == "none"
    # a schema respelled ($comment is notation) accepts the same values: no movement at all
    (tmp_path / "c.json").write_text('{"tools": [{"name": "t", "inputSchema": {"type": "object", "$comment": "a"}}]}')
    (tmp_path / "d.json").write_text('{"tools": [{"name": "t", "inputSchema": {"type": "object", "$comment": "b"}}]}')
    respelled = json.loads(mcpdelta("diff", "c.json", "d.json", "--format", "json", cwd=tmp_path).stdout)
    assert respelled["changes"] == [] and respelled["grade"] == "none"



def _diff_help():
    from mcpdelta import cli
    from mcpdelta.commands import diff

    parser = cli.build_parser("diff")
    sub = parser._subparsers._group_actions[0].choices["diff"]
    diff.add_arguments(sub)
    return sub.format_help()


@pytest.mark.parametrize("columns", [50, 120])
def test_help_wraps_at_the_terminal_width_as_argparse_would(monkeypatch, columns):
    """The width comes from COLUMNS (else the terminal), as argparse's own
    formatter reads it, without argparse importing shutil for it."""
    import argparse

    from mcpdelta import cli

    monkeypatch.setenv("COLUMNS", str(columns))
    ours = _diff_help()
    monkeypatch.setattr(cli, "_Formatter", argparse.HelpFormatter)
    assert ours == _diff_help()
    described = ours.split("options:", 1)[1].splitlines()
    assert max(len(line) for line in described) <= columns
    assert max(len(line) for line in described) > columns - 20  # this width, not a narrower one


def test_a_diff_run_puts_the_collectors_threshold_back(capsys):
    import gc

    from mcpdelta.cli import main

    before = gc.get_threshold()
    assert main(["diff", *map(str, BREAKING_PAIR), "--format", "json"]) == 1
    assert json.loads(capsys.readouterr().out)["changes"]
    assert gc.get_threshold() == before


@pytest.mark.parametrize("tools", [3, 400])  # a report the buffer holds; one larger than a pipe holds
def test_a_buffered_report_arrives_whole_before_the_process_ends(tmp_path, tools):
    # The console entry ends a diff without the interpreter's teardown
    # (mcpdelta.cli.console, which -m mcpdelta runs too): what Python's
    # buffer holds (a pipe, PYTHONUNBUFFERED unset) must be flushed first.
    import os
    import subprocess
    import sys

    listed = [{"name": f"tool_{i}", "description": f"Tool number {i}. " + "x" * 200,
               "inputSchema": {"type": "object"}} for i in range(tools)]
    (tmp_path / "old.json").write_text(json.dumps({"tools": listed}))
    (tmp_path / "new.json").write_text(json.dumps({"tools": listed[:1]}))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    result = subprocess.run([sys.executable, "-m", "mcpdelta", "diff", str(tmp_path / "old.json"),
                             str(tmp_path / "new.json"), "--format", "json"],
                            capture_output=True, text=True, env=env)
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert [c["rule"] for c in report["changes"]] == ["tool.removed"] * (tools - 1)
