"""The reference study's probe fixtures, and the ``${VAR}`` cwd that finds them."""

import asyncio
import json
import os
import sqlite3
import subprocess

from mcpdelta.crawl.model import Limits
from mcpdelta.crawl.runner import crawl
from mcpdelta.crawl.servers import load, parse
from mcpdelta.survey import fixtures
from tests.conftest import ROOT

REFERENCE = ROOT / "data" / "servers" / "reference.yaml"
DEMO = ROOT / "data" / "demo"


def head(repo):
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True,
                          check=True).stdout.strip()


def test_two_studies_make_the_same_world(tmp_path):
    a, b = fixtures.create(tmp_path / "a"), fixtures.create(tmp_path / "b")
    assert head(a / "repo") == head(b / "repo")  # fixed authors and dates: the same commits
    for name in ("memory.json", "files/notes.txt", "files/data.json", "files/sub/readme.md"):
        assert (a / name).read_bytes() == (b / name).read_bytes()
    rows = sqlite3.connect(a / "reference.db").execute("SELECT id, title FROM notes ORDER BY id").fetchall()
    assert rows == [(1, "groceries"), (2, "chess")]
    graph = [json.loads(line) for line in (a / "memory.json").read_text().splitlines()]
    assert {g["name"] for g in graph if g["type"] == "entity"} == {"Alice", "Bob"}
    status = subprocess.run(["git", "status", "--porcelain"], cwd=a / "repo", capture_output=True, text=True)
    assert status.stdout.split() == ["M", "notes.txt"]  # the unstaged change git_diff_unstaged shows


def test_made_again_in_place_it_is_the_same(tmp_path):
    first = head(fixtures.create(tmp_path) / "repo")
    (tmp_path / "files" / "stray.txt").write_text("left by someone")
    assert head(fixtures.create(tmp_path) / "repo") == first
    assert not (tmp_path / "files" / "stray.txt").exists()


def test_the_variable_names_the_folder_only_while_the_study_captures(tmp_path, monkeypatch):
    monkeypatch.delenv(fixtures.VARIABLE, raising=False)
    with fixtures.exported(tmp_path / "fx") as root:
        assert os.environ[fixtures.VARIABLE] == str(root) == str((tmp_path / "fx").resolve())
    assert fixtures.VARIABLE not in os.environ


def test_every_fixture_folder_the_reference_servers_run_in_is_made(tmp_path, monkeypatch):
    targets, _ = load(REFERENCE)
    root = fixtures.create(tmp_path)
    monkeypatch.setenv(fixtures.VARIABLE, str(root))
    folders = {t.id: os.path.expandvars(t.cwd) for t in targets if "${" in t.cwd}
    assert set(folders) == {"server-filesystem", "mcp-server-git", "mcp-server-sqlite"}
    assert all(os.path.isdir(f) for f in folders.values())
    memory = next(t for t in targets if t.id == "server-memory")
    assert os.path.isfile(os.path.expandvars(memory.env["MEMORY_FILE_PATH"]))
    probed = {t.id for t in targets if t.probes}
    assert probed == {"server-filesystem", "server-everything", "server-memory", "server-sequential-thinking",
                      "mcp-server-time", "mcp-server-git", "mcp-server-sqlite"}


def _weather_in(cwd, tmp_path):
    """The weather demo started by a relative path, so it starts only in the right folder."""
    targets, _ = parse({"servers": [{"id": "weather", "command": "{python}", "cwd": cwd,
                                     "args": ["weather_server.py", "--version", "1.0.0"]}]},
                       "servers.yaml", tmp_path)
    limits = Limits(start_timeout_s=30, request_timeout_s=30, total_timeout_s=60, retries=0)
    [record] = asyncio.run(crawl(targets, limits, tmp_path / "out"))
    return record


def test_a_variable_in_cwd_is_expanded_when_the_server_starts(tmp_path, monkeypatch):
    monkeypatch.setenv("MCPDELTA_TEST_DEMO", str(DEMO))
    record = _weather_in("${MCPDELTA_TEST_DEMO}", tmp_path)
    assert record.ok, record.error
    assert record.manifest["serverInfo"]["name"] == "demo-weather"


def test_an_unset_variable_in_cwd_is_a_recorded_failure(tmp_path, monkeypatch):
    monkeypatch.delenv("MCPDELTA_TEST_DEMO", raising=False)
    record = _weather_in("${MCPDELTA_TEST_DEMO}/x", tmp_path)
    assert (record.ok, record.error_kind) == (False, "missing_env")
    assert "MCPDELTA_TEST_DEMO" in record.error


def test_a_plain_relative_cwd_still_resolves_against_the_servers_file(tmp_path):
    targets, _ = parse({"servers": [{"id": "x", "command": "x", "cwd": "sub"}]}, "servers.yaml", tmp_path)
    assert targets[0].cwd == str(tmp_path / "sub")
