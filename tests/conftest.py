"""Shared test helpers: run the real console script."""

import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAIRS = ROOT / "tests" / "fixtures" / "pairs"


def _console_script() -> str:
    candidate = pathlib.Path(sys.executable).with_name("mcpdelta")
    return str(candidate) if candidate.exists() else "mcpdelta"


@pytest.fixture(scope="session")
def mcpdelta():
    """Run ``mcpdelta ARGS...`` as a user would; returns CompletedProcess."""
    script = _console_script()

    def run(*args, stdin=None, cwd=None, env=None):
        return subprocess.run([script, *map(str, args)], input=stdin, capture_output=True,
                              text=True, cwd=cwd, env={**os.environ, **(env or {})}, timeout=60)
    return run
