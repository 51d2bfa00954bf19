"""Shared test helpers: the real console script, and one loopback
chat-completions server for every judge test."""

import itertools
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


@pytest.fixture(scope="session")
def llm():
    """An OpenAI-compatible chat-completions server on 127.0.0.1, started once."""
    from tests.judge.llm_server import FakeLLM

    server = FakeLLM().start()
    yield server
    server.stop()


_models = itertools.count()


@pytest.fixture
def model(request):
    """A model name of this test's own: the loopback server scripts and counts by it."""
    def make(tag="m"):
        return f"{request.node.name[:40]}-{tag}-{next(_models)}"
    return make
