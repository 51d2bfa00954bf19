"""The main job: `mcpdelta survey` with no arguments, on the embedded demo
servers, offline: real stdio servers written with the official mcp SDK."""

import json

import pytest

from mcpdelta.lake import Lake


@pytest.fixture(scope="module")
def first_run(tmp_path_factory):
    import os
    import subprocess
    import sys

    cwd = tmp_path_factory.mktemp("main-job")
    script = os.path.join(os.path.dirname(sys.executable), "mcpdelta")
    result = subprocess.run([script, "survey"], cwd=cwd, capture_output=True, text=True, timeout=300)
    return cwd, result


def test_survey_with_no_arguments_writes_a_lake_and_a_report(first_run):
    cwd, result = first_run
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert (cwd / "lake" / "manifests").is_dir()
    report = cwd / "lake-report" / "survey.html"
    assert result.stdout.strip().splitlines()[-1] == f"report: {report}"
    assert report.read_text().count("<svg") == 6  # every plot: the page `mcpdelta report` writes


def test_survey_finds_the_demo_servers_designed_changes(first_run):
    cwd, result = first_run
    lines = result.stdout.splitlines()
    assert lines[0].startswith("surveyed 2 servers, 8 captures, 6 version pairs (6 diffed, 0 cached)")
    # from the notes server's changelog (data/demo/notes_server.py)
    con = Lake(str(cwd / "lake")).connect()
    found = con.execute("SELECT server_id, old_version, new_version, rule, entity, path FROM changes "
                        "WHERE severity = 'BREAKING'").fetchall()
    for expected in (("demo-notes", "1.1.0", "1.2.0", "tool.input.constraint.tightened", "search_notes"),
                     ("demo-notes", "1.2.0", "2.0.0", "tool.removed", "search_notes"),
                     ("demo-notes", "1.2.0", "2.0.0", "tool.input.property.addedRequired", "add_note"),
                     ("demo-notes", "1.2.0", "2.0.0", "tool.input.property.removed", "add_note"),
                     ("demo-notes", "1.2.0", "2.0.0", "tool.output.property.removed", "get_note"),
                     ("demo-notes", "1.2.0", "2.0.0", "prompt.argument.nowRequired", "summarize_notes")):
        rows = [r for r in found if r[:5] == expected]
        # each change points into that entity
        assert rows and all(r[5].startswith(("/tools/" + expected[4], "/prompts/" + expected[4]))
                            for r in rows), expected
    # the terminal gets one line per release that broke, not every change
    releases = {(r[0], r[1], r[2]) for r in found}
    for server, old, new in releases:
        n = sum(1 for r in found if r[:3] == (server, old, new))
        assert [line for line in lines if line.startswith(f"  {server} {old} -> {new}: {n} (")]
    weakened = con.execute("SELECT server_id, new_version, entity FROM changes "
                           "WHERE rule = 'tool.annotations.safetyWeakened'").fetchall()
    assert ("demo-notes", "1.2.0", "delete_note") in weakened


def test_a_second_survey_captures_again_but_diffs_nothing(first_run):
    import os
    import subprocess
    import sys

    cwd, _ = first_run
    script = os.path.join(os.path.dirname(sys.executable), "mcpdelta")
    result = subprocess.run([script, "survey", "--format", "json"], cwd=cwd, capture_output=True,
                            text=True, timeout=300)
    summary = json.loads(result.stdout)
    assert summary["captures"] == 8  # the same contracts: no new rows
    assert summary["pairs_diffed"] == 0 and summary["pairs_cached"] == 6


def test_a_version_bump_is_the_identity_only(first_run):
    """The demo servers speak the 2026-07-28 revision, which repeats
    serverInfo under the result's _meta: each release's version bump is one
    identity change (DOCUMENTATION), never a server field change."""
    cwd, _ = first_run
    con = Lake(str(cwd / "lake")).connect()
    server = con.execute("SELECT rule, severity, path FROM changes WHERE rule LIKE 'server.%' "
                         "ORDER BY ALL").fetchall()
    assert server and {(rule, severity) for rule, severity, _ in server} == {
        ("server.identity.changed", "DOCUMENTATION")}
    assert {path for *_, path in server} == {"/serverInfo/version"}
    stamped = con.execute("SELECT count(*) FROM manifests WHERE manifest_json LIKE "
                          "'%io.modelcontextprotocol/serverInfo%'").fetchone()[0]
    assert stamped > 0  # the captures do carry the _meta stamp the engine reads past
