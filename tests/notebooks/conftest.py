"""Lakes for the notebook and report tests, built once per session: the
demo lake (`mcpdelta survey` on the embedded demo servers, as the README's
first command builds it) and the tiny fixture lake (tests/fixtures/captures)."""

import os
import subprocess

import pytest

from tests.conftest import ROOT, _console_script

def _run(args, cwd, ok=(0,)):
    result = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=300)
    assert result.returncode in ok, result.stderr
    return result


@pytest.fixture(scope="session")
def demo_lake(tmp_path_factory):
    cwd = tmp_path_factory.mktemp("demo")
    _run([_console_script(), "survey", "--lake", "lake", "--report", "survey-report"], cwd)
    return cwd / "lake"


@pytest.fixture(scope="session")
def fixture_lake(tmp_path_factory):
    cwd = tmp_path_factory.mktemp("fixture")
    # one fixture capture is cut short: ingest records its error row and exits 1
    _run([_console_script(), "ingest", str(ROOT / "tests" / "fixtures" / "captures"), "--lake", "lake"], cwd,
         ok=(1,))
    _run([_console_script(), "survey", "--lake", "lake", "--no-crawl", "--report", "survey-report"], cwd)
    return cwd / "lake"


@pytest.fixture(scope="session")
def report():
    """Run ``mcpdelta report ARGS...``; returns CompletedProcess."""
    def run(*args, cwd=None):
        return subprocess.run([_console_script(), "report", *map(str, args)],
                              capture_output=True, text=True, cwd=cwd, timeout=120,
                              env={**os.environ, "MPLBACKEND": "Agg"})
    return run
