"""Bounded witness work: hostile patterns and huge enums through a real
``mcpdelta diff`` process with witnesses on, and budgets whose notes say a
witness was cut short. (Each subprocess timeout is a hang guard, not a
speed measurement: bench/ measures speed.)"""

import json
import pathlib
import subprocess
import sys

import pytest

from mcpdelta.engine.result import DiffResult
from mcpdelta.witness import attach_witnesses
from mcpdelta.witness.validate import matches
from tests.witness.test_witness import _valid, obj, only

MCPDELTA = pathlib.Path(sys.executable).with_name("mcpdelta")
HANG = 60  # seconds: far beyond any bounded run, far below a hang


def _pair(tmp_path, old_schema, new_schema):
    paths = []
    for name, schema in (("old", old_schema), ("new", new_schema)):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps({"tools": [{"name": "t", "inputSchema": schema}]}))
        paths.append(str(path))
    return paths


def _diff(paths):
    done = subprocess.run([str(MCPDELTA), "diff", *paths, "--format", "json"], capture_output=True,
                          text=True, timeout=HANG)
    assert done.returncode == 1, done.stderr  # a BREAKING change, reported
    return json.loads(done.stdout)


@pytest.mark.parametrize("pattern", ["^!$|^(a+)+$", "^#$|^(c+)+$"])
def test_a_catastrophic_pattern_does_not_hang_diff(tmp_path, pattern):
    """Python's backtracking ``re`` needs minutes for these on a long string
    of the repeated letter; the witness work must not."""
    old = obj({"s": {"type": "string", "maxLength": 100_000}})
    new = obj({"s": {"type": "string", "maxLength": 100_000, "pattern": pattern}})
    report = _diff(_pair(tmp_path, old, new))
    [change] = [c for c in report["changes"] if c["severity"] == "BREAKING"]
    assert change["witness"] is not None, change["witness_note"]
    value = change["witness"]["value"]
    assert _valid(old, value) and not _valid(new, value)


def test_a_pattern_with_lookahead_is_bounded_too(tmp_path):
    """A lookahead needs a backtracking engine: such patterns are only ever
    run on short texts. The diff ends, and its break has a witness or a note."""
    old = obj({"s": {"type": "string", "pattern": "^(a+)+$", "maxLength": 100_000}})
    new = obj({"s": {"type": "string", "pattern": "(?=a)(a+)+$", "maxLength": 100_000}})
    paths = _pair(tmp_path, old, new)
    done = subprocess.run([str(MCPDELTA), "diff", *paths, "--format", "json"], capture_output=True,
                          text=True, timeout=HANG)
    assert done.returncode in (0, 1), done.stderr
    claims = [c for c in json.loads(done.stdout)["changes"] if c["default_severity"] in (
        "BREAKING", "POTENTIALLY_BREAKING") and c["rule"].startswith("tool.input.")]
    assert claims
    for change in claims:  # a witness, a named reason, or "unproven: why" and not BREAKING
        assert (change["witness"] is None) != (change["witness_note"] is None), change
        if change["severity"] == "POTENTIALLY_BREAKING":
            assert change["witness_note"].startswith("unproven: "), change


def test_a_20000_value_enum_pair_diffs_with_witnesses(tmp_path):
    values = [f"v{i:05d}" for i in range(20_000)]
    old = obj({"e": {"enum": values}}, required=["e"])
    new = obj({"e": {"enum": values[:10_000] + [f"w{i}" for i in range(10_000)]}}, required=["e"])
    report = _diff(_pair(tmp_path, old, new))
    narrowed = [c for c in report["changes"] if c["rule"] == "tool.input.enum.narrowed"]
    assert narrowed and narrowed[0]["witness"] is not None
    value = narrowed[0]["witness"]["value"]
    assert value["e"] in values[10_000:]
    assert _valid(old, value) and not _valid(new, value)


def test_matches_reads_patterns_as_json_schema_does():
    assert matches("^(a+)+$", "a" * 100_000 + "!") is False  # linear: returns at all
    assert matches("b", "abc") is True  # unanchored
    assert matches("^b", "abc") is False
    assert matches("(", "x") is None  # not a pattern


def _tight_pair():
    # bounds no other test uses: no earlier result is remembered for them
    return DiffResult({"tools": [{"name": "t", "inputSchema": obj({"n": {"type": "integer", "maximum": 917}})}]},
                      {"tools": [{"name": "t", "inputSchema": obj({"n": {"type": "integer", "maximum": 513}})}]})


