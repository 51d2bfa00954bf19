"""Servers whose tools depend on their configuration, crawled for real
(tests/survey/configured/configured_server.py over stdio) and read by the
study as it must read them.

- Started without its configuration, the server advertises tools and lists
  none: each capture is a failure of kind ``empty`` carrying the server's
  stderr, never a release, and the funnel, coverage and failure tables
  count it; with its configuration every tool is captured and the steps
  count.
- Its tool set depends on ``ADMIN_TOOLS``: two releases captured under
  different recipes (the admin tools on, then off) would read as two tools
  removed; the step is flagged and not counted, and the study says per
  server how the tool set depends on configuration. Under one recipe the
  same step counts, with no removal.
"""

import json
import subprocess

import pytest

from mcpdelta.engine.policy import Policy
from mcpdelta.lake import Lake
from mcpdelta.resources import SQL_DIR as SQL
from mcpdelta.survey.diffstage import engine_version, policy_hash
from mcpdelta.survey.writeup import gather_study
from tests.conftest import ROOT
from tests.survey.test_study import MCPDELTA

SERVER = ROOT / "tests" / "survey" / "configured" / "configured_server.py"
TOOL_SET = "ADMIN_TOOLS=1 adds export and purge to search and fetch"
SERVICE = {"SERVICE_URL": "http://127.0.0.1:9"}


def entry(server_id, versions, env, tool_set=None):
    found = {"id": server_id, "command": "{python}", "args": [str(SERVER), "{version}"], "versions": versions,
             "env": env}
    return dict(found, tool_set=tool_set) if tool_set else found


