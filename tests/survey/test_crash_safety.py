"""A crash mid-run loses nothing already written and leaves no duplicates."""

import json
import os
import signal
import subprocess
import sys
import time

from pipeline.engine.policy import Policy
from pipeline.lake import Lake
from pipeline.lake.ingest import capture_row, store
from pipeline.survey.diffstage import run_diff_stage


def _synthetic_lake(root, servers=6, versions=40):
    """Each server adds one optional property per release: every pair differs."""
    rows = []
    for s in range(servers):
        for v in range(versions):
            props = {f"p{i}": {"type": "string", "description": f"field {i}"} for i in range(v + 1)}
            manifest = {"tools": [{"name": "t", "inputSchema": {"type": "object", "properties": props}}]}
            rows.append(capture_row(f"server-{s}", f"1.{v}.0", json.dumps(manifest), source="test",
                                    captured_at="2026-01-01T00:00:00Z"))
    lake = Lake(str(root))
    store(lake, rows)
    return lake


def _ledger(lake):
    con = lake.connect()
    return con.execute("SELECT pair_key, count(*) FROM pairs GROUP BY pair_key").fetchall()


def test_orphaned_changes_files_are_removed_before_new_work(tmp_path):
    lake = _synthetic_lake(tmp_path / "lake", servers=1, versions=3)
    lake.append("changes", [{"pair_key": "k", "server_id": "server-0", "rule": "tool.added",
                             "batch_id": "lost"}], "lost")  # a crash before its ledger file
    stale = tmp_path / "lake" / "pairs" / "v1" / ".part-x.parquet.123.tmp"
    stale.parent.mkdir(parents=True, exist_ok=True)
    stale.write_bytes(b"half a file")
    run_diff_stage(lake, Policy(), workers=1)
    con = lake.connect()
    assert con.execute("SELECT count(*) FROM changes WHERE batch_id = 'lost'").fetchall() == [(0,)]
    assert not stale.exists()
    assert con.execute("SELECT count(*) FROM pairs").fetchall() == [(2,)]


def test_killed_mid_batch_then_rerun_is_complete_without_duplicates(tmp_path):
    lake = _synthetic_lake(tmp_path / "lake")
    script = (
        "import sys; from pipeline.lake import Lake; from pipeline.engine.policy import Policy\n"
        "from pipeline.survey.diffstage import run_diff_stage\n"
        f"run_diff_stage(Lake({str(tmp_path / 'lake')!r}), Policy(), workers=1, batch_size=4)\n")
    process = subprocess.Popen([sys.executable, "-c", script], start_new_session=True)
    ledger_dir = tmp_path / "lake" / "pairs"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        if ledger_dir.exists() and sum(1 for _ in ledger_dir.rglob("*.parquet")) >= 3:
            break
        time.sleep(0.01)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    partial = _ledger(lake)
    expected_pairs = 6 * 39
    assert 0 < len(partial) < expected_pairs, "the kill should land mid-run"
    stats = run_diff_stage(lake, Policy(), workers=1)
    assert stats["pairs_cached"] == len(partial)
    ledger = _ledger(lake)
    assert len(ledger) == expected_pairs
    assert all(count == 1 for _, count in ledger)
    con = lake.connect()
    # one change per pair (the property added), none twice
    assert con.execute("SELECT count(*), count(DISTINCT pair_key) FROM changes").fetchall() == [
        (expected_pairs, expected_pairs)]
    assert not list((tmp_path / "lake").rglob("*.tmp"))
