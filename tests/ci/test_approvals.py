"""Approvals: an accepted break carried from commit to commit of a real git
repository, shown in every format, never failing the build; expired
approvals fail again; stale ones are reported; ``--approve`` writes entries
for a human to give a reason and commit."""

import copy
import json
import subprocess

import pytest
import yaml

from tests.conftest import _console_script

# The baseline: what callers rely on.
BASELINE = {
    "protocolVersion": "2025-06-18",
    "serverInfo": {"name": "acme", "version": "1.0.0"},
    "capabilities": {"tools": {}},
    "tools": [
        {"name": "search", "description": "Search the catalog.",
         "inputSchema": {"type": "object", "required": ["q", "limit"],
                         "properties": {"q": {"type": "string"}, "limit": {"type": "integer"}}}},
        {"name": "other", "description": "Other things.", "inputSchema": {"type": "object"}},
        {"name": "notes", "description": "Take notes.",
         "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}},
    ],
}
# The release under review: search's limit became a string (BREAKING, approved on purpose).
LIMIT_AS_STRING = copy.deepcopy(BASELINE)
LIMIT_AS_STRING["serverInfo"]["version"] = "2.0.0"
LIMIT_AS_STRING["tools"][0]["inputSchema"]["properties"]["limit"] = {"type": "string"}
REASON = "limit is sent as text by every client since 1.9"
APPROVED_RULE = "tool.input.type.changed"


def run(*args, cwd):
    return subprocess.run([_console_script(), *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=120)


def git(*args, cwd):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
                   cwd=cwd, check=True, capture_output=True)


def write(path, manifest, indent=2):
    path.write_text(json.dumps(manifest, indent=indent) + "\n")


def commit(repo, message):
    git("add", "-A", cwd=repo)
    git("commit", "-qm", message, cwd=repo)


def committed_diff(repo, *extra):
    """The committed server against the committed baseline, as JSON."""
    done = run("diff", "git:HEAD:baseline.json", "git:HEAD:server.json", "--format", "json", *extra, cwd=repo)
    assert done.returncode in (0, 1), done.stderr
    return done, json.loads(done.stdout)


def the_approved_change(doc):
    [change] = [c for c in doc["changes"] if c["rule"] == APPROVED_RULE]
    return change


@pytest.fixture
def repo(tmp_path):
    git("init", "-q", "-b", "main", str(tmp_path), cwd=tmp_path)
    write(tmp_path / "baseline.json", BASELINE)
    write(tmp_path / "server.json", LIMIT_AS_STRING)
    commit(tmp_path, "the limit becomes a string")
    return tmp_path


def test_an_approval_survives_unrelated_commits_and_not_a_change_to_what_it_approved(repo):
    before, _ = committed_diff(repo)
    assert before.returncode == 1  # the break fails the build

    approve = run("diff", "git:HEAD:baseline.json", "git:HEAD:server.json", "--approve", "--reason", REASON,
                  cwd=repo)
    assert approve.returncode == 0, approve.stderr
    assert "1 approval added to .mcpdelta-approvals.yml" in approve.stderr
    written = yaml.safe_load((repo / ".mcpdelta-approvals.yml").read_text())
    assert written["version"] == 1
    [entry] = written["approvals"]
    assert (entry["rule"], entry["entity"], entry["reason"], entry["server"]) == (
        APPROVED_RULE, "search", REASON, "acme")
    commit(repo, "approve the limit change")

    done, doc = committed_diff(repo)
    assert done.returncode == 0 and doc["verdict"] == "pass"
    change = the_approved_change(doc)
    assert change["severity"] == "BREAKING" and doc["grade"] == "major"  # approval is no re-grade
    assert change["approval"]["reason"] == REASON and change["fingerprint"] == entry["fingerprint"]

    # 1. an unrelated tool renamed (on both sides: the team took that rename earlier)
    for name in ("baseline.json", "server.json"):
        manifest = json.loads((repo / name).read_text())
        manifest["tools"][1]["name"] = "misc"
        write(repo / name, manifest)
    commit(repo, "rename other to misc")
    # 2. the server's file reordered: tools, keys, required list, indentation
    manifest = json.loads((repo / "server.json").read_text())
    manifest["tools"].reverse()
    for tool in manifest["tools"]:
        tool["inputSchema"].get("required", []).reverse()
    reordered = {k: manifest[k] for k in reversed(list(manifest))}
    reordered["tools"] = [{k: t[k] for k in reversed(list(t))} for t in manifest["tools"]]
    write(repo / "server.json", reordered, indent=4)
    commit(repo, "reorder the capture")
    # 3. a description elsewhere changed
    manifest = json.loads((repo / "server.json").read_text())
    [notes] = [t for t in manifest["tools"] if t["name"] == "notes"]
    notes["description"] = "Take short notes, one line each."
    write(repo / "server.json", manifest)
    commit(repo, "reword notes")

    done, doc = committed_diff(repo)
    assert done.returncode == 0, done.stdout
    assert {c["rule"] for c in doc["changes"]} == {APPROVED_RULE, "tool.description.changed",
                                                   "server.identity.changed"}
    change = the_approved_change(doc)
    assert change["fingerprint"] == entry["fingerprint"] and change["approval"]["expired"] is False
    assert doc["approvals"] == {"file": ".mcpdelta-approvals.yml", "approved": 1, "expired": 0, "stale": []}
    text = run("diff", "git:HEAD:baseline.json", "git:HEAD:server.json", cwd=repo)
    assert text.returncode == 0 and f"approved: {REASON}" in text.stdout and "1 approved" in text.stdout

    # the approved change itself altered: the limit is now a boolean
    manifest = json.loads((repo / "server.json").read_text())
    [search] = [t for t in manifest["tools"] if t["name"] == "search"]
    search["inputSchema"]["properties"]["limit"] = {"type": "boolean"}
    write(repo / "server.json", manifest)
    commit(repo, "limit becomes a boolean")
    done, doc = committed_diff(repo)
    assert done.returncode == 1 and doc["verdict"] == "fail"
    change = the_approved_change(doc)
    assert change["approval"] is None and change["fingerprint"] != entry["fingerprint"]
    assert [a["fingerprint"] for a in doc["approvals"]["stale"]] == [entry["fingerprint"]]
    assert f".mcpdelta-approvals.yml:{_line_of(repo, entry['fingerprint'])}: stale approval " \
           f"{entry['fingerprint']} ({APPROVED_RULE} search) matches no change" in done.stderr


def _line_of(repo, fingerprint) -> int:
    lines = (repo / ".mcpdelta-approvals.yml").read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if fingerprint in line)


