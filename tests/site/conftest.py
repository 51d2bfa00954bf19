"""The demo lake (``mcpdelta survey`` on the embedded demo servers) with one
hostile server ingested beside it, and the sites ``mcpdelta site`` writes
from it: once surveyed with consecutive pairs only, once with all pairs."""

import json
import os
import subprocess
import sys

import pytest

HOSTILE_SERVER = '"><img src=x onerror=alert(1)>'
HOSTILE_TOOL = "<script>alert(1)</script>\u202eevil"


def run(*args, cwd):
    script = os.path.join(os.path.dirname(sys.executable), "mcpdelta")
    return subprocess.run([script, *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=300)


def _manifest(version, required):
    schema = {"type": "object", "properties": {"q": {"type": "string"}, "limit": {"type": "integer"}},
              "required": required}
    return {"protocolVersion": "2025-06-18", "serverInfo": {"name": "x", "version": version},
            "capabilities": {"tools": {}},
            "tools": [{"name": HOSTILE_TOOL, "description": "<b>bold</b> & more", "inputSchema": schema}]}


@pytest.fixture(scope="package")
def lake(tmp_path_factory):
    """(folder, site surveyed with consecutive pairs, site surveyed with all pairs)."""
    cwd = tmp_path_factory.mktemp("site")
    done = run("survey", cwd=cwd)
    assert done.returncode == 0, done.stderr
    hostile = cwd / "hostile" / HOSTILE_SERVER
    hostile.mkdir(parents=True)
    # 2.0.0 makes an optional property required: a BREAKING change a witness proves
    for version, required in (("1.0.0", ["q"]), ("2.0.0", ["q", "limit"])):
        (hostile / f"{version}.json").write_text(json.dumps(_manifest(version, required)))
    for args in (("ingest", cwd / "hostile", "--lake", "lake"), ("survey", "--lake", "lake", "--no-crawl"),
                 ("site", "--lake", "lake", "--out", "consecutive"),
                 ("survey", "--lake", "lake", "--no-crawl", "--pairs", "all"),
                 ("site", "--lake", "lake", "--out", "all", "--data")):
        done = run(*args, cwd=cwd)
        assert done.returncode == 0, (args, done.stderr)
        assert "Traceback" not in done.stderr
    return cwd
