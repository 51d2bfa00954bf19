"""verify-lock against a live server: the demo notes server over stdio."""

from tests.conftest import ROOT

DEMO = ROOT / "data" / "demo" / "notes_server.py"


def _servers(path, version):
    path.write_text(f"""servers:
  - id: notes
    transport: stdio
    command: "{{python}}"
    args: ["{DEMO}", "--version", "{version}"]
""")
    return path


def test_verify_lock_captures_the_live_server(mcpdelta, tmp_path):
    old = _servers(tmp_path / "old.yaml", "1.2.0")
    assert mcpdelta("crawl", "--servers", old, "--out", tmp_path / "captures").returncode == 0
    lock = tmp_path / "tool-versions.lock.yaml"
    assert mcpdelta("lock", tmp_path / "captures" / "notes" / "1.2.0.json", "-o", lock).returncode == 0
    same = mcpdelta("verify-lock", "--servers", old, "--server", "notes", "--lock", lock)
    assert same.returncode == 0, same.stdout + same.stderr
    assert "no drift" in same.stdout
    # 2.0.0 renames search_notes to find_notes and requires a notebook in add_note
    new = _servers(tmp_path / "new.yaml", "2.0.0")
    drift = mcpdelta("verify-lock", "--servers", new, "--server", "notes", "--lock", lock)
    assert drift.returncode == 3
    lines = drift.stdout.splitlines()
    assert any(line.split()[:2] == ["removed", "search_notes"] for line in lines)
    assert any(line.split()[:2] == ["added", "find_notes"] for line in lines)
    assert any(line.split()[:2] == ["changed", "add_note"] for line in lines)


def test_verify_lock_names_an_unknown_server(mcpdelta, tmp_path):
    servers = _servers(tmp_path / "s.yaml", "1.0.0")
    (tmp_path / "lock.yaml").write_text("version: 1\ngenerated_for: x\ntools: {}\n")
    result = mcpdelta("verify-lock", "--servers", servers, "--server", "nope", "--lock", tmp_path / "lock.yaml")
    assert result.returncode == 2
    assert "no server with id 'nope'" in result.stderr and "Traceback" not in result.stderr
