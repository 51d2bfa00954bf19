"""The lake, ingest, the batch diff stage and `mcpdelta survey --no-crawl`,
on real Parquet files queried by real DuckDB."""

import json
import os
import shutil

import pytest

from mcpdelta.engine.policy import Policy
from mcpdelta.lake import Lake
from mcpdelta.lake.ingest import rows_from_folder, store, version_key
from mcpdelta.survey.diffstage import engine_version, policy_hash, run_diff_stage
from tests.conftest import ROOT

CAPTURES = ROOT / "tests" / "fixtures" / "captures"


def parquet_files(lake_dir):
    return sorted(str(p.relative_to(lake_dir)) for p in lake_dir.rglob("*.parquet"))


@pytest.fixture
def lake_dir(tmp_path):
    return tmp_path / "lake"


@pytest.fixture
def ingested(lake_dir, mcpdelta):
    result = mcpdelta("ingest", CAPTURES, "--lake", lake_dir)
    assert result.returncode == 1, result.stderr  # its capture cut short: an error row
    return lake_dir


def test_version_key_orders_semver_then_names():
    versions = ["0.10.0", "0.9.0", "1.0.0", "1.0.0-rc.1", "2025.4.25", "0.6.0", "nightly", "v1.2"]
    ordered = sorted(versions, key=version_key)
    assert ordered == ["0.6.0", "0.9.0", "0.10.0", "1.0.0-rc.1", "1.0.0", "v1.2", "2025.4.25", "nightly"]


def test_ingest_stores_every_capture_and_an_error_row(ingested, mcpdelta):
    con = Lake(str(ingested)).connect()
    rows = con.execute("SELECT server_id, version, ok, error_kind FROM manifests "
                       "ORDER BY server_id, version_key").fetchall()
    assert rows == [
        ("alpha", "1.0.0", True, None), ("alpha", "1.1.0", True, None),
        ("alpha", "2.0.0", True, None), ("alpha", "2.0.1", True, None),
        ("beta", "0.9.0", True, None), ("beta", "0.10.0", True, None),
        ("broken", "1.0.0", False, "invalid_manifest"),
    ]
    error = con.execute("SELECT error FROM manifests WHERE NOT ok").fetchone()[0]
    assert "1.0.0.json" in error and "invalid JSON" in error
    # identical contracts share a digest
    digests = dict(con.execute("SELECT version, manifest_digest FROM manifests WHERE server_id = 'alpha'").fetchall())
    assert digests["2.0.0"] == digests["2.0.1"] != digests["1.1.0"]


def test_ingest_twice_adds_nothing(ingested, mcpdelta):
    before = parquet_files(ingested)
    result = mcpdelta("ingest", CAPTURES, "--lake", ingested)
    assert result.returncode == 0
    assert "0 new" in result.stdout
    assert parquet_files(ingested) == before


def test_ingest_of_a_missing_folder_is_one_line_exit_2(mcpdelta, tmp_path):
    result = mcpdelta("ingest", tmp_path / "nope", "--lake", tmp_path / "lake")
    assert result.returncode == 2
    assert "nope: no such folder" in result.stderr and "Traceback" not in result.stderr


def test_survey_no_crawl_json_summary(ingested, mcpdelta, tmp_path):
    result = mcpdelta("survey", "--lake", ingested, "--no-crawl", "--format", "json",
                      "--report", tmp_path / "report")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["servers"] == 3 and summary["captures"] == 7
    # alpha 1.0.0->1.1.0, 1.1.0->2.0.0 (2.0.0->2.0.1 is identical); beta 0.9.0->0.10.0
    assert summary["pairs"] == 3 and summary["pairs_diffed"] == 3 and summary["pairs_cached"] == 0
    assert summary["changes"] == {"BREAKING": 2, "POTENTIALLY_BREAKING": 0, "NON_BREAKING": 1,
                                  "DOCUMENTATION": 3, "suppressed": 0}
    assert set(summary["timings"]) == {"crawl_s", "diff_s", "judge_s", "report_s", "total_s"}
    assert summary["timings"]["crawl_s"] == 0
    report = tmp_path / "report" / "survey.html"
    assert summary["report"] == str(report)
    page = report.read_text()
    assert page.count("<svg") == 6  # every plot: the page `mcpdelta report` writes
    assert "tool.removed" in page and "tool.input.enum.narrowed" in page
    assert "tool.removed" in (tmp_path / "report" / "survey.md").read_text()


