"""Every rule in the catalog fires from at least one small, named manifest pair.

Each file in ``cases/`` is one pair, named after what it shows:

    shows: one sentence
    old: {manifest}
    new: {manifest}
    expect:                 # hand-written, never copied from output
      - {rule: ..., severity: ..., path: ..., message: ...}
    exact: true             # optional: expect is the whole diff
    grade: none             # optional: the DiffResult's grade
    proved: true            # optional: severities after the proofs (a BREAKING
                            # schema claim with no witness nor named reason
                            # becomes POTENTIALLY_BREAKING), and each witness
                            # refused at its own change's place
    alone: [rule, ...]      # optional: these rules' witnesses refused nowhere
                            # else (the change alone tells the sides apart)

Severities in ``expect`` are the engine's defaults (balanced profile, no
config). ``path`` and ``message`` (a part of the message) are optional per
expectation.
"""

import pathlib

import pytest
import yaml

from mcpdelta.engine import diff
from mcpdelta.engine.catalog import RULES
from mcpdelta.engine.manifest import validate_manifest
from mcpdelta.engine.result import DiffResult
from mcpdelta.witness import attach_witnesses
from tests.truth.corpus import shows_it_alone, shows_its_own

CASES = sorted((pathlib.Path(__file__).parent / "cases").glob("*.yaml"))


def _load(path):
    with open(path, encoding="utf-8") as handle:
        return yaml.safe_load(handle)


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_case(path):
    case = _load(path)
    assert case.get("shows"), f"{path.name}: say what the case shows"
    old = validate_manifest(case["old"], "old")
    new = validate_manifest(case["new"], "new")
    if case.get("proved"):
        result = DiffResult(old, new)
        attach_witnesses(result)
        changes = result.changes
    else:
        changes = diff(old, new)
    if case.get("proved"):
        # every proof shows its own change: the second reader finds the
        # witness refused at the change's place (tests/truth/corpus.py)
        tools = [{t["name"]: t for t in side.get("tools") or []} for side in (case["old"], case["new"])]
        for c in changes:
            if c.witness is not None and c.severity == "BREAKING" and c.rule.startswith(("tool.input.", "tool.output.")):
                record = {"rule": c.rule, "path": c.path, "entity": c.entity, "witness": c.witness}
                sides = tools[0].get(c.entity, {}), tools[1].get(c.entity, {})
                assert shows_its_own(record, *sides) is not False, \
                    f"{path.name}: the witness of {c.rule} at {c.path} shows another change"
                assert c.rule not in case.get("alone", ()) or shows_it_alone(record, *sides), \
                    f"{path.name}: the witness of {c.rule} at {c.path} is refused elsewhere too"
    got = [(c.rule, c.default_severity, c.path) for c in changes]
    for want in case["expect"]:
        assert want["rule"] in RULES, f"{path.name}: unknown rule {want['rule']}"
        matches = [c for c in changes if c.rule == want["rule"] and c.default_severity == want["severity"]
                   and want.get("path", c.path) == c.path and want.get("message", "") in c.message]
        assert matches, f"{path.name}: expected {want}, got {[(c.rule, c.message) for c in changes]}"
    if case.get("exact"):
        wanted = sorted((w["rule"], w["severity"]) for w in case["expect"])
        assert sorted((g[0], g[1]) for g in got) == wanted, f"{path.name}: got {got}"
    if "grade" in case:
        result = DiffResult(old, new)
        if case.get("proved"):
            attach_witnesses(result)
        assert result.grade == case["grade"], f"{path.name}: grade"


def test_every_rule_has_a_case():
    fired = {want["rule"] for path in CASES for want in _load(path)["expect"]}
    missing = sorted(set(RULES) - fired)
    assert not missing, f"rules without a fixture case: {missing}"


def test_identical_manifests_have_no_changes():
    """...except a truncated capture, which is unsound even against itself."""
    for path in CASES:
        case = _load(path)
        for side in ("old", "new"):
            got = [c.rule for c in diff(case[side], case[side])]
            expected = ["server.manifest.truncated"] if case[side].get("nextCursor") else []
            assert got == expected, f"{path.name}: {side} vs itself"
