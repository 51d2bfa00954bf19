"""Shared helpers: the real console script, real files."""

import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "data" / "examples" / "notes"


def _console_script():
    beside = pathlib.Path(sys.executable).with_name("mcpdelta")
    if beside.exists():
        return [str(beside)]
    found = shutil.which("mcpdelta")
    return [found] if found else [sys.executable, "-m", "mcpdelta"]


MCPDELTA = _console_script()


class Run:
    def __init__(self, proc):
        self.code, self.out, self.err = proc.returncode, proc.stdout, proc.stderr

    def json(self):
        return json.loads(self.out)


@pytest.fixture
def cli(tmp_path):
    """Run ``mcpdelta ARGS`` in ``tmp_path``; never a traceback on stderr."""
    def run(*args, stdin=None):
        proc = subprocess.run(MCPDELTA + [str(a) for a in args], cwd=tmp_path, input=stdin,
                              capture_output=True, text=True, timeout=60,
                              env={**os.environ, "PYTHONIOENCODING": "utf-8"})
        assert "Traceback" not in proc.stderr, proc.stderr
        return Run(proc)
    return run


def write_json(path, doc):
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return path


def manifest(*tools, name="acme"):
    return {"serverInfo": {"name": name, "version": "1.0.0"}, "tools": list(tools)}