def _approvals(folder, entries, version=1):
    path = folder / ".mcpdelta-approvals.yml"
    path.write_text(yaml.safe_dump({"version": version, "approvals": entries}, sort_keys=False))
    return path


@pytest.fixture
def pair(tmp_path):
    write(tmp_path / "old.json", BASELINE)
    write(tmp_path / "new.json", LIMIT_AS_STRING)
    done = run("diff", "old.json", "new.json", "--approve", "--reason", REASON, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    [entry] = yaml.safe_load((tmp_path / ".mcpdelta-approvals.yml").read_text())["approvals"]
    return tmp_path, entry


def test_an_expired_approval_fails_again(pair):
    folder, entry = pair
    _approvals(folder, [{**entry, "expires": "2000-01-31"}])
    done = run("diff", "old.json", "new.json", cwd=folder)
    assert done.returncode == 1
    assert f"approval expired 2000-01-31 (fails again): {REASON}" in done.stdout
    assert "1 approval expired" in done.stdout
    _approvals(folder, [{**entry, "expires": "2999-12-31"}])
    done = run("diff", "old.json", "new.json", cwd=folder)
    assert done.returncode == 0 and "(until 2999-12-31)" in done.stdout


def test_a_stale_approval_is_reported_and_changes_nothing_else(pair):
    folder, entry = pair
    gone = {**entry, "fingerprint": "0123456789abcdef", "rule": "tool.removed", "entity": "gone"}
    elsewhere = {**gone, "fingerprint": "fedcba9876543210", "server": "another-server"}
    _approvals(folder, [entry, gone, elsewhere])
    done = run("diff", "old.json", "new.json", "--format", "json", cwd=folder)
    assert done.returncode == 0
    assert done.stderr == (".mcpdelta-approvals.yml:8: stale approval 0123456789abcdef (tool.removed gone) "
                           "matches no change; delete it\n").join(["mcpdelta: ", ""])
    # an approval for a server this run did not compare is not called stale
    assert [a["fingerprint"] for a in json.loads(done.stdout)["approvals"]["stale"]] == ["0123456789abcdef"]


def test_approved_breaks_show_marked_in_every_format_and_never_fail(pair):
    folder, entry = pair
    outputs = {fmt: run("diff", "old.json", "new.json", "--format", fmt, cwd=folder)
               for fmt in ("text", "json", "markdown", "sarif", "github", "junit", "changelog")}
    assert {fmt: done.returncode for fmt, done in outputs.items()} == dict.fromkeys(outputs, 0)
    assert f"approved: {REASON}" in outputs["text"].stdout
    assert f"approved: {REASON}" in outputs["markdown"].stdout and "· approved" in outputs["markdown"].stdout
    assert f"*approved: {REASON}*" in outputs["changelog"].stdout
    [result] = [r for r in json.loads(outputs["sarif"].stdout)["runs"][0]["results"] if r["ruleId"] == APPROVED_RULE]
    assert result["suppressions"] == [{"kind": "external", "status": "accepted",
                                       "justification": f"approved: {REASON}"}]
    assert result["properties"]["approval"]["fingerprint"] == entry["fingerprint"]
    [line] = [x for x in outputs["github"].stdout.splitlines() if APPROVED_RULE in x]
    assert line.startswith("::notice ") and "(approved)" in line and REASON in line
    assert "<failure" not in outputs["junit"].stdout and f"approved: {REASON}" in outputs["junit"].stdout


@pytest.mark.parametrize("entry, problem", [
    ({"rule": APPROVED_RULE, "entity": "search", "reason": "x"}, ":3: an approval needs a fingerprint"),
    ({"fingerprint": "0123456789abcdef", "rule": APPROVED_RULE, "entity": "search"},
     ":3: an approval needs a reason (why this break is acceptable)"),
    ({"fingerprint": "0123456789abcdef", "rule": APPROVED_RULE, "reason": " "}, ":3: an approval needs a reason"),
    ({"fingerprint": "XYZ", "rule": APPROVED_RULE, "reason": "x"}, "fingerprint 'XYZ' is not 16 lower-case hex"),
    ({"fingerprint": "0123456789abcdef", "rule": "tool.gone", "reason": "x"}, "unknown rule id 'tool.gone'"),
    ({"fingerprint": "0123456789abcdef", "rule": APPROVED_RULE, "reason": "x", "expires": "soon"},
     "expires 'soon' is not a date like 2026-03-31"),
    ({"fingerprint": "0123456789abcdef", "rule": APPROVED_RULE, "reason": "x", "by": "me"},
     ":6: unknown approval field 'by'"),
])
def test_a_broken_approvals_file_is_one_line_naming_the_place(tmp_path, entry, problem):
    write(tmp_path / "old.json", BASELINE)
    write(tmp_path / "new.json", LIMIT_AS_STRING)
    _approvals(tmp_path, [entry])
    done = run("diff", "old.json", "new.json", cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("mcpdelta: error: .mcpdelta-approvals.yml:") and problem in done.stderr
    assert done.stderr.count("\n") == 1


def test_the_same_fingerprint_twice_and_a_missing_named_file_are_errors(pair):
    folder, entry = pair
    _approvals(folder, [entry, entry])
    done = run("diff", "old.json", "new.json", cwd=folder)
    assert done.returncode == 2 and f"fingerprint {entry['fingerprint']} is approved twice" in done.stderr
    done = run("diff", "old.json", "new.json", "--approvals", "absent.yml", cwd=folder)
    assert done.returncode == 2 and "absent.yml: no such approvals file" in done.stderr


def test_approve_appends_to_a_reviewed_file_and_keeps_its_comments(pair):
    folder, entry = pair
    path = folder / ".mcpdelta-approvals.yml"
    path.write_text(path.read_text().replace("approvals:\n", "approvals:\n  # reviewed by the API team\n"))
    newer = copy.deepcopy(LIMIT_AS_STRING)
    del newer["tools"][2]  # notes removed too
    write(folder / "newer.json", newer)
    done = run("diff", "old.json", "newer.json", cwd=folder)
    assert done.returncode == 1 and "tool.removed" in done.stdout  # the limit is approved, the removal not
    done = run("diff", "old.json", "newer.json", "--approve", cwd=folder)
    assert done.returncode == 0 and "1 approval added" in done.stderr and "give each a reason" in done.stderr
    text = path.read_text()
    assert "# reviewed by the API team" in text and "# BREAKING tool.removed: Tool notes was removed." in text
    # written without --reason, the entry is not an approval until someone gives one
    done = run("diff", "old.json", "newer.json", cwd=folder)
    assert done.returncode == 2 and "an approval needs a reason" in done.stderr
    path.write_text(text.replace('reason: ""', 'reason: "notes moved to the wiki server"'))
    done = run("diff", "old.json", "newer.json", cwd=folder)
    assert done.returncode == 0, done.stdout + done.stderr
    assert [a["entity"] for a in yaml.safe_load(path.read_text())["approvals"]] == ["search", "notes"]


def test_fingerprints_ignore_notation_and_name_the_meaning():
    from mcpdelta.gate.approvals import fingerprint
    from mcpdelta.engine.change import Change

    def change(old, new, path="/tools/t/inputSchema/properties/p"):
        return Change("tool.input.property.removed", "t", path, old, new)

    a = change({"type": ["string", "null"], "enum": ["a", "b"], "maximum": 1.0}, None)
    b = change({"maximum": 1, "enum": ["b", "a"], "type": ["null", "string"]}, None)
    assert fingerprint(a, "s") == fingerprint(b, "s")
    assert fingerprint(a, "s") != fingerprint(a, "other-server")
    assert fingerprint(a, "s") != fingerprint(change({"type": "string", "prefixItems": [1, 2]}, None), "s")
    assert fingerprint(change({"prefixItems": [1, 2]}, None), "s") != \
        fingerprint(change({"prefixItems": [2, 1]}, None), "s")  # a tuple's order is meaning
    assert fingerprint(a, "s") != fingerprint(change(a.old, None, path="/tools/t/inputSchema/properties/q"), "s")
