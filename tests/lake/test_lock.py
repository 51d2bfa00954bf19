"""One writer per lake: real ``mcpdelta`` processes against one lake."""

import os
import shutil
import socket
import subprocess
import sys
import threading
import time

import pytest

from mcpdelta.lake import Lake
from tests.conftest import ROOT

CAPTURES = ROOT / "tests" / "fixtures" / "captures"
SCRIPT = str(os.path.join(os.path.dirname(sys.executable), "mcpdelta"))


def counts(root):
    con = Lake(str(root)).connect()
    return {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
            for t in ("manifests", "tools", "all_changes", "all_pairs", "attempts")}


@pytest.fixture
def ingested(tmp_path, mcpdelta):
    lake = tmp_path / "lake"
    assert mcpdelta("ingest", CAPTURES, "--lake", lake).returncode == 1  # its capture cut short: an error row
    return lake


def survey_cmd(lake, tmp_path, tag, *extra):
    return [SCRIPT, "survey", "--lake", str(lake), "--no-crawl", "--workers", "1",
            "--report", str(tmp_path / f"report-{tag}"), *extra]


def test_a_second_writer_fails_at_once_naming_the_holder(ingested, tmp_path, mcpdelta):
    with Lake(str(ingested)).writing():
        started = time.monotonic()
        result = mcpdelta(*survey_cmd(ingested, tmp_path, "x")[1:])
        elapsed = time.monotonic() - started
        ingest = mcpdelta("ingest", CAPTURES, "--lake", ingested)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr
    assert f"pid {os.getpid()} on {socket.gethostname()}" in lines[0]
    assert "--wait" in lines[0]
    assert elapsed < 30  # it did not wait
    assert ingest.returncode == 2 and f"pid {os.getpid()}" in ingest.stderr
    assert counts(ingested)["all_changes"] == 0  # nothing was written beside the holder


def test_wait_waits_for_the_holder_then_runs(ingested, tmp_path):
    lake = Lake(str(ingested))
    holding = threading.Event()
    release = threading.Event()

    def hold():
        with lake.writing():
            holding.set()
            release.wait(30)

    holder = threading.Thread(target=hold)
    holder.start()
    holding.wait(10)
    proc = subprocess.Popen(survey_cmd(ingested, tmp_path, "w", "--wait", "--format", "json"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(3)
    assert proc.poll() is None  # still waiting for the lock
    release.set()
    holder.join()
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert "waiting for the lake" in err
    assert counts(ingested)["all_pairs"] > 0


@pytest.mark.parametrize("wait", [True, False], ids=["wait", "no-wait"])
def test_two_concurrent_surveys_never_double_the_lake(ingested, tmp_path, mcpdelta, wait):
    serial = tmp_path / "serial"
    shutil.copytree(ingested, serial)
    assert mcpdelta(*survey_cmd(serial, tmp_path, "s")[1:]).returncode == 0
    expected = counts(serial)
    assert expected["all_changes"] > 0

    extra = ["--wait"] if wait else []
    procs = [subprocess.Popen(survey_cmd(ingested, tmp_path, i, *extra), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for i in range(2)]
    results = [(p.wait(timeout=180), p.stderr.read()) for p in procs]
    codes = sorted(code for code, _ in results)
    for code, err in results:
        assert "Traceback" not in err
        if code == 2:
            assert "another mcpdelta is writing this lake" in err and len(err.strip().splitlines()) == 1
    assert codes == [0, 0] if wait else codes in ([0, 0], [0, 2])
    assert counts(ingested) == expected  # no doubling: the same rows as one survey
