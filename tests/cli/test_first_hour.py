"""What trips a newcomer in the first hour, each fixed and kept fixed: a
re-run of ingest, the survey's terminal summary, plural agreement."""

import json
import re

from tests.conftest import ROOT

CAPTURES = ROOT / "tests" / "fixtures" / "captures"
REFERENCE = ROOT / "data" / "samples" / "reference"


def test_an_ingest_re_run_does_not_report_the_first_runs_errors_again(mcpdelta, tmp_path):
    first = mcpdelta("ingest", CAPTURES, "--lake", "lake", cwd=tmp_path)
    assert first.returncode == 1, first.stderr  # its error row fails the run
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
    # the rule frequencies: the first few, then how many more the report lists
    import duckdb

    kinds = duckdb.sql(f"SELECT count(*) FROM (SELECT DISTINCT rule, severity FROM "
                       f"read_parquet('{tmp_path}/lake/changes/**/*.parquet'))").fetchall()[0][0]
    listed = lines[lines.index("rule frequencies:") + 1:]
    shown = [line for line in listed if re.match(r"^ +[0-9]+  ", line)]
    assert 0 < len(shown) < kinds
    assert f"  +{kinds - len(shown)} more rules (every rule: the report)" in listed


def test_one_server_is_a_server(mcpdelta, tmp_path):
    (tmp_path / "one" / "solo").mkdir(parents=True)
    for version, tools in (("1.0.0", []), ("1.1.0", [{"name": "echo", "inputSchema": {"type": "object"}}])):
        (tmp_path / "one" / "solo" / f"{version}.json").write_text(json.dumps({"tools": tools}))
    assert mcpdelta("ingest", tmp_path / "one", "--lake", "lake", cwd=tmp_path).returncode == 0
    done = mcpdelta("survey", "--lake", "lake", "--no-crawl", cwd=tmp_path)
    assert done.stdout.splitlines()[0] == ("surveyed 1 server, 2 captures, 1 version pair "
                                           "(1 diffed, 0 cached), 0 errors")


def test_the_readmes_lockfile_example_run_where_it_says_leaves_the_example_as_committed(tmp_path):
    """Every command of the lockfile walk-through (docs/ci.md), run in (a copy
    of) data/examples/notes as it says: exit codes as its comments say, and
    no file of the example written, replaced or added."""
    import os
    import re
    import shlex
    import shutil
    import subprocess

    from tests.conftest import _console_script

    section = (ROOT / "docs" / "ci.md").read_text().split("## Pin contracts", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
    assert block.startswith("cd data/examples/notes\n")
    folder = tmp_path / "notes"
    shutil.copytree(ROOT / "data" / "examples" / "notes", folder)

    def state():
        return {p.name: (p.stat().st_ino, p.stat().st_mtime_ns, p.read_bytes()) for p in folder.iterdir()}

    before = state()
    lines = block.splitlines()
    ran = []
    for i, line in enumerate(lines[1:], 1):
        if not line.startswith("mcpdelta "):
            continue
        command = shlex.split(line.split("#", 1)[0])
        done = subprocess.run([_console_script(), *command[1:]], cwd=folder, capture_output=True, text=True,
                              timeout=120, env={**os.environ, "HOME": str(tmp_path)})
        said = re.search(r"# exit (\d)", lines[i + 1]) if i + 1 < len(lines) else None
        assert done.returncode == (int(said.group(1)) if said else 0), (line, done.stderr)
        ran.append(command[1])
    assert ran == ["digest", "lock", "verify-lock", "lint-bump"]
    assert state() == before