def test_a_spent_change_budget_says_so_in_the_note():
    result = _tight_pair()
    stats = attach_witnesses(result, change_budget=0)
    change = only(result, "tool.input.constraint.tightened")
    assert change.witness is None
    # unproven, the claim is no longer BREAKING, and the summary says so
    assert change.witness_note.startswith(
        "unproven: no witness: cut short, the per-change budget of 0 candidates")
    assert change.severity == change.default_severity == "POTENTIALLY_BREAKING"
    assert result.summary["unproven"] == 1 and result.summary["BREAKING"] == 0
    assert result.grade == "minor" and result.verdict == "pass"
    assert stats["cut_short"] == 1 and stats["not_found"] == 0 and stats["unproven"] == 1


def test_a_change_is_proven_the_same_whatever_else_its_diff_holds():
    """Each change has its own budget: a change's witness and note are the
    same alone and after 130 changes that each spend theirs in vain (a
    lookbehind no witness can show; a budget shared across the diff ran out
    before the last change and left it unproven)."""
    import mcpdelta.witness.attach as attach

    def crowd(pattern):
        return [{"name": f"t{i:02}", "inputSchema": obj({"s": {"type": "string", "pattern": pattern + "x" * i}})}
                for i in range(130)]

    z_old = {"name": "z", "inputSchema": obj({"s": {"type": "string", "maxLength": 40}})}
    z_new = {"name": "z", "inputSchema": obj({"s": {"type": "string", "maxLength": 7}})}

    def z_only(result):
        [change] = [c for c in result.changes if c.entity == "z"]
        return change.severity, change.witness, change.witness_note

    attach._MEMO.clear()
    crowded = DiffResult({"tools": crowd("^[a-z]+$|") + [z_old]},
                         {"tools": crowd("^[a-z]+$(?<!q)|") + [z_new]})
    attach_witnesses(crowded)
    assert sum(c.witness_note.startswith("unproven: ") for c in crowded.changes if c.entity != "z") == 130
    attach._MEMO.clear()
    alone = DiffResult({"tools": [z_old]}, {"tools": [z_new]})
    attach_witnesses(alone)
    assert z_only(crowded) == z_only(alone)
    assert z_only(alone)[0] == "BREAKING" and z_only(alone)[1] is not None


def test_changes_without_a_witness_by_nature_keep_their_notes_and_severity():
    schema = obj({"q": {"type": "string"}})
    old = {"tools": [{"name": "gone", "inputSchema": schema}, {"name": "u", "inputSchema": schema},
                     {"name": "t", "inputSchema": schema}]}
    new = {"tools": [{"name": "u"}, {"name": "t", "inputSchema": obj({"q": {"type": "integer"}})}]}
    result = DiffResult(old, new)
    attach_witnesses(result)
    notes = {c.rule: c.witness_note for c in result.changes if c.severity == "BREAKING"}
    assert notes["tool.removed"].startswith("not a schema change")
    assert notes["tool.input.removed"].startswith("none by nature: without an inputSchema")
    assert notes["tool.input.type.changed"] is None  # witnessed


def test_a_spent_search_budget_says_so_when_construction_found_nothing():
    # two patterns the generator reads but no constructed value separates:
    # only the search could find one, and its budget is gone
    old = obj({"s": {"type": "string", "pattern": "^[a-z]+$"}})
    new = obj({"s": {"type": "string", "pattern": "^[a-y]+$"}})
    result = DiffResult({"tools": [{"name": "t", "inputSchema": old}]},
                        {"tools": [{"name": "t", "inputSchema": new}]})
    attach_witnesses(result, search_budget=0)
    [change] = [c for c in result.changes if c.default_severity in ("BREAKING", "POTENTIALLY_BREAKING")]
    if change.witness is None:  # construction may still find "z"; if not, the note names the search
        assert "the per-change search budget of 0 candidates" in change.witness_note
    else:
        assert _valid(old, change.witness["value"]) and not _valid(new, change.witness["value"])