def test_second_survey_does_no_diff_work_and_writes_no_rows(ingested, mcpdelta, tmp_path):
    first = mcpdelta("survey", "--lake", ingested, "--no-crawl", "--format", "json", "--report", tmp_path / "r")
    assert json.loads(first.stdout)["pairs_diffed"] == 3
    data_files = [f for f in parquet_files(ingested) if not f.startswith("runs/")]
    second = json.loads(mcpdelta("survey", "--lake", ingested, "--no-crawl", "--format", "json",
                                 "--report", tmp_path / "r").stdout)
    assert second["pairs_diffed"] == 0 and second["pairs_cached"] == 3
    assert second["changes"]["BREAKING"] == 2
    assert [f for f in parquet_files(ingested) if not f.startswith("runs/")] == data_files


def test_second_survey_draws_no_page_again_unless_its_facts_or_the_page_moved(ingested, mcpdelta, tmp_path):
    report = tmp_path / "r"
    mcpdelta("survey", "--lake", ingested, "--no-crawl", "--report", report)
    page = report / "survey.html"
    first = page.read_bytes()
    os.utime(page, (1_000_000, 1_000_000))  # a page written again gets the time of writing
    mcpdelta("survey", "--lake", ingested, "--no-crawl", "--report", report)
    assert page.stat().st_mtime == 1_000_000 and page.read_bytes() == first
    page.write_text("edited by hand", encoding="utf-8")  # a page not as written is drawn again
    mcpdelta("survey", "--lake", ingested, "--no-crawl", "--report", report)
    assert page.read_bytes() == first
    os.utime(page, (1_000_000, 1_000_000))
    # other facts (a rule's severity overridden): both files are drawn again
    mcpdelta("survey", "--lake", ingested, "--no-crawl", "--report", report,
             "--severity-override", "tool.removed=NON_BREAKING")
    assert page.stat().st_mtime != 1_000_000 and page.read_bytes() != first


def test_a_new_policy_diffs_again(ingested, mcpdelta, tmp_path):
    mcpdelta("survey", "--lake", ingested, "--no-crawl", "--report", tmp_path / "r")
    result = mcpdelta("survey", "--lake", ingested, "--no-crawl", "--format", "json", "--report",
                      tmp_path / "r", "--severity-override", "tool.removed=NON_BREAKING")
    summary = json.loads(result.stdout)
    assert summary["pairs_diffed"] == 3
    assert summary["changes"]["BREAKING"] == 1 and summary["changes"]["NON_BREAKING"] == 2


def test_pairs_all_diffs_every_earlier_release_against_every_later_one(ingested, mcpdelta, tmp_path):
    summary = json.loads(mcpdelta("survey", "--lake", ingested, "--no-crawl", "--pairs", "all",
                                  "--format", "json", "--report", tmp_path / "r").stdout)
    # alpha: 1.0->1.1, 1.0->2.0, 1.1->2.0 (2.0.1 repeats 2.0.0's contract); beta: 1
    assert summary["pairs"] == 4


def test_text_output_summarises_breaking_releases_and_names_the_report_last(ingested, mcpdelta, tmp_path):
    result = mcpdelta("survey", "--lake", ingested, "--no-crawl", "--report", tmp_path / "r")
    lines = result.stdout.strip().splitlines()
    # one line per release that broke, with its rules (as the fixtures' changelog says);
    # every change is in the report, not on the terminal
    assert "breaking changes: 2 in 2 releases of 2 servers, most first:" in lines
    assert "  alpha 1.1.0 -> 2.0.0: 1 (tool.removed 1)" in lines
    assert "  beta 0.9.0 -> 0.10.0: 1 (tool.input.enum.narrowed 1)" in lines
    assert not [line for line in lines if "/tools/" in line]
    assert lines[-1] == f"report: {tmp_path / 'r' / 'survey.html'}"


