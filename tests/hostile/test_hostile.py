"""The bad-input suite (``tests/hostile/cases.py``) as tests: every case in
a real process, each ending as expected, no traceback, no hang. The whole
suite (about 130 processes, a few minutes here) runs with ``-m slow``, or
as ``python -m tests.hostile.run``, which prints the counts of it and of the
second front (``attacks.py``, tested by ``test_front_*.py``); the default
run keeps the before-stop checks and ``test_messages.py``'s cases."""

import pytest

from tests.hostile.cases import build
from tests.hostile.run import run_case


def unexpected(cases, folder):
    wrong = []
    for name, argv, expected, _ in cases:
        outcome, code, err = run_case(argv, folder, timeout=60)
        if outcome != expected:
            wrong.append(f"{name}: expected {expected}, got {outcome} (exit {code}): {err.strip()[-300:]}")
    return wrong


def test_before_stop_checks(tmp_path, mcpdelta):
    """A broken, a binary and a missing manifest: exit 2 and one line each."""
    (tmp_path / "ok.json").write_text('{"tools": [{"name": "a", "inputSchema": {"type": "object"}}]}')
    (tmp_path / "broken.json").write_text('{"tools": [')
    (tmp_path / "binary.json").write_bytes(b"\xff\xfe not utf8")
    for bad, problem in (("broken.json", "invalid JSON"), ("binary.json", "not valid UTF-8"),
                         ("missing.json", "no such file")):
        result = mcpdelta("diff", "ok.json", bad, cwd=tmp_path)
        assert result.returncode == 2 and "Traceback" not in result.stderr
        line, = result.stderr.strip().splitlines()
        assert bad in line and problem in line


@pytest.mark.slow
def test_every_fast_case_ends_cleanly(tmp_path):
    cases = [c for c in build(tmp_path) if not c[3]]
    assert len(cases) > 80
    assert unexpected(cases, tmp_path) == []


@pytest.mark.slow
def test_every_lake_case_ends_cleanly(tmp_path):
    cases = [c for c in build(tmp_path) if c[3]]
    assert len(cases) > 30
    assert unexpected(cases, tmp_path) == []
