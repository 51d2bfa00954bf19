"""The hooks of .pre-commit-hooks.yaml, run by ``pre-commit try-repo`` on a
temporary repository holding a manifest and its lockfile."""

import os
import pathlib
import shutil
import subprocess
import sys

from tests.conftest import ROOT

NOTES = ROOT / "data" / "examples" / "notes"
PRE_COMMIT = pathlib.Path(sys.executable).with_name("pre-commit")


def git(repo, *args):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
                   cwd=repo, check=True, capture_output=True)


def try_repo(repo, hook, *args):
    env = {**os.environ, "PRE_COMMIT_HOME": str(repo.parent / "pre-commit-home")}
    return subprocess.run([str(PRE_COMMIT), "try-repo", str(ROOT), hook, "--files", "manifest.json",
                           "--verbose", *args], cwd=repo, env=env, capture_output=True, text=True, timeout=900)


def test_verify_lock_hook_passes_a_pinned_manifest_and_fails_a_drifted_one(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    shutil.copy(NOTES / "manifest.json", repo / "manifest.json")
    shutil.copy(NOTES / "tool-versions.lock.yaml", repo / "tool-versions.lock.yaml")
    (repo / ".pre-commit-config.yaml").write_text("repos: []\n")
    git(repo, "add", ".")
    clean = try_repo(repo, "mcpdelta-verify-lock")
    assert clean.returncode == 0, clean.stdout[-3000:]
    assert "no drift" in clean.stdout
    shutil.copy(NOTES / "manifest-next.json", repo / "manifest.json")
    git(repo, "add", ".")
    drifted = try_repo(repo, "mcpdelta-verify-lock")
    assert drifted.returncode == 1, drifted.stdout[-3000:]
    assert "delete_note" in drifted.stdout and "grade major" in drifted.stdout
    bump = try_repo(repo, "mcpdelta-lint-bump")
    assert bump.returncode == 1 and "delete_note" in bump.stdout
