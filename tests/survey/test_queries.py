"""Every query under sql/, run by DuckDB on the small fixture lake, with its
answer written out by hand from tests/fixtures/README.md."""

import json

import pytest

from mcpdelta.engine.policy import Policy
from mcpdelta.lake import Lake
from mcpdelta.lake.ingest import capture_row, rows_from_folder, store
from mcpdelta.survey.diffstage import engine_version, policy_hash, run_diff_stage, selected_pairs
from mcpdelta.survey.queries import query
from tests.conftest import ROOT

SQL = ROOT / "sql"


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    lake = Lake(str(tmp_path_factory.mktemp("q") / "lake"))
    store(lake, *rows_from_folder(str(ROOT / "tests" / "fixtures" / "captures")))
    run_diff_stage(lake, Policy(), workers=1)
    return lake.connect(engine_version(), policy_hash(Policy()))


def test_every_query_file_is_tested():
    tested = {"rule_frequencies", "breaking_changes", "breaking_by_version", "severity_totals",
              "description_drift", "latest_release_breaks", "semver_honesty",
              "pairs_consecutive", "pairs_all",
              "drift_notes",  # tested in tests/judge_survey/test_drift.py
              "drift_by_server",  # tested in tests/judge_survey/test_offline_jury.py
              "drift_scored", "drift_largest", "drift_flags",  # tests/judge_survey/test_study_drift.py
              "breaking_by_release",
              # tested in tests/survey/test_study.py and test_attempts.py
              "ledger", "releases", "release_steps", "pairs_latest",
              "empty_captures"}  # tested in tests/survey/test_configured.py
    assert {p.stem for p in SQL.glob("*.sql")} == tested


def test_rule_frequencies(con):
    rows = {(r["rule"], r["severity"]): r["changes"] for r in query(con, "rule_frequencies")}
    assert rows == {
        ("server.identity.changed", "DOCUMENTATION"): 2,   # alpha 1.0->1.1, 1.1->2.0
        ("tool.input.property.added", "NON_BREAKING"): 1,
        ("tool.removed", "BREAKING"): 1,
        ("tool.input.enum.narrowed", "BREAKING"): 1,
        ("tool.description.changed", "DOCUMENTATION"): 1,
    }
    evidence = {r["rule"]: (r["proven"], r["by_rule"], r["unexplained"]) for r in query(con, "rule_frequencies")
                if r["severity"] == "BREAKING"}
    # the narrowed enum has a witness; a removed tool, none by its nature (not a schema change)
    assert evidence == {"tool.removed": (0, 1, 0), "tool.input.enum.narrowed": (1, 0, 0)}


def test_breaking_changes(con):
    rows = [(r["server_id"], r["old_version"], r["new_version"], r["rule"], r["entity"])
            for r in query(con, "breaking_changes")]
    assert rows == [("alpha", "1.1.0", "2.0.0", "tool.removed", "delete_note"),
                    ("beta", "0.9.0", "0.10.0", "tool.input.enum.narrowed", "forecast")]


def test_breaking_by_release_counts_witnesses(con):
    rows = [(r["server_id"], r["old_version"], r["new_version"], r["rule"], r["changes"], r["witnessed"],
             r["entities"]) for r in query(con, "breaking_by_release")]
    assert rows == [
        # a removed tool has no validation witness: no call to it can validate
        ("alpha", "1.1.0", "2.0.0", "tool.removed", 1, 0, ["delete_note"]),
        # units: "k" was accepted by 0.9.0 and is rejected by 0.10.0
        ("beta", "0.9.0", "0.10.0", "tool.input.enum.narrowed", 1, 1, ["forecast"]),
    ]


def test_breaking_by_version_in_semver_order(con):
    rows = [(r["server_id"], r["version"], r["breaking"], r["proven"]) for r in query(con, "breaking_by_version")]
    assert rows == [("alpha", "1.1.0", 0, 0), ("alpha", "2.0.0", 1, 0), ("beta", "0.10.0", 1, 1)]


def test_severity_totals(con):
    rows = {r["severity"]: r["changes"] for r in query(con, "severity_totals")}
    assert rows == {"DOCUMENTATION": 3, "NON_BREAKING": 1, "BREAKING": 2}


def test_description_drift(con):
    rows = [(r["server_id"], r["entity"], r["rule"], r["verdict"], r["old_text"], r["new_text"])
            for r in query(con, "description_drift")]
    assert rows == [("beta", "forecast", "tool.description.changed", "DOCUMENTATION",
                     '"Weather forecast for a city"', '"Weather forecast for a city."')]


def test_latest_release_breaks(con):
    # alpha's latest (2.0.1) repeats 2.0.0 and broke nothing; beta's latest broke
    rows = [(r["server_id"], r["new_version"]) for r in query(con, "latest_release_breaks")]
    assert rows == [("beta", "0.10.0")]