def crawl(servers, entries, out):
    servers.write_text(json.dumps({"servers": entries, "limits": {"timeout_s": 20, "total_timeout_s": 60}}))
    run = subprocess.run([MCPDELTA, "crawl", "--servers", str(servers), "--out", str(out)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode in (0, 1), run.stderr


@pytest.fixture(scope="module")
def configured(tmp_path_factory):
    """One capture folder, one study: ``bare`` started without its
    configuration, ``full`` with all of it, ``mixed`` 1.0.0 with the admin
    tools on and 1.1.0 (a second crawl, another recipe) with them off."""
    base = tmp_path_factory.mktemp("configured")
    out, servers = base / "out", base / "servers.json"
    admin = {**SERVICE, "ADMIN_TOOLS": "1"}
    crawl(servers, [entry("bare", ["1.0.0", "1.1.0"], {}), entry("full", ["1.0.0", "1.1.0"], admin, TOOL_SET),
                    entry("mixed", ["1.0.0"], admin, TOOL_SET)], out)
    crawl(servers, [entry("mixed", ["1.1.0"], SERVICE, TOOL_SET)], out)
    run = subprocess.run([MCPDELTA, "study", str(servers), "--out", str(base / "page"), "--work", str(base / "work"),
                          "--captures", str(out)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    scope = engine_version(), policy_hash(Policy())
    steps = Lake(str(base / "work" / "lake")).connect(*scope)
    rows = gather_study(steps, Lake(str(base / "work" / "lake-latest")).connect(*scope))
    log = {}
    for line in (out / "crawl-log.jsonl").read_text().splitlines():
        row = json.loads(line)
        log[(row["id"], row["version"])] = row
    text = "\n".join((base / "page" / name).read_text() for name in ("README.md", "tables.md"))  # the study's pages
    return {"rows": rows, "text": text, "log": log, "out": out,
            "con": Lake(str(base / "work" / "lake")).connect(*scope)}


def by_server(rows):
    return {r["server_id"]: r for r in rows}


def test_without_its_configuration_a_server_that_lists_no_tools_fails_as_empty(configured):
    log, rows, text = configured["log"], configured["rows"], configured["text"]
    for version in ("1.0.0", "1.1.0"):
        row = log[("bare", version)]
        assert (row["ok"], row["error_kind"]) == (False, "empty")
        # the cause, from the server's own stderr
        assert "advertises the tools capability" in row["error"] and "SERVICE_URL is not set" in row["error"]
        assert "SERVICE_URL is not set" in row["stderr_tail"]
    assert not list((configured["out"] / "bare").glob("*.json"))  # no capture written
    coverage = by_server(rows["coverage"])["bare"]
    assert (coverage["attempted"], coverage["captured"], coverage["failed"], coverage["empty"]) == (2, 0, 2, 2)
    assert [(f["server_id"], f["version"], f["reason"]) for f in rows["failures"]] == [
        ("bare", "1.0.0", "empty"), ("bare", "1.1.0", "empty")]
    assert rows["failure_reasons"] == [{"reason": "empty", "versions": 2, "servers": 1}]
    assert configured["con"].execute("SELECT count(*) FROM releases WHERE server_id = 'bare'").fetchone() == (0,)
    assert "bare" not in by_server(rows["steps_by_server"])
    assert "- `empty`: 2 versions of 1 server" in text
    assert "| bare | 1.0.0 |  | `empty` | listed no tools, though it advertises the tools capability" in text
    assert "2 of them listed no tools where tools were expected (*empty*" in text  # In short


def test_with_its_configuration_every_tool_is_captured_and_the_step_counts(configured):
    log, rows = configured["log"], configured["rows"]
    assert all(log[("full", v)]["ok"] for v in ("1.0.0", "1.1.0"))
    tools = configured["con"].execute("SELECT r.version, count(*) FROM releases r JOIN tools t ON "
                                      "t.server_id = r.server_id AND t.manifest_digest = r.digest "
                                      "WHERE r.server_id = 'full' GROUP BY ALL ORDER BY 1").fetchall()
    assert tools == [("1.0.0", 4), ("1.1.0", 4)]
    steps = by_server(rows["steps_by_server"])["full"]
    assert (steps["releases"], steps["counted"], steps["recipe_changed"], steps["breaking"]) == (2, 1, 0, 0)


def test_a_tool_set_that_depends_on_a_variable_is_recorded_with_its_recipe(configured):
    log, rows, text = configured["log"], configured["rows"], configured["text"]
    old, new = log[("mixed", "1.0.0")]["recipe"], log[("mixed", "1.1.0")]["recipe"]
    assert old["hash"] != new["hash"] and old["args"] == new["args"]
    assert (old["env"], new["env"]) == (["ADMIN_TOOLS", "SERVICE_URL"], ["SERVICE_URL"])
    assert old["tool_set"] == TOOL_SET
    assert "127.0.0.1" not in json.dumps([old, new])  # the names of the variables, never their values
    assert log[("full", "1.0.0")]["recipe"]["hash"] == log[("full", "1.1.0")]["recipe"]["hash"]
    [step] = [r for r in rows["release_table"] if r["server_id"] == "mixed"]
    assert (step["recipe_changed"], step["counted"]) == (True, False)
    # what the step would have said: the two admin tools removed, each a break
    assert configured["con"].execute("SELECT count(*) FROM changes WHERE server_id = 'mixed' "
                                     "AND rule = 'tool.removed'").fetchone() == (2,)
    steps = by_server(rows["steps_by_server"])["mixed"]
    assert (steps["counted"], steps["recipe_changed"], steps["breaking"]) == (0, 1, 0)
    assert "1 step not counted because its two releases were captured under different recipes" in text
    assert "not counted: captured under different recipes" in text
    from mcpdelta.safe import md_text

    for server in ("full", "mixed"):  # the study says so per server (as literal Markdown)
        assert f"- {server}: {md_text(TOOL_SET)}" in text
    recipes = [(r["server_id"], r["env"], r["captured"]) for r in rows["recipes"] if r["level"] == "recipe"]
    assert sorted(recipes) == [("bare", [], 0), ("full", ["ADMIN_TOOLS", "SERVICE_URL"], 2),
                               ("mixed", ["ADMIN_TOOLS", "SERVICE_URL"], 1), ("mixed", ["SERVICE_URL"], 1)]
    total = next(r for r in rows["recipes"] if r["level"] == "all")
    assert (total["servers"], total["recorded_servers"], total["several_recipes"], total["tool_set_servers"]) == \
        (3, 3, 1, 2)


@pytest.mark.parametrize("advertises", [True, False])
def test_the_lake_reads_a_stored_empty_capture_as_a_failure(tmp_path, advertises):
    """Captures stored before the crawler recorded ``empty`` (or of a server
    that does not advertise tools while another release lists them) are read
    as failures all the same: no release, the attempt failed as empty."""
    from mcpdelta.lake.ingest import attempt_row, capture_row, store

    lake = Lake(str(tmp_path / "lake"))
    tool = {"name": "t", "inputSchema": {"type": "object"}}
    manifests = {"1.0.0": {"tools": [tool]}, "1.1.0": {"tools": []}, "1.2.0": {"tools": [tool]}}
    if advertises:
        manifests = {v: {"capabilities": {"tools": {}}, **m} for v, m in manifests.items()}
    rows, attempts = [], []
    for version, manifest in manifests.items():
        row = capture_row("s", version, json.dumps(manifest), source="test", captured_at="2026-01-01T00:00:00Z")
        rows.append(row)
        attempts.append(attempt_row({"id": "s", "version": version, "ok": True, "captured_at": "2026-01-01T00:00:00Z",
                                     "client": {"name": "c", "version": "1"}}, row["manifest_digest"], "test"))
    store(lake, rows, attempts)
    con = lake.connect()
    assert con.execute("SELECT version FROM releases ORDER BY position").fetchall() == [("1.0.0",), ("1.2.0",)]
    [failed] = con.execute("SELECT version, ok, error_kind, error, manifest_digest FROM attempts WHERE NOT ok").fetchall()
    assert failed[:3] == ("1.1.0", False, "empty") and failed[4] is None
    assert ("advertises the tools capability" if advertises else "another release of this server lists 1 tools") \
        in failed[3]
    [step] = con.execute("SELECT old_version, new_version, spans FROM release_steps").fetchall()
    assert step == ("1.0.0", "1.2.0", 1)  # across the version that failed
    [all_row] = [r for r in con.execute(f"SELECT server_id, failed, empty FROM ({(SQL / 'study' / 'coverage.sql').read_text()})")
                 .fetchall() if r[0] is None]
    assert all_row == (None, 1, 1)


def test_a_server_that_lists_no_tools_in_every_release_and_advertises_none_is_captured(tmp_path):
    """Nothing says tools were expected: an empty list is then what the server offers."""
    from mcpdelta.lake.ingest import attempt_row, capture_row, store

    lake = Lake(str(tmp_path / "lake"))
    rows, attempts = [], []
    for version in ("1.0.0", "1.1.0"):
        row = capture_row("p", version, json.dumps({"capabilities": {"prompts": {}}, "tools": [], "prompts": []}),
                          source="test", captured_at="2026-01-01T00:00:00Z")
        rows.append(row)
        attempts.append(attempt_row({"id": "p", "version": version, "ok": True, "captured_at": "2026-01-01T00:00:00Z"},
                                    row["manifest_digest"], "test"))
    store(lake, rows, attempts)
    con = lake.connect()
    assert con.execute("SELECT count(*) FROM releases").fetchone() == (2,)
    assert con.execute("SELECT count(*) FROM attempts WHERE ok").fetchone() == (2,)
