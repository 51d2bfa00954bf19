"""The diff stage writes what ``mcpdelta diff`` reports, pair by pair.

The stage remembers work across a batch (``mcpdelta.engine.remember``):
each schema normalised once, each pair of schemas diffed once, each change
proven once, each value encoded once. Here every pair of releases of the
committed real-world sample goes through the stage and, apart, through the
engine and the witness alone, one pair at a time with nothing remembered;
every change row must be the same, byte for byte.
"""

import json

import pytest

from mcpdelta.engine.manifest import read_manifest
from mcpdelta.engine.policy import Policy
from mcpdelta.engine.result import DiffResult
from mcpdelta.lake import Lake
from mcpdelta.lake.ingest import rows_from_folder, store
from mcpdelta.survey.diffstage import engine_version, policy_hash, run_diff_stage
from mcpdelta.witness import attach_witnesses
from tests.conftest import ROOT

SAMPLE = ROOT / "data" / "samples" / "reference"
COLUMNS = ("rule", "severity", "default_severity", "entity", "path", "old_json", "new_json",
           "message", "witness_json", "witness_note")


@pytest.fixture(scope="module")
def stage(tmp_path_factory):
    lake = Lake(str(tmp_path_factory.mktemp("as-diff") / "lake"))
    store(lake, *rows_from_folder(str(SAMPLE)))
    stats = run_diff_stage(lake, Policy(), mode="all", workers=1)
    assert stats["errors"] == 0
    return lake.connect(engine_version(), policy_hash(Policy()))


def _alone(server, old, new):
    result = DiffResult(read_manifest(str(SAMPLE / server / f"{old}.json")),
                        read_manifest(str(SAMPLE / server / f"{new}.json")), Policy())
    attach_witnesses(result)
    rows = []
    for change in result.changes:
        row = change.as_json()
        rows.append((row["rule"], row["severity"], row["default_severity"], row["entity"], row["path"],
                     json.dumps(change.old, sort_keys=True), json.dumps(change.new, sort_keys=True),
                     row["message"], None if change.witness is None else json.dumps(change.witness),
                     change.witness_note))
    return sorted(rows, key=repr)


def test_every_pair_of_releases_is_written_as_the_engine_reports_it_alone(stage):
    pairs = stage.execute("SELECT server_id, old_version, new_version FROM pairs ORDER BY ALL").fetchall()
    assert len(pairs) >= 150  # every two releases of each server, not only neighbours
    compared = 0
    for server, old, new in pairs:
        stored = stage.execute(f"SELECT {', '.join(COLUMNS)} FROM changes "
                               "WHERE server_id = ? AND old_version = ? AND new_version = ?",
                               [server, old, new]).fetchall()
        assert sorted(stored, key=repr) == _alone(server, old, new), (server, old, new)
        compared += len(stored)
    assert compared >= 1000
