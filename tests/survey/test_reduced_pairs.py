"""The diff stage diffs reduced manifests (the surfaces plus only the tools
whose whole-tool hash moved) read back from the lake's Parquet. Its output
must be the engine's on the whole captures, byte for byte: every change of
every pair of every committed capture series under data/, in order, its
witness included (a budget counts candidates, so even a witness search a
budget cut short ends the same way)."""

import json
import pathlib

import pytest

from mcpdelta.engine.manifest import DEFAULT_MAX_BYTES, parse_manifest
from mcpdelta.engine.policy import Policy
from mcpdelta.engine.result import DiffResult
from mcpdelta.lake import Lake
from mcpdelta.lake.ingest import gunzip, rows_from_folder, store
from mcpdelta.survey.diffstage import run_diff_stage
from mcpdelta.witness import attach_witnesses

DATA = pathlib.Path(__file__).resolve().parents[2] / "data"
SERIES = {"survey": DATA / "survey" / "captures", "reference": DATA / "samples" / "reference"}
SLOW_SERIES = {"ecosystem": DATA / "ecosystem" / "captures"}
COLUMNS = ("rule", "severity", "default_severity", "entity", "path", "old_json", "new_json",
           "message", "note", "suppressed", "suppressed_reason", "advisory_json", "witness_json",
           "witness_note")


def _read(path):
    data = path.read_bytes()
    if path.name.endswith(".gz"):
        data = gunzip(data, str(path), DEFAULT_MAX_BYTES)
    return parse_manifest(data, str(path))


def _full(path_of, pair):
    """The change rows the CLI's engine gives on the two whole captures."""
    old = _read(path_of[(pair["server_id"], pair["old_version"])])
    new = _read(path_of[(pair["server_id"], pair["new_version"])])
    result = DiffResult(old, new, Policy())
    attach_witnesses(result, min_severity="BREAKING")
    rows = []
    for change in result.changes:
        doc = change.as_json()
        rows.append((doc["rule"], doc["severity"], doc["default_severity"], doc["entity"],
                     doc["path"], json.dumps(doc["old"], sort_keys=True),
                     json.dumps(doc["new"], sort_keys=True), doc["message"], doc["note"],
                     doc["suppressed"], doc["suppressed_reason"], json.dumps(doc["advisory"]),
                     None if doc["witness"] is None else json.dumps(doc["witness"]),
                     doc["witness_note"]))
    return rows


def _check(folder, tmp_path):
    rows, attempts = rows_from_folder(str(folder))
    lake = Lake(str(tmp_path / "lake"))
    store(lake, rows, attempts)
    stats = run_diff_stage(lake, Policy(), workers=1)
    assert stats["errors"] == 0 and stats["pairs_diffed"] > 0
    path_of = {}
    for path in folder.glob("*/*.json*"):
        version = path.name[:-len(".json.gz")] if path.name.endswith(".gz") else path.stem
        path_of[(path.parent.name, version)] = path
    servers = sorted({s for s, _ in path_of})
    ledger = lake.read_servers("pairs", servers).to_pylist()
    stored = {}
    for row in lake.read_servers("changes", servers).to_pylist():  # file order is diff order
        stored.setdefault(row["pair_key"], []).append(tuple(row[c] for c in COLUMNS))
    assert len(ledger) == stats["pairs_diffed"]
    compared = 0
    for pair in ledger:
        expected = _full(path_of, pair)
        got = stored.get(pair["pair_key"], [])
        where = (pair["server_id"], pair["old_version"], pair["new_version"])
        assert len(got) == len(expected) == pair["changes"], where
        for mine, theirs in zip(got, expected):
            assert mine == theirs, where
        compared += len(expected)
    assert compared > 0


@pytest.mark.parametrize("series", sorted(SERIES))
def test_the_stage_diffs_exactly_what_the_engine_diffs_on_whole_captures(series, tmp_path):
    _check(SERIES[series], tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("series", sorted(SLOW_SERIES))
def test_the_same_on_the_ecosystem_captures(series, tmp_path):
    _check(SLOW_SERIES[series], tmp_path)



def _capture(folder, version, description, minimum):
    tool = {"name": "t", "description": description,
            "inputSchema": {"type": "object", "properties": {"n": {"type": "number", "minimum": minimum}}}}
    (folder / f"{version}.json").write_text(json.dumps({"tools": [tool]}))


def test_a_schema_equal_but_for_a_number_s_spelling_is_read_as_written(tmp_path):
    """The stage gives a tool's new side its old side's schema objects when
    they are the same. ``1`` and ``1.0`` are one JSON number, yet a later
    change reports the value as that release wrote it, so the two are never
    merged."""
    folder = tmp_path / "captures" / "srv"
    folder.mkdir(parents=True)
    _capture(folder, "1.0.0", "Adds numbers.", 1)
    _capture(folder, "1.1.0", "Adds two numbers.", 1.0)  # only the description moved
    _capture(folder, "1.2.0", "Adds two numbers.", 2)
    _check(tmp_path / "captures", tmp_path)
    lake = Lake(str(tmp_path / "lake"))
    moved = [(r["old_json"], r["new_json"]) for r in lake.read_servers("changes", ["srv"]).to_pylist()
             if r["path"].endswith("/minimum")]
    assert moved == [("1.0", "2")]
