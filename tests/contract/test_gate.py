"""verify-lock and lint-bump through the console script: drift, per-tool
grades, unknown schemes, legacy pins and the version-bump gate."""

import copy
import hashlib

import pytest
import yaml

from mcpdelta.contract import jcs

from .conftest import EXAMPLE, manifest, write_json

SEARCH = {"name": "search", "description": "Search notes.",
          "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}}
STATS = {"name": "stats", "description": "Count notes.", "inputSchema": {"type": "object"}}


def changed(tool, fn):
    tool = copy.deepcopy(tool)
    fn(tool)
    return tool


def add_optional(t):
    t["inputSchema"]["properties"]["limit"] = {"type": "integer"}


def drop_q(t):
    t["inputSchema"]["properties"] = {}
    del t["inputSchema"]["required"]


@pytest.fixture
def pinned(cli, tmp_path):
    """A lockfile pinning SEARCH at 1.4.0 and STATS at 1.0.0."""
    write_json(tmp_path / "old.json", manifest(SEARCH, STATS))
    assert cli("lock", "old.json", "-o", "lock.yaml", "--declared", "search=1.4.0").code == 0
    return tmp_path


# --- per-tool grades ------------------------------------------------------------------

@pytest.mark.parametrize("mutate,grade,rule", [
    (drop_q, "major", "tool.input.property.removed"),
    (add_optional, "minor", "tool.input.property.added"),
    (lambda t: t.update(description="Search notes"), "patch", "tool.description.changed"),
    (lambda t: t["inputSchema"].update({"$comment": "internal"}), "patch", None),  # movement no rule explains
])
def test_changed_tool_is_graded_from_the_engine(cli, pinned, mutate, grade, rule):
    write_json(pinned / "new.json", manifest(changed(SEARCH, mutate), STATS))
    run = cli("verify-lock", "new.json", "--lock", "lock.yaml", "--format", "json")
    assert run.code == 3, run.out + run.err
    doc = run.json()
    assert doc["changed"] == ["search"] and doc["added"] == [] and doc["removed"] == []
    [row] = doc["tools"]
    assert row["grade"] == grade and doc["grade"] == grade
    assert [c["rule"] for c in row["changes"] if c["rule"] == rule] == ([rule] if rule else [])
    if rule is None:
        assert row["changes"] == []  # digest moved, no rule fired: still at least a patch


def test_drift_names_added_removed_and_changed_with_grades(cli, pinned):
    extra = {"name": "export", "description": "Export.", "inputSchema": {"type": "object"}}
    write_json(pinned / "new.json", manifest(changed(SEARCH, drop_q), extra))
    run = cli("verify-lock", "new.json", "--lock", "lock.yaml")
    assert run.code == 3
    lines = run.out.splitlines()
    assert "drift, grade major" in lines[0]
    assert any(l.split()[:4] == ["added", "export", "grade", "minor"] for l in lines), run.out
    assert any(l.split()[:4] == ["removed", "stats", "grade", "major"] for l in lines), run.out
    assert any(l.split()[:4] == ["changed", "search", "grade", "major"] for l in lines), run.out
    assert "tool.input.property.removed" in run.out
    doc = cli("verify-lock", "new.json", "--lock", "lock.yaml", "--format", "json").json()
    assert (doc["added"], doc["removed"], doc["changed"], doc["drift"]) == (["export"], ["stats"], ["search"], True)
    assert doc["exit_code"] == 3


def test_title_only_change_is_not_drift_under_v2(cli, pinned):
    write_json(pinned / "new.json", manifest(dict(SEARCH, title="Find"), STATS))
    run = cli("verify-lock", "new.json", "--lock", "lock.yaml")
    assert run.code == 0 and "no drift" in run.out


def test_unknown_scheme_is_reported_and_ungated(cli, pinned):
    lock = yaml.safe_load((pinned / "lock.yaml").read_text())
    lock["tools"]["search"]["contract_digest"] = "mcp-contract-v9-blake3:" + "ab" * 32
    (pinned / "lock.yaml").write_text(yaml.safe_dump(lock))
    write_json(pinned / "new.json", manifest(changed(SEARCH, drop_q), STATS))  # would be major
    run = cli("verify-lock", "new.json", "--lock", "lock.yaml", "--format", "json")
    assert run.code == 0, run.out + run.err
    doc = run.json()
    assert doc["unknown_scheme"] == ["search"] and doc["drift"] is False
    assert "mcp-contract-v9-blake3" in doc["tools"][0]["note"]
    text = cli("verify-lock", "new.json", "--lock", "lock.yaml")
    assert text.code == 0 and "unknown scheme" in text.out and "search" in text.out
    lint = cli("lint-bump", "new.json", "--lock", "lock.yaml")
    assert lint.code == 0 and "not gated" in lint.out


def test_legacy_v1_pins_keep_their_own_recipe(cli, tmp_path):
    tool = dict(SEARCH, title="Search")
    p1 = {"name": "search", "title": "Search", "description": SEARCH["description"],
          "inputSchema": SEARCH["inputSchema"]}
    legacy = "sha256:" + hashlib.sha256(jcs(p1)).hexdigest()
    (tmp_path / "lock.yaml").write_text(yaml.safe_dump(
        {"version": 1, "generated_for": "acme",
         "tools": {"search": {"semver": "1.0.0", "contract_digest": legacy, "contract": p1}}}))
    write_json(tmp_path / "same.json", manifest(tool))
    assert cli("verify-lock", "same.json", "--lock", "lock.yaml").code == 0
    # v1 covers title: a label edit is drift for a v1 pin, graded by the engine
    write_json(tmp_path / "retitled.json", manifest(dict(tool, title="Find")))
    run = cli("verify-lock", "retitled.json", "--lock", "lock.yaml", "--format", "json")
    assert run.code == 3 and run.json()["changed"] == ["search"]
    row = run.json()["tools"][0]
    assert [c["rule"] for c in row["changes"]] == ["tool.title.changed"]
    assert row["grade"] in ("patch", "minor")  # the prose classifier's call, never "none"


def test_digest_only_baseline_grades_at_least_patch(cli, tmp_path):
    write_json(tmp_path / "old.json", manifest(SEARCH))
    assert cli("lock", "old.json", "-o", "lock.yaml", "--no-contract").code == 0
    write_json(tmp_path / "new.json", manifest(changed(SEARCH, drop_q)))
    run = cli("verify-lock", "new.json", "--lock", "lock.yaml", "--format", "json")
    assert run.code == 3
    row = run.json()["tools"][0]
    assert row["status"] == "changed" and row["grade"] == "patch" and "floor" in row["note"]


# --- lint-bump ----------------------------------------------------------------------------------

@pytest.mark.parametrize("mutate,declared,code", [
    (drop_q, "1.5.0", 1),    # breaking change shipped as minor: under-bump
    (drop_q, "1.4.1", 1),    # ... as patch
    (drop_q, None, 1),       # changed contract, no bump at all
    (drop_q, "1.4.0", 1),    # declared, but equal to the pin
    (drop_q, "2.0.0", 0),    # the right bump
    (add_optional, "1.5.0", 0),
    (add_optional, "1.4.1", 1),
    (add_optional, "2.0.0", 0),   # over-bump is fine
    (lambda t: t.update(description="Search notes"), "1.4.1", 0),   # punctuation: a patch
    (lambda t: t.update(description="Search notes"), None, 1),
    (drop_q, "1.3.0", 1),    # backwards
])
def test_lint_bump(cli, pinned, mutate, declared, code):
    write_json(pinned / "new.json", manifest(changed(SEARCH, mutate), STATS))
    args = ["lint-bump", "new.json", "--lock", "lock.yaml", "--format", "json"]
    if declared:
        args += ["--declared", f"search={declared}"]
    run = cli(*args)
    assert run.code == code, run.out + run.err
    doc = run.json()
    assert doc["verdict"] == ("fail" if code else "pass")
    row = next(r for r in doc["tools"] if r["tool"] == "search")
    assert row["ok"] is (code == 0) and row["prior"] == "1.4.0"


def test_lint_bump_failure_names_tool_grade_and_changes(cli, pinned):
    write_json(pinned / "new.json", manifest(changed(SEARCH, drop_q), STATS))
    run = cli("lint-bump", "new.json", "--lock", "lock.yaml", "--declared", "search=1.5.0")
    assert run.code == 1
    assert "FAIL search" in run.out and "required major" in run.out
    assert "1.4.0 -> 1.5.0 is a minor bump" in run.out
    assert "tool.input.property.removed" in run.out
    row = cli("lint-bump", "new.json", "--lock", "lock.yaml", "--declared", "search=1.5.0",
              "--format", "json").json()["tools"][0]
    assert row["required"] == "major" and row["bump"] == "minor"
    assert {c["rule"] for c in row["changes"]} >= {"tool.input.property.removed"}
    assert all(c["severity"] == "BREAKING" for c in row["changes"])


def test_lint_bump_unchanged_tools_pass_and_versions_file(cli, pinned):
    write_json(pinned / "same.json", manifest(SEARCH, STATS))
    assert cli("lint-bump", "same.json", "--lock", "lock.yaml").code == 0
    (pinned / "versions.yaml").write_text("search: 1.4.0\nstats: 0.9.0\n")  # stats goes backwards
    run = cli("lint-bump", "same.json", "--lock", "lock.yaml", "--versions", "versions.yaml")
    assert run.code == 1 and "FAIL stats" in run.out and "backwards" in run.out


@pytest.mark.parametrize("args,needle", [
    (["--declared", "nosuch=1.0.0"], "nosuch"),
    (["--declared", "search=two"], "not a semantic version"),
    (["--versions", "missing.yaml"], "missing.yaml"),
])
def test_lint_bump_bad_input_exit_2(cli, pinned, args, needle):
    write_json(pinned / "new.json", manifest(SEARCH, STATS))
    run = cli("lint-bump", "new.json", "--lock", "lock.yaml", *args)
    assert run.code == 2 and needle in run.err and run.err.count("\n") == 1


def test_worked_example_next_release(cli):
    """The example's next release: create_note gained an optional input
    (minor), delete_note renamed its required input (major), export_notes
    is new; search_notes only changed its title (not covered by v2)."""
    lock = EXAMPLE / "tool-versions.lock.yaml"
    nxt = EXAMPLE / "manifest-next.json"
    doc = cli("verify-lock", nxt, "--lock", lock, "--format", "json").json()
    assert (doc["added"], doc["removed"], doc["changed"]) == (["export_notes"], [], ["create_note", "delete_note"])
    grades = {r["tool"]: r["grade"] for r in doc["tools"]}
    assert grades == {"create_note": "minor", "delete_note": "major", "export_notes": "minor"}
    under = cli("lint-bump", nxt, "--lock", lock, "--declared", "create_note=1.0.4", "--declared", "delete_note=3.0.0")
    assert under.code == 1 and "FAIL create_note" in under.out and "delete_note" in under.out
    ok = cli("lint-bump", nxt, "--lock", lock, "--declared", "create_note=1.1.0", "--declared", "delete_note=3.0.0")
    assert ok.code == 0, ok.out
