"""Lakes of the earlier layout, where a diff batch wrote its ``changes`` and
``pairs`` as one file per server partition, are read, surveyed and tidied
as they are, beside the batch files written now.

``old_layout_lake/`` was written by mcpdelta before the change
(``mcpdelta ingest captures`` of tests/fixtures/captures, then ``mcpdelta
survey --no-crawl --workers 1``; its ``runs`` file left out): one batch
spanning the servers alpha and beta, so two partition files per table.
"""

import json
import os
import pathlib
import shutil

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from mcpdelta.engine.policy import Policy
from mcpdelta.lake import Lake, partition_value
from mcpdelta.lake.ingest import capture_row, store
from mcpdelta.survey.diffstage import DONE_FILE, run_diff_stage

OLD_LAKE = os.path.join(os.path.dirname(__file__), "old_layout_lake")


@pytest.fixture
def old_lake(tmp_path):
    root = tmp_path / "lake"
    shutil.copytree(OLD_LAKE, root)
    return root


def _partition_files(root, table):
    return sorted((root / table / "v1").glob("server_id=*/*.parquet"))


def _batch_files(root, table):
    return sorted((root / table / "v1").glob("*.parquet"))


def _rows(paths):
    return pa.concat_tables([pq.read_table(p) for p in paths]).to_pylist()


def test_the_fixture_is_of_the_old_layout():
    root = pathlib.Path(OLD_LAKE)
    for table in ("changes", "pairs"):
        assert [p.parent.name for p in _partition_files(root, table)] == ["server_id=alpha",
                                                                           "server_id=beta"]
        assert not _batch_files(root, table)


def test_an_old_layout_lake_is_read_surveyed_and_reported(old_lake, mcpdelta):
    old_pairs = _rows(_partition_files(old_lake, "pairs"))
    old_changes = _rows(_partition_files(old_lake, "changes"))
    con = Lake(str(old_lake)).connect()
    assert sorted(r[0] for r in con.execute("SELECT pair_key FROM all_pairs").fetchall()) == \
        sorted(r["pair_key"] for r in old_pairs)
    assert con.execute("SELECT count(*) FROM all_changes").fetchone()[0] == len(old_changes)
    con.close()

    # another policy than the old batch's: every pair is diffed again, into batch files
    result = mcpdelta("survey", "--lake", old_lake, "--no-crawl", "--workers", "1",
                      "--witness", "never", "--format", "json")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert (summary["pairs"], summary["pairs_diffed"], summary["pairs_cached"]) == (len(old_pairs),
                                                                                   len(old_pairs), 0)
    (ledger,) = _batch_files(old_lake, "pairs")  # one batch: one ledger file for both servers
    assert {r["server_id"] for r in pq.read_table(ledger).to_pylist()} == {"alpha", "beta"}
    assert len(_partition_files(old_lake, "pairs")) == 2  # the old files stay, and count

    con = Lake(str(old_lake)).connect()
    by_batch = dict(con.execute("SELECT batch_id, count(*) FROM all_pairs GROUP BY 1").fetchall())
    assert by_batch[old_pairs[0]["batch_id"]] == len(old_pairs)
    assert sum(by_batch.values()) == 2 * len(old_pairs)
    assert con.execute("SELECT count(*) FROM all_changes WHERE batch_id = ?",
                       [old_changes[0]["batch_id"]]).fetchone()[0] == len(old_changes)
    con.close()
    for command in (("report", "--out", old_lake.parent / "report"), ("drift",)):
        done = mcpdelta(*command, "--lake", old_lake)
        assert done.returncode == 0, done.stderr
        assert "Traceback" not in done.stderr


def test_orphans_of_both_layouts_are_removed_and_committed_files_kept(old_lake):
    lake = Lake(str(old_lake))
    run_diff_stage(lake, Policy(witness="never"), workers=1)  # a committed batch of the new layout
    (new_changes,) = _batch_files(old_lake, "changes")
    # an old batch whose beta ledger file never reached the disk, and a new
    # batch that died before its ledger
    beta_ledger = [p for p in _partition_files(old_lake, "pairs") if p.parent.name == "server_id=beta"]
    beta_ledger[0].unlink()
    lake.append("changes", [{"pair_key": "k", "server_id": "alpha", "rule": "tool.added",
                             "batch_id": "lost"}], "lost")
    assert lake.remove_orphans() == 2
    assert [p.parent.name for p in _partition_files(old_lake, "changes")] == ["server_id=alpha"]
    assert _batch_files(old_lake, "changes") == [new_changes]
    con = lake.connect()
    assert con.execute("SELECT count(*) FROM all_changes WHERE batch_id = 'lost'").fetchone()[0] == 0


def _to_old_layout(root):
    """Rewrite every batch file of changes and pairs as the earlier writer
    laid it out: one file per server partition, named after its batch."""
    for table in ("changes", "pairs"):
        for path in _batch_files(root, table):
            data = pq.read_table(path)
            for server_id in sorted(set(data["server_id"].to_pylist())):
                folder = path.parent / f"server_id={partition_value(server_id)}"
                folder.mkdir(exist_ok=True)
                rows = [r for r in data.to_pylist() if r["server_id"] == server_id]
                pq.write_table(pa.Table.from_pylist(rows, data.schema), folder / path.name)
            path.unlink()


def _capture(server, version, props):
    manifest = {"tools": [{"name": "t", "inputSchema": {"type": "object", "properties": {
        p: {"type": "string"} for p in props}}}]}
    return capture_row(server, version, json.dumps(manifest), source="test",
                       captured_at="2026-01-01T00:00:00Z")


def test_an_old_layout_ledger_of_this_engine_counts_as_done(tmp_path):
    lake = Lake(str(tmp_path / "lake"))
    store(lake, [_capture(s, f"1.{v}.0", [f"p{i}" for i in range(v + 1)])
                 for s in ("a", "b/c") for v in range(3)])
    first = run_diff_stage(lake, Policy(), workers=1)
    assert first["pairs_diffed"] == 4
    _to_old_layout(tmp_path / "lake")
    os.remove(os.path.join(lake.base, DONE_FILE))  # the full check, through DuckDB
    assert len(_partition_files(tmp_path / "lake", "pairs")) == 2
    assert lake.read_servers("pairs", ["b/c"]).num_rows == 2
    again = run_diff_stage(lake, Policy(), workers=1)
    assert (again["pairs_cached"], again["pairs_diffed"]) == (4, 0)

    store(lake, [_capture("b/c", "1.3.0", ["p0"])])
    third = run_diff_stage(lake, Policy(), workers=1)
    assert (third["pairs_cached"], third["pairs_diffed"]) == (4, 1)
    assert len(_batch_files(tmp_path / "lake", "pairs")) == 1
    con = lake.connect()
    keys = con.execute("SELECT pair_key, count(*) FROM pairs GROUP BY 1").fetchall()
    assert len(keys) == 5 and all(n == 1 for _, n in keys)
    # the new pair's changes (two properties removed) sits beside the old ones
    assert con.execute("SELECT count(*) FROM changes WHERE server_id = 'b/c' "
                       "AND new_version = '1.3.0'").fetchone()[0] == 2
    # read_servers takes both layouts, and only the servers asked for
    mixed = lake.read_servers("changes", ["b/c"], ["server_id", "new_version"]).to_pylist()
    assert {r["server_id"] for r in mixed} == {"b/c"}
    assert sorted({r["new_version"] for r in mixed}) == ["1.1.0", "1.2.0", "1.3.0"]
