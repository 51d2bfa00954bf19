"""A broken lake is one line naming the file, exit 2; nothing half-written."""

import re
import shutil
import subprocess

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from mcpdelta.lake import Lake
from tests.conftest import ROOT

CAPTURES = ROOT / "tests" / "fixtures" / "captures"
READERS = (("survey", "--no-crawl"), ("report",), ("drift",))


@pytest.fixture(scope="module")
def surveyed(tmp_path_factory):
    """A lake ingested and surveyed once (copied by each test that breaks it)."""
    from tests.conftest import _console_script

    root = tmp_path_factory.mktemp("surveyed") / "lake"
    for args in (("ingest", CAPTURES, "--lake", root), ("survey", "--lake", root, "--no-crawl", "--workers", "1")):
        done = subprocess.run([_console_script(), *map(str, args)], capture_output=True, text=True, timeout=120)
        # ingest: 1, for the capture of CAPTURES that is cut short (its error row)
        assert done.returncode == (1 if args[0] == "ingest" else 0), done.stderr
    return root


@pytest.fixture
def lake(surveyed, tmp_path):
    copy = tmp_path / "lake"
    shutil.copytree(surveyed, copy)
    return copy


def one_line(result):
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def a_manifests_file(lake):
    folder = lake / "manifests" / "v1"
    return sorted(folder.glob("server_id=*/*.parquet"))[0]


def truncate(path):
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


@pytest.mark.parametrize("damage,problem", [
    (truncate, "not a readable Parquet file"),
    (lambda p: p.write_bytes(b""), "empty"),
    (lambda p: p.write_bytes(b"this is not parquet at all" * 40), "not a readable Parquet file"),
], ids=["truncated", "empty", "junk"])
@pytest.mark.parametrize("command", READERS, ids=[c[0] for c in READERS])
def test_a_damaged_file_is_one_line_naming_it(lake, mcpdelta, tmp_path, damage, problem, command):
    path = a_manifests_file(lake)
    damage(path)
    out = {"survey": ["--report", tmp_path / "r"], "report": ["--out", tmp_path / "r"]}.get(command[0], [])
    result = mcpdelta(*command, "--lake", lake, *out)
    assert result.returncode == 2
    line = one_line(result)
    assert str(path) in line and problem in line


def test_a_damaged_file_under_ingest_is_one_line(lake, mcpdelta):
    path = a_manifests_file(lake)
    truncate(path)
    result = mcpdelta("ingest", CAPTURES, "--lake", lake)
    assert result.returncode == 2 and str(path) in one_line(result)


def test_a_file_of_another_schema_is_never_read_as_rows(lake, mcpdelta):
    before = Lake(str(lake)).connect().execute("SELECT count(DISTINCT server_id) FROM manifests").fetchone()[0]
    foreign = lake / "manifests" / "v1" / "server_id=intruder" / "part-x.parquet"
    foreign.parent.mkdir()
    pq.write_table(pa.table({"server_id": ["a", "b"], "colour": ["red", "blue"]}), foreign)
    result = mcpdelta("survey", "--lake", lake, "--no-crawl", "--format", "json")
    assert result.returncode == 2
    line = one_line(result)
    assert str(foreign) in line and "'colour'" in line and "manifests/v1" in line
    foreign.unlink()
    after = Lake(str(lake)).connect().execute("SELECT count(DISTINCT server_id) FROM manifests").fetchone()[0]
    assert after == before


def test_a_same_named_file_missing_columns_is_refused(lake):
    foreign = lake / "manifests" / "v1" / "server_id=intruder" / "part-y.parquet"
    foreign.parent.mkdir()
    pq.write_table(pa.table({"server_id": ["a"], "version": ["1"]}), foreign)
    from mcpdelta.errors import InputError

    with pytest.raises(InputError, match="lacks the column"):
        Lake(str(lake)).connect()


