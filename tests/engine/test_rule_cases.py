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
                            # becomes POTENTIALLY_BREAKING)

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