def test_budgets_count_candidates_so_a_loaded_machine_gets_the_same_witnesses(tmp_path, monkeypatch):
    """A real pair with much witness work (mongodb-mcp-server 2.1.1 -> 3.0.3):
    two processes with other hash seeds, and one in
    which every clock reading jumps a second (a machine far slower than this
    one), give the same report, byte for byte."""
    import gzip
    import os
    import time

    from mcpdelta.engine.result import DiffResult
    import mcpdelta.witness.attach as attach

    captures = pathlib.Path(__file__).resolve().parents[2] / "data" / "ecosystem" / "captures" / "mongodb-mcp-server"
    paths = []
    for version in ("2.1.1", "3.0.3"):
        path = tmp_path / f"{version}.json"
        path.write_bytes(gzip.decompress((captures / f"{version}.json.gz").read_bytes()))
        paths.append(str(path))
    reports = []
    for seed in ("1", "2"):
        done = subprocess.run([str(MCPDELTA), "diff", *paths, "--format", "json"], capture_output=True,
                              timeout=HANG, env={**os.environ, "PYTHONHASHSEED": seed})
        assert done.returncode == 1, done.stderr
        reports.append(done.stdout)
    assert reports[0] == reports[1]
    # real witness work: create-index's vector fields gained numDimensions
    # bounds 1..8192 inside a tagged union's branch (read by hand from the
    # two captures); each bound is shown by a value past it
    bounds = {c["path"].rsplit("/", 1)[-1]: c for c in json.loads(reports[0])["changes"]
              if c["entity"] == "create-index" and c["path"].endswith(("numDimensions/minimum",
                                                                        "numDimensions/maximum"))}
    for keyword, past in (("minimum", lambda n: n < 1), ("maximum", lambda n: n > 8192)):
        [field] = bounds[keyword]["witness"]["value"]["definition"][0]["fields"]
        assert past(field["numDimensions"]), (keyword, field)

    def witnesses():
        attach._MEMO.clear()
        result = DiffResult(*(json.loads(pathlib.Path(p).read_text()) for p in paths))
        attach_witnesses(result)
        return [(c.rule, c.path, c.witness, c.witness_note) for c in result.changes]

    quick = witnesses()
    ticks = iter(range(10**9))
    monkeypatch.setattr(time, "process_time", lambda: float(next(ticks)))
    monkeypatch.setattr(time, "perf_counter", lambda: float(next(ticks)))
    assert witnesses() == quick



def _notes(server, old, new, **budgets):
    """Every change's witness and note, for a pair of committed captures."""
    import gzip

    captures = pathlib.Path(__file__).resolve().parents[2] / "data" / "ecosystem" / "captures" / server
    result = DiffResult(*(json.loads(gzip.decompress((captures / f"{v}.json.gz").read_bytes()))
                          for v in (old, new)))
    attach_witnesses(result, **budgets)
    return [(c.rule, c.path, c.witness, c.witness_note) for c in result.changes]


def test_a_result_cut_short_is_never_remembered():
    """arxiv-mcp-server 0.3.2 -> 0.4.1 removes check_status from
    download_paper, a change whose witness takes more than two candidates.
    Worked first with a per-change budget of two, it is cut short; worked
    again in this process with the default budget, it runs to its end (a
    named reason): a result a budget cut short is never remembered."""
    import mcpdelta.witness.attach as attach

    path = "/tools/download_paper/inputSchema/properties/check_status"
    attach._MEMO.clear()
    short = {p: (w, n) for _, p, w, n in _notes("arxiv-mcp-server", "0.3.2", "0.4.1", change_budget=2)}
    assert short[path][0] is None and "per-change budget" in short[path][1]
    full = {p: (w, n) for _, p, w, n in _notes("arxiv-mcp-server", "0.3.2", "0.4.1")}
    assert "cut short" not in full[path][1], full[path]  # worked to its end this time


def test_two_changes_of_one_rule_at_one_place_are_remembered_apart():
    """An anyOf that loses two branches at once: two changes, one rule, one
    path, other values. Each is its own work, so each has its own witness,
    and a second diff in this process gives each the same again."""
    import mcpdelta.witness.attach as attach

    old = obj({"v": {"anyOf": [{"type": "string", "minLength": 1}, {"type": "integer", "minimum": 0},
                               {"type": "boolean"}]}}, ["v"])
    new = obj({"v": {"anyOf": [{"type": "string", "minLength": 1}]}}, ["v"])

    def notes():
        result = DiffResult({"tools": [{"name": "t", "inputSchema": old}]},
                            {"tools": [{"name": "t", "inputSchema": new}]})
        attach_witnesses(result)
        return [(c.rule, c.path, c.witness, c.witness_note) for c in result.changes]

    attach._MEMO.clear()
    first = notes()
    tightened = [w["value"]["v"] for rule, _, w, _ in first if rule == "tool.input.constraint.tightened"]
    assert sorted(map(type, tightened), key=str) == [bool, int]  # one witness per removed branch
    assert notes() == first
