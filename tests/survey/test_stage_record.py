"""A diff stage that leaves nothing pending records the lake's state; a
re-run on the same state answers from that record without opening DuckDB,
and any new file of the tables the stage reads is a new state."""

import json
import os

import pytest

from mcpdelta.engine.policy import Policy
from mcpdelta.errors import InputError
from mcpdelta.lake import Lake
from mcpdelta.lake.ingest import capture_row, store
from mcpdelta.survey import diffstage
from mcpdelta.survey.diffstage import run_diff_stage


def _capture(version, tools, server="s"):
    manifest = {"tools": [{"name": n, "inputSchema": {"type": "object", "properties": {
        p: {"type": "string"} for p in props}, "required": sorted(props)}} for n, props in tools.items()]}
    return capture_row(server, version, json.dumps(manifest), source="test",
                       captured_at=f"2026-01-0{version[-1]}T00:00:00Z")


class _NoDuckDB(Exception):
    pass


def _refuse_connect(*_args, **_kwargs):
    raise _NoDuckDB


def test_a_re_run_on_the_same_lake_is_answered_from_the_record(tmp_path, monkeypatch):
    lake = Lake(str(tmp_path / "lake"))
    store(lake, [_capture("1.0.1", {"a": ["q"]}), _capture("1.0.2", {"a": ["q", "r"]})])
    first = run_diff_stage(lake, Policy(), workers=1)
    assert (first["pairs"], first["pairs_diffed"]) == (1, 1)
    assert os.path.exists(os.path.join(lake.base, diffstage.DONE_FILE))
    monkeypatch.setattr(Lake, "connect", _refuse_connect)
    again = run_diff_stage(lake, Policy(), workers=1)
    assert again == {"pairs": 1, "pairs_cached": 1, "pairs_diffed": 0, "errors": 0}
    # another policy is another state: it needs DuckDB (and finds one pending pair)
    with pytest.raises(_NoDuckDB):
        run_diff_stage(lake, Policy(witness="never"), workers=1)


def test_a_new_capture_is_a_new_state_and_its_pair_is_diffed(tmp_path):
    lake = Lake(str(tmp_path / "lake"))
    store(lake, [_capture("1.0.1", {"a": ["q"]}), _capture("1.0.2", {"a": ["q", "r"]})])
    run_diff_stage(lake, Policy(), workers=1)
    store(lake, [_capture("1.0.3", {"a": ["r"]})])
    stats = run_diff_stage(lake, Policy(), workers=1)
    assert (stats["pairs"], stats["pairs_cached"], stats["pairs_diffed"]) == (2, 1, 1)
    assert run_diff_stage(lake, Policy(), workers=1)["pairs_diffed"] == 0


@pytest.mark.parametrize("place", ["", "server_id=s"], ids=["batch-file", "old-partition"])
def test_a_broken_file_in_the_ledger_is_still_found(tmp_path, place):
    lake = Lake(str(tmp_path / "lake"))
    store(lake, [_capture("1.0.1", {"a": ["q"]}), _capture("1.0.2", {"a": ["q", "r"]})])
    run_diff_stage(lake, Policy(), workers=1)
    os.makedirs(os.path.join(lake.folder("pairs"), place), exist_ok=True)
    junk = os.path.join(lake.folder("pairs"), place, "part-junk.parquet")
    with open(junk, "wb") as handle:
        handle.write(b"not parquet at all")
    with pytest.raises(InputError, match="part-junk.parquet"):
        run_diff_stage(lake, Policy(), workers=1)


def test_an_unreadable_record_costs_a_full_check_only(tmp_path):
    lake = Lake(str(tmp_path / "lake"))
    store(lake, [_capture("1.0.1", {"a": ["q"]}), _capture("1.0.2", {"a": ["q", "r"]})])
    run_diff_stage(lake, Policy(), workers=1)
    with open(os.path.join(lake.base, diffstage.DONE_FILE), "w") as handle:
        handle.write("{ cut short")
    again = run_diff_stage(lake, Policy(), workers=1)
    assert (again["pairs"], again["pairs_cached"], again["pairs_diffed"]) == (1, 1, 0)


def test_a_broken_tools_file_stops_the_stage_before_any_batch(tmp_path):
    # the pair query opens only manifests and pairs; the tools files the
    # workers read are checked first, so no batch runs (here the other
    # server's, in its own worker) when one of them is damaged
    lake = Lake(str(tmp_path / "lake"))
    store(lake, [_capture(v, {"a": props}, server) for server in ("s", "t")
                 for v, props in (("1.0.1", ["q"]), ("1.0.2", ["q", "r"]))])
    folder = os.path.join(lake.folder("tools"), "server_id=s")
    (name,) = [n for n in os.listdir(folder) if n.endswith(".parquet")]
    with open(os.path.join(folder, name), "wb") as handle:
        handle.write(b"not parquet at all")
    with pytest.raises(InputError, match=name):
        run_diff_stage(lake, Policy(), workers=2)
    assert not os.path.exists(lake.folder("pairs"))


def test_the_ledger_key_covers_the_witness_code_too(tmp_path, monkeypatch):
    """The stored rows hold witnesses: code that changes them is a new
    engine version, and every pair is diffed again under it."""
    import pathlib

    package = pathlib.Path(diffstage.__file__).resolve().parents[1]
    sources = {p.relative_to(package).as_posix() for p in diffstage.engine_sources()}
    for folder in ("engine", "witness"):
        assert {f"{folder}/{p.name}" for p in (package / folder).glob("*.py")} <= sources
    lake = Lake(str(tmp_path / "lake"))
    store(lake, [_capture("1.0.1", {"t": ["a"]}), _capture("1.0.2", {"t": ["a", "b"]})])
    assert run_diff_stage(lake, Policy(), workers=1)["pairs_diffed"] == 1
    assert run_diff_stage(lake, Policy(), workers=1)["pairs_cached"] == 1
    # witness code other than this (one module fewer) is another version
    others = [p for p in diffstage.engine_sources() if p.name != "attach.py"]
    monkeypatch.setattr(diffstage, "engine_sources", lambda: others)
    assert run_diff_stage(lake, Policy(), workers=1)["pairs_diffed"] == 1
