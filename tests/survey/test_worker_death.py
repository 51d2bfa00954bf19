"""A survey killed mid-diff leaves no pool worker behind (real processes,
real SIGKILL), and a re-run diffs every pair exactly once."""

import json
import os
import pathlib
import signal
import subprocess
import sys
import time

from mcpdelta.engine.policy import Policy
from mcpdelta.lake import Lake
from mcpdelta.lake.ingest import capture_row, store
from mcpdelta.survey.diffstage import run_diff_stage

MCPDELTA = pathlib.Path(sys.executable).with_name("mcpdelta")


def _lake(root, servers=24, versions=80):
    """Every release removes one property of a closed schema and adds one:
    each pair is a BREAKING change the diff stage witnesses. With three
    workers (the survey and two pool workers), three batches of whole
    servers."""
    rows = []
    for s in range(servers):
        for v in range(versions):
            props = {f"p{i}": {"type": "string", "maxLength": 10 + i} for i in range(v, v + 60)}
            schema = {"type": "object", "properties": props, "additionalProperties": False}
            manifest = {"tools": [{"name": "t", "inputSchema": schema}]}
            rows.append(capture_row(f"server-{s}", f"1.{v}.0", json.dumps(manifest), source="test",
                                    captured_at="2026-01-01T00:00:00Z"))
    lake = Lake(str(root))
    store(lake, rows)
    return lake


def _children(pid):
    out = []
    for entry in pathlib.Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[1]) == pid:
            out.append(int(entry.name))
    return out


def _threads(pid):
    try:
        status = pathlib.Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("Threads:")))


def _alive(pid):
    try:
        stat = pathlib.Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2:].split()[0] != "Z"  # a zombie has exited


def test_sigkill_mid_diff_leaves_no_worker_and_a_rerun_has_no_duplicates(tmp_path):
    lake = _lake(tmp_path / "lake")
    survey = subprocess.Popen([str(MCPDELTA), "survey", "--no-crawl", "--lake", str(tmp_path / "lake"),
                               "--workers", "3", "--report", str(tmp_path / "report")],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        workers = []
        while time.monotonic() < deadline and survey.poll() is None:
            workers = [p for p in _children(survey.pid)
                       if b"multiprocessing" in pathlib.Path(f"/proc/{p}/cmdline").read_bytes()
                       and b"resource_tracker" not in pathlib.Path(f"/proc/{p}/cmdline").read_bytes()]
            if len(workers) >= 2:
                break
            time.sleep(0.05)
        assert survey.poll() is None, "the survey ended before its diff pool started"
        assert len(workers) >= 2, "no diff pool workers seen"
        # past start-up: the initializer has run once a worker has a second
        # thread (its parent watchdog); only then is it protected
        while time.monotonic() < deadline and survey.poll() is None and not all(
                _threads(p) >= 2 for p in workers):
            time.sleep(0.05)
        time.sleep(0.3)  # into the diff
        helpers = _children(survey.pid)  # the workers and the resource tracker
        os.kill(survey.pid, signal.SIGKILL)
        survey.wait(timeout=10)
        time.sleep(1.0)
        left = [p for p in helpers if _alive(p)]
        assert left == [], f"processes alive a second after the survey was killed: {left}"
    finally:
        if survey.poll() is None:
            survey.kill()
    con = lake.connect()
    before = con.execute("SELECT count(*) FROM pairs").fetchall()[0][0] if (
        tmp_path / "lake" / "pairs").exists() else 0
    con.close()
    expected = 24 * 79
    assert before < expected, "the diff stage had finished: nothing was killed mid-diff"
    run_diff_stage(lake, Policy(), workers=2)
    con = lake.connect()
    assert con.execute("SELECT count(*), count(DISTINCT pair_key) FROM pairs").fetchall() == [
        (expected, expected)]
    assert con.execute("SELECT count(DISTINCT pair_key) = count(DISTINCT pair_key || rule || path) "
                       "FROM changes WHERE rule = 'tool.input.property.removed'").fetchall() == [(True,)]
