"""What trips a newcomer in the first hour, each fixed and kept fixed: a
re-run of ingest, the survey's terminal summary, plural agreement."""

import json

from tests.conftest import ROOT

CAPTURES = ROOT / "tests" / "fixtures" / "captures"
REFERENCE = ROOT / "data" / "samples" / "reference"


def test_an_ingest_re_run_does_not_report_the_first_runs_errors_again(mcpdelta, tmp_path):
    first = mcpdelta("ingest", CAPTURES, "--lake", "lake", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert first.stdout.splitlines()[0].endswith(": 7 new, 0 already in lake, 1 error")
    assert [line for line in first.stdout.splitlines() if line.startswith("  broken 1.0.0: ")]
    again = mcpdelta("ingest", CAPTURES, "--lake", "lake", cwd=tmp_path)
    assert again.returncode == 0
    assert again.stdout.splitlines() == [
        f"ingested 7 captures from {CAPTURES}: 0 new, 7 already in lake, 0 errors"]


def test_the_survey_prints_a_summary_not_every_breaking_change(mcpdelta, tmp_path):
    """The reference sample's lake holds well over a hundred breaking
    changes; the terminal gets one line per release that broke."""
    assert mcpdelta("ingest", REFERENCE, "--lake", "lake", cwd=tmp_path).returncode == 0
    done = mcpdelta("survey", "--lake", "lake", "--no-crawl", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    summary = json.loads(mcpdelta("survey", "--lake", "lake", "--no-crawl", "--format", "json",
                                  cwd=tmp_path).stdout)
    lines = done.stdout.splitlines()
    assert summary["changes"]["BREAKING"] > 100
    assert len(lines) < 40
    [head] = [line for line in lines if line.startswith("breaking changes: ")]
    assert head.startswith(f"breaking changes: {summary['changes']['BREAKING']} in ")


def test_one_server_is_a_server(mcpdelta, tmp_path):
    (tmp_path / "one" / "solo").mkdir(parents=True)
    for version, tools in (("1.0.0", []), ("1.1.0", [{"name": "echo", "inputSchema": {"type": "object"}}])):
        (tmp_path / "one" / "solo" / f"{version}.json").write_text(json.dumps({"tools": tools}))
    assert mcpdelta("ingest", tmp_path / "one", "--lake", "lake", cwd=tmp_path).returncode == 0
    done = mcpdelta("survey", "--lake", "lake", "--no-crawl", cwd=tmp_path)
    assert done.stdout.splitlines()[0] == ("surveyed 1 server, 2 captures, 1 version pair "
                                           "(1 diffed, 0 cached), 0 errors")