def test_uncommitted_changes_are_not_counted(lake, mcpdelta):
    """A crash between a batch's changes file and its ledger file: readers
    see only committed batches, before any survey tidies up."""
    def breaking_in_report(tag):
        out = lake.parent / tag
        result = mcpdelta("report", "--lake", lake, "--out", out)
        assert result.returncode == 0, result.stderr
        return int(re.search(r"\| `BREAKING` \| (\d+) \|", (out / "survey.md").read_text()).group(1))

    assert Lake(str(lake)).connect().execute("SELECT count(*) FROM all_changes").fetchone()[0] > 0
    assert breaking_in_report("before") > 0
    ledger = sorted((lake / "pairs" / "v1").glob("*.parquet"))
    assert ledger  # a batch's ledger is one file in the table's folder
    for path in ledger:
        path.unlink()  # as if every batch had died before its ledger write
    assert Lake(str(lake)).connect().execute("SELECT count(*) FROM all_changes").fetchone()[0] == 0
    assert breaking_in_report("after") == 0
    assert sorted((lake / "changes" / "v1").glob("*.parquet"))  # still on disk


@pytest.mark.parametrize("command", [("survey", "--no-crawl"), ("report",), ("drift",), ("ingest", CAPTURES)],
                         ids=["survey", "report", "drift", "ingest"])
def test_a_lake_that_is_a_file(tmp_path, mcpdelta, command):
    path = tmp_path / "lake"
    path.write_text("not a folder")
    result = mcpdelta(*command, "--lake", path)
    assert result.returncode == 2
    assert str(path) in one_line(result) and "file" in one_line(result)


def test_survey_no_crawl_on_a_missing_lake(tmp_path, mcpdelta):
    result = mcpdelta("survey", "--lake", tmp_path / "nowhere", "--no-crawl")
    assert result.returncode == 2 and "no such lake" in one_line(result)
    assert not (tmp_path / "nowhere").exists()  # nothing created


@pytest.mark.parametrize("uri", ["gs://bucket/lake", "hdfs://host/lake", "ftp://x/y"])
def test_an_unknown_uri_scheme_is_refused(tmp_path, mcpdelta, uri):
    for command in (("ingest", CAPTURES), ("survey", "--no-crawl"), ("report",), ("drift",)):
        result = mcpdelta(*command, "--lake", uri)
        assert result.returncode == 2
        line = one_line(result)
        assert uri in line and "unsupported lake URI scheme" in line


def test_a_file_uri_lake_is_the_local_folder_and_needs_no_extension(tmp_path, mcpdelta):
    lake = tmp_path / "lake"
    uri = f"file://{lake}"
    assert mcpdelta("ingest", CAPTURES, "--lake", uri).returncode == 1  # its capture cut short: an error row
    # no network, no extension directory: DuckDB must never be asked to install httpfs
    env = {"HOME": str(tmp_path / "home"), "http_proxy": "http://127.0.0.1:9", "https_proxy": "http://127.0.0.1:9"}
    result = mcpdelta("survey", "--lake", uri, "--no-crawl", "--format", "json", env=env)
    assert result.returncode == 0, result.stderr
    assert not (tmp_path / "home" / ".duckdb").exists()
    assert Lake(str(lake)).connect().execute("SELECT count(*) FROM manifests").fetchone()[0] > 0


def test_read_only_lake_and_report_folder(lake, tmp_path, mcpdelta):
    """A read-only bind: writes fail with EROFS even for root."""
    ro = tmp_path / "ro"
    ro.mkdir()
    if subprocess.run(["mount", "--bind", str(lake), str(ro)], capture_output=True).returncode != 0:
        pytest.skip("cannot bind-mount here")
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(ro)], check=True, capture_output=True)
        # the lock file cannot be made: a line, exit 2, nothing written
        result = mcpdelta("ingest", CAPTURES, "--lake", ro)
        assert result.returncode == 2 and "read-only" in one_line(result) and str(ro) in one_line(result)
        # a report folder on a read-only file system: report reads the lake, fails to write
        result = mcpdelta("report", "--lake", lake, "--out", ro / "report")
        assert result.returncode == 2 and str(ro / "report") in one_line(result)
        assert "read-only" in one_line(result)
    finally:
        subprocess.run(["umount", str(ro)], capture_output=True)
