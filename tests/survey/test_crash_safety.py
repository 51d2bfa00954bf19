"""A crash mid-run loses nothing already written and leaves no duplicates."""

import json
import signal
import subprocess
import sys

from mcpdelta.engine.policy import Policy
from mcpdelta.lake import Lake
from mcpdelta.lake.ingest import capture_row, store
from mcpdelta.survey.diffstage import run_diff_stage


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


def test_killed_mid_run_then_rerun_is_complete_without_duplicates(tmp_path):
    """SIGKILL the diff stage after its second batch (one server per batch),
    with work still pending; a re-run completes the ledger exactly once."""
    lake = _synthetic_lake(tmp_path / "lake")
    script = (
        "import os, signal\n"
        "from mcpdelta.lake import Lake\n"
        "from mcpdelta.engine.policy import Policy\n"
        "from mcpdelta.survey.diffstage import run_diff_stage\n"
        "def crash(stats):\n"
        "    if stats['pairs_diffed'] >= 2 * 39:\n"
        "        os.kill(os.getpid(), signal.SIGKILL)\n"
        f"run_diff_stage(Lake({str(tmp_path / 'lake')!r}), Policy(), workers=1, batch_size=1,"
        " on_batch=crash)\n")
    process = subprocess.run([sys.executable, "-c", script], timeout=120)
    assert process.returncode == -signal.SIGKILL
    partial = _ledger(lake)
    expected_pairs = 6 * 39
    assert len(partial) == 2 * 39
    stats = run_diff_stage(lake, Policy(), workers=2, batch_size=1)
    assert stats["pairs_cached"] == len(partial)
    assert stats["pairs_diffed"] == expected_pairs - len(partial)
    ledger = _ledger(lake)
    assert len(ledger) == expected_pairs
    assert all(count == 1 for _, count in ledger)
    con = lake.connect()
    # one change per pair (the property added), none twice
    assert con.execute("SELECT count(*), count(DISTINCT pair_key) FROM changes").fetchall() == [
        (expected_pairs, expected_pairs)]
    assert not list((tmp_path / "lake").rglob("*.tmp"))
