"""A full disk during ingest and survey: a real tmpfs of a few hundred KB
(mounted for the test; skipped where mounting is not allowed)."""

import os
import shutil
import subprocess

import pytest

from mcpdelta.lake import Lake
from tests.conftest import ROOT

CAPTURES = ROOT / "tests" / "fixtures" / "captures"


@pytest.fixture
def small_disk(tmp_path):
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(mount)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    yield mount
    subprocess.run(["umount", str(mount)], capture_output=True)


def fill(disk):
    """Fill the disk to the last byte (a file of zeros; tmpfs allocates them)."""
    fd = os.open(disk / "filler", os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError:
        pass
    finally:
        os.close(fd)


def parquet_and_temporaries(lake):
    return sorted(str(p) for p in lake.rglob("*") if p.is_file() and p.name != ".lock")


def test_ingest_on_a_full_disk_is_one_line_and_writes_nothing(small_disk, mcpdelta):
    lake = small_disk / "lake"
    lake.mkdir()
    fill(small_disk)
    result = mcpdelta("ingest", CAPTURES, "--lake", lake)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    line, = result.stderr.strip().splitlines()
    assert "no space left" in line and str(lake) in line
    assert parquet_and_temporaries(lake) == []  # no partial or temporary file left
    (small_disk / "filler").unlink()
    # room again: it all goes in (1: the capture of CAPTURES cut short is an error row)
    assert mcpdelta("ingest", CAPTURES, "--lake", lake).returncode == 1


def test_survey_on_a_full_disk_is_one_line_and_counts_nothing_half_written(small_disk, tmp_path, mcpdelta):
    reference = tmp_path / "reference"
    assert mcpdelta("ingest", CAPTURES, "--lake", reference).returncode == 1  # its capture cut short
    lake = small_disk / "lake"
    shutil.copytree(reference, lake)
    assert mcpdelta("survey", "--lake", reference, "--no-crawl", "--workers", "1",
                    "--report", tmp_path / "r0").returncode == 0
    fill(small_disk)
    result = mcpdelta("survey", "--lake", lake, "--no-crawl", "--workers", "1", "--report", tmp_path / "r1")
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    line, = result.stderr.strip().splitlines()
    assert "no space left" in line and str(lake) in line
    assert not [p for p in lake.rglob("*.tmp")]
    assert Lake(str(lake)).connect().execute("SELECT count(*) FROM all_changes").fetchone()[0] == 0
    (small_disk / "filler").unlink()
    assert mcpdelta("survey", "--lake", lake, "--no-crawl", "--workers", "1",
                    "--report", tmp_path / "r2").returncode == 0
    con, ref = Lake(str(lake)).connect(), Lake(str(reference)).connect()
    for table in ("all_changes", "all_pairs"):
        assert con.execute(f"SELECT count(*) FROM {table}").fetchone() == \
            ref.execute(f"SELECT count(*) FROM {table}").fetchone()