def test_changes_rows_carry_every_field_of_a_change(ingested):
    lake = Lake(str(ingested))
    run_diff_stage(lake, Policy(), workers=1)
    con = lake.connect()
    row = con.execute("SELECT * FROM changes WHERE rule = 'tool.removed'").fetchone()
    columns = [d[0] for d in con.description]
    change = dict(zip(columns, row))
    assert change["server_id"] == "alpha" and change["entity"] == "delete_note"
    assert change["old_version"] == "1.1.0" and change["new_version"] == "2.0.0"
    assert change["path"] == "/tools/delete_note" and change["severity"] == "BREAKING"
    assert json.loads(change["old_json"])["name"] == "delete_note"
    assert change["engine_version"] == engine_version()
    assert change["policy_hash"] == policy_hash(Policy())


def _rewrite_behind_the_lakes_back(lake, table, edit):
    """Every row of TABLE read, ``edit(row)`` applied to each, and the table
    written again as one file, as another program might."""
    con = lake.connect()
    rows = [dict(zip([d[0] for d in con.description], r))
            for r in con.execute(f"SELECT * FROM {table}").fetchall()]
    for row in rows:
        edit(row)
    shutil.rmtree(os.path.join(lake.base, table))
    lake.append(table, rows, "rewritten")


def test_an_unreadable_pair_is_an_error_row_and_the_rest_carries_on(tmp_path):
    folder = tmp_path / "captures"
    shutil.copytree(CAPTURES / "beta", folder / "beta")
    os.makedirs(folder / "gamma")
    (folder / "gamma" / "1.0.0.json").write_text('{"tools": []}')
    (folder / "gamma" / "2.0.0.json").write_text('{"tools": [{"name": "a"}]}')
    lake = Lake(str(tmp_path / "lake"))
    store(lake, *rows_from_folder(str(folder)))
    # damage one stored capture behind the lake's back (another tool wrote it)
    def damage(row):
        if row["server_id"] == "gamma" and row["version"] == "2.0.0":
            row["surface_json"] = "{not json"
    _rewrite_behind_the_lakes_back(lake, "manifests", damage)
    stats = run_diff_stage(lake, Policy(), workers=1)
    assert stats["pairs_diffed"] == 2 and stats["errors"] == 1
    errors = lake.connect().execute("SELECT server_id, error FROM pairs WHERE error IS NOT NULL").fetchall()
    assert errors[0][0] == "gamma"
    assert errors[0][1].startswith("gamma 2.0.0: stored manifest is not valid JSON")
    # the other server's pair was diffed as usual
    assert lake.connect().execute(
        "SELECT count(*) FROM changes WHERE server_id = 'beta'").fetchall() == [(2,)]


def test_a_stored_tool_that_is_not_the_tool_its_row_names_is_an_error_row(tmp_path):
    folder = tmp_path / "captures"
    os.makedirs(folder / "gamma")
    (folder / "gamma" / "1.0.0.json").write_text('{"tools": [{"name": "a"}, {"name": "b"}]}')
    (folder / "gamma" / "2.0.0.json").write_text(
        '{"tools": [{"name": "a", "description": "x"}, {"name": "b", "description": "y"}]}')
    lake = Lake(str(tmp_path / "lake"))
    store(lake, *rows_from_folder(str(folder)))
    # another tool rewrote one stored tool under its neighbour's name
    def rename(row):
        if row["name"] == "b" and '"description"' in row["tool_json"]:
            row["tool_json"] = json.dumps({"name": "a", "description": "y"})
    _rewrite_behind_the_lakes_back(lake, "tools", rename)
    stats = run_diff_stage(lake, Policy(), workers=1)
    assert stats["pairs_diffed"] == 1 and stats["errors"] == 1
    errors = lake.connect().execute("SELECT error FROM pairs").fetchall()
    assert errors == [("gamma 2.0.0: the stored tool 'b' is named 'a'",)]


def test_version_key_orders_prereleases_by_semver_precedence():
    versions = ["1.2.0", "1.2.0-rc.10", "1.2.0-rc.2", "1.2.0-beta", "1.2.0-alpha.1", "1.2.0-alpha"]
    assert sorted(versions, key=version_key) == [
        "1.2.0-alpha", "1.2.0-alpha.1", "1.2.0-beta", "1.2.0-rc.2", "1.2.0-rc.10", "1.2.0"]