def test_semver_honesty(con):
    # (capture times here are the files' own: days are tested on the lake below)
    rows = [(r["server_id"], r["old_version"], r["new_version"], r["scheme"], r["declared"], r["bumped"],
             r["grade"], r["honest"], r["next_major"]) for r in query(con, "semver_honesty")]
    assert rows == [
        # optional property added: minor, under a minor bump
        ("alpha", "1.0.0", "1.1.0", "semver", "minor", "minor", "minor", True, "2.0.0"),
        ("alpha", "1.1.0", "2.0.0", "semver", "major", "major", "major", True, "2.0.0"),
        # byte-identical: never diffed, but nothing changed under a patch
        # bump is honest; no major after 2.0.1 was captured
        ("alpha", "2.0.0", "2.0.1", "semver", "patch", "patch", "none", True, None),
        # 0.9 -> 0.10 declares major below 1.0.0 though the minor number moved
        ("beta", "0.9.0", "0.10.0", "initial", "major", "minor", "major", True, "0.10.0"),
    ]
    # a release that is its own next major came 0 days after itself
    assert [r["days_to_next_major"] for r in query(con, "semver_honesty")
            if r["next_major"] == r["new_version"]] == [0, 0]


def _manifest(server_id, tools):
    schemas = {"search": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
               "search+limit": {"type": "object", "required": ["q"],
                                "properties": {"q": {"type": "string"}, "limit": {"type": "integer"}}},
               "delete": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}}
    return json.dumps({"serverInfo": {"name": server_id}, "tools": [
        {"name": t.split("+")[0], "description": t.split("+")[0] + ".", "inputSchema": schemas[t]}
        for t in tools]})


# (server, version, captured on (2025-mm-dd), tools): "search+limit" adds an
# optional property to search (NON_BREAKING: grade minor), a tool gone is
# BREAKING (grade major), the same tools again an identical contract
VERSIONED = [
    ("dated", "2025.1.1", "01-01", ["search", "delete"]),
    ("dated", "2025.2.1", "02-01", ["search"]),
    ("early", "0.0.1", "01-01", ["search"]),
    ("early", "0.0.2", "01-11", ["search+limit"]),
    ("early", "0.0.3", "01-21", ["search+limit"]),
    ("flaky", "1.0.0", "01-01", ["search"]),
    ("flaky", "1.1.0", "02-01", ["search+limit"]),
    ("flaky", "1.1.0", "02-02", ["search", "delete"]),   # a second pass, another contract
    ("plain", "1.0.0", "01-01", ["search", "delete"]),
    ("plain", "1.0.1", "01-05", ["search", "delete"]),
    ("plain", "1.1.0", "01-10", ["search"]),
    ("plain", "2.0.0", "01-31", ["search+limit"]),
    ("switch", "1.0.0", "01-01", ["search", "delete"]),
    ("switch", "1.1.0", "02-01", ["search+limit", "delete"]),
    ("switch", "2025.3.1", "03-01", ["search+limit"]),
]


@pytest.fixture(scope="module")
def versioned(tmp_path_factory):
    lake = Lake(str(tmp_path_factory.mktemp("v") / "lake"))
    store(lake, [capture_row(s, v, _manifest(s, tools), source="test", captured_at=f"2025-{day}T12:00:00Z")
                 for s, v, day, tools in VERSIONED])
    run_diff_stage(lake, Policy(), workers=1)
    return lake.connect(engine_version(), policy_hash(Policy()))


def test_semver_honesty_reads_versions_as_release_steps_do(versioned):
    rows = [(r["server_id"], r["old_version"], r["new_version"], r["scheme"], r["declared"], r["bumped"],
             r["grade"], r["honest"], r["next_major"], r["days_to_next_major"])
            for r in query(versioned, "semver_honesty")]
    assert rows == [
        # a calendar version declares nothing, whatever broke: no honesty,
        # no next major (the number that moved is the month's)
        ("dated", "2025.1.1", "2025.2.1", "calver", "calver", "minor", "major", None, None, None),
        # 0.0.z -> 0.0.z+1 declares major as Cargo reads it: each is its own next major
        ("early", "0.0.1", "0.0.2", "initial", "major", "patch", "minor", True, "0.0.2", 0),
        ("early", "0.0.2", "0.0.3", "initial", "major", "patch", "none", True, "0.0.3", 0),
        # flaky: 1.1.0 was captured with two contracts, so its step is left out
        ("plain", "1.0.0", "1.0.1", "semver", "patch", "patch", "none", True, "2.0.0", 26),  # 01-05 -> 01-31
        ("plain", "1.0.1", "1.1.0", "semver", "minor", "minor", "major", False, "2.0.0", 21),  # under-bumped
        ("plain", "1.1.0", "2.0.0", "semver", "major", "major", "minor", True, "2.0.0", 0),
        # the switch to a calendar version is no declared major bump, so
        # 1.0.0 -> 1.1.0 has no next major
        ("switch", "1.0.0", "1.1.0", "semver", "minor", "minor", "minor", True, None, None),
        ("switch", "1.1.0", "2025.3.1", "calver", "calver", "major", "major", None, None, None),
    ]


def test_pair_queries_flag_what_the_ledger_holds(con):
    params = {"engine_version": engine_version(), "policy_hash": policy_hash(Policy()), "since": None}
    # the module's lake was surveyed with consecutive pairs only
    for name, cached, pending in (("pairs_consecutive", 3, []),
                                  ("pairs_all", 3, [("alpha", "1.0.0", "2.0.0")])):
        rows = con.execute(selected_pairs(name.removeprefix("pairs_")), params).fetchall()
        assert sum(row[-1] for row in rows) == cached
        assert [row[:3] for row in rows if not row[-1]] == pending
