"""Sides of ``mcpdelta diff`` that are not files: ``git:REV:PATH`` against a
real temporary repository, ``live:ID`` against a real stdio server."""

import json
import subprocess
import sys

import pytest

from tests.conftest import PAIRS, ROOT, _console_script

OLD, NEW = PAIRS / "search_breaking" / "old.json", PAIRS / "search_breaking" / "new.json"
REPLAY = ROOT / "tests" / "ci" / "replay_manifest.py"


def diff(*args, cwd=None):
    return subprocess.run([_console_script(), "diff", *map(str, args), "--format", "json"],
                          capture_output=True, text=True, cwd=cwd, timeout=60)


def changes(run) -> list:
    return [(c["rule"], c["path"]) for c in json.loads(run.stdout)["changes"]]


@pytest.fixture(scope="module")
def files_diff():
    return changes(diff(OLD, NEW))


@pytest.fixture
def repo(tmp_path):
    """A repository whose manifest.json was OLD one commit ago and is NEW now."""
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "snapshots").mkdir()
    target = tmp_path / "snapshots" / "manifest.json"
    for source in (OLD, NEW):
        target.write_bytes(source.read_bytes())
        subprocess.run([*git, "add", "."], cwd=tmp_path, check=True)
        subprocess.run([*git, "commit", "-qm", source.parent.name + source.name], cwd=tmp_path, check=True)
    return tmp_path


def test_git_side_reads_the_file_as_committed(repo, files_diff):
    run = diff("git:HEAD~1:snapshots/manifest.json", "snapshots/manifest.json", cwd=repo)
    assert run.returncode == 1, run.stderr
    assert changes(run) == files_diff and files_diff


def test_git_path_is_relative_to_the_working_directory_and_slash_to_the_top(repo, files_diff):
    sub = repo / "snapshots"
    assert changes(diff("git:HEAD~1:manifest.json", "manifest.json", cwd=sub)) == files_diff
    assert changes(diff("git:HEAD~1:/snapshots/manifest.json", "git:HEAD:/snapshots/manifest.json", cwd=sub)) == files_diff


@pytest.mark.parametrize("side, problem", [
    ("git:no-such-rev:snapshots/manifest.json", "unknown revision 'no-such-rev'"),
    ("git:HEAD~1:snapshots/absent.json", "no file 'snapshots/absent.json' at revision 'HEAD~1'"),
    ("git:HEAD", "expected git:REV:PATH"),
])
def test_bad_git_sides_are_one_line(repo, side, problem):
    run = diff(side, "snapshots/manifest.json", cwd=repo)
    assert run.returncode == 2
    assert problem in run.stderr and run.stderr.count("\n") == 1 and "Traceback" not in run.stderr


def test_git_side_outside_a_repository(tmp_path):
    run = diff("git:HEAD:manifest.json", NEW, cwd=tmp_path)
    assert run.returncode == 2 and "not inside a git repository" in run.stderr


@pytest.fixture
def servers(tmp_path):
    path = tmp_path / "servers.yaml"
    path.write_text(json.dumps({"servers": [{"id": "search", "transport": "stdio", "command": sys.executable,
                                             "args": [str(REPLAY), str(NEW)]}]}))
    return path


def test_live_side_is_captured_on_the_spot(servers, files_diff):
    run = diff(OLD, "live:search", "--servers", servers)
    assert run.returncode == 1, run.stderr
    assert changes(run) == files_diff


@pytest.mark.parametrize("side, extra, problem", [
    ("live:nope", True, "no server with id 'nope'"),
    ("live:search", False, "a live side needs --servers FILE"),
    ("live:", True, "name a server"),
])
def test_bad_live_sides_are_one_line(servers, side, extra, problem):
    run = diff(OLD, side, *(["--servers", servers] if extra else []))
    assert run.returncode == 2
    assert problem in run.stderr and run.stderr.count("\n") == 1 and "Traceback" not in run.stderr
