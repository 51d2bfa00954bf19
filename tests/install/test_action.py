"""The GitHub Action at the repository root, run as a runner would: each
``run:`` step of action.yml executed by bash with ``${{ inputs.* }}`` and
``${{ github.action_path }}`` substituted by hand, a fresh virtual
environment standing in for actions/setup-python, against a real stdio
server whose baseline differs."""

import json
import re
import shutil
import subprocess
import sys
import venv

import pytest
import yaml

from tests.conftest import ROOT

ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
SAMPLES = ROOT / "data" / "samples" / "reference" / "server-everything"
REPLAY = ROOT / "tests" / "ci" / "replay_manifest.py"
EXPRESSION = re.compile(r"\$\{\{\s*([\w.-]+)\s*\}\}")


def substitute(text: str, context: dict) -> str:
    return EXPRESSION.sub(lambda m: context[m.group(1)], str(text))


@pytest.fixture(scope="module")
def runner(tmp_path_factory):
    """Runs action.yml's steps as a runner would; the install step once per module."""
    home = tmp_path_factory.mktemp("runner")
    venv.create(home / "python", with_pip=True)  # what setup-python provides
    assert ACTION["runs"]["using"] == "composite"
    installed = []

    def run(work, inputs, event_env=()):
        values = {name: str(spec.get("default", "")) for name, spec in ACTION["inputs"].items()} | inputs
        context = {f"inputs.{k}": v for k, v in values.items()} | {"github.action_path": str(ROOT)}
        files = {"GITHUB_OUTPUT": work / "output", "GITHUB_STEP_SUMMARY": work / "summary"}
        base_env = {"PATH": f"{home / 'python' / 'bin'}:/usr/bin:/bin", "HOME": str(home),
                    "GITHUB_ACTIONS": "true", **{k: str(v) for k, v in files.items()}, **dict(event_env)}
        check = None
        for step in ACTION["runs"]["steps"]:
            if "run" not in step:
                assert step["uses"].startswith("actions/setup-python@")
                continue
            assert step["shell"] == "bash"
            if step.get("id") != "check" and installed:
                continue
            env = base_env | {k: substitute(v, context) for k, v in step.get("env", {}).items()}
            done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c",
                                   substitute(step["run"], context)],
                                  cwd=work, env=env, capture_output=True, text=True, timeout=900)
            assert "Traceback" not in done.stderr, done.stderr[-2000:]
            if step.get("id") != "check":
                assert done.returncode == 0, done.stderr[-2000:]
                installed.append(step["name"])
            else:
                check = done
        produced = dict(line.split("=", 1) for line in files["GITHUB_OUTPUT"].read_text().splitlines())
        outputs = {name: substitute(spec["value"], {f"steps.check.outputs.{k}": v for k, v in produced.items()})
                   for name, spec in ACTION["outputs"].items()}
        return check, outputs, files

    return run


def _servers(work, manifest):
    (work / "servers.yaml").write_text(json.dumps({"servers": [{
        "id": "server-everything", "transport": "stdio", "command": sys.executable,
        "args": [str(REPLAY), str(manifest)]}]}))


def test_action_steps_check_a_server_against_its_baseline(runner, tmp_path):
    work = tmp_path / "repo"
    (work / "baselines").mkdir(parents=True)
    shutil.copy(SAMPLES / "2025.12.18.json", work / "baselines" / "server-everything.json")
    _servers(work, SAMPLES / "2026.1.14.json")
    check, outputs, files = runner(work, {"servers": "servers.yaml", "baseline": "baselines",
                                          "sarif": "mcpdelta.sarif"})
    assert check.returncode == 1  # the job fails: the server broke its callers
    assert outputs["verdict"] == "fail" and outputs["grade"] == "major"
    assert int(outputs["breaking"]) > 10
    assert len([line for line in check.stdout.splitlines() if line.startswith("::error ")]) == 10
    assert json.loads((work / "mcpdelta.sarif").read_text())["version"] == "2.1.0"
    assert len(files["GITHUB_STEP_SUMMARY"].read_text(encoding="utf-8")) < 60_000


def test_on_a_pull_request_the_action_compares_with_the_merge_base(runner, tmp_path):
    """main's baseline moved on to the new release after the branch left it:
    against main's tip the branch would pass; against the merge base it shows
    what it changes."""
    def git(*args, cwd):
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
                       cwd=cwd, check=True, capture_output=True)

    origin, work = tmp_path / "origin.git", tmp_path / "repo"
    git("init", "-q", "--bare", "-b", "main", str(origin), cwd=tmp_path)
    git("init", "-q", "-b", "main", str(work), cwd=tmp_path)
    (work / "baselines").mkdir()
    baseline = work / "baselines" / "server-everything.json"
    shutil.copy(SAMPLES / "2025.12.18.json", baseline)
    git("add", "-A", cwd=work)
    git("commit", "-qm", "baseline", cwd=work)
    git("checkout", "-q", "-b", "feature", cwd=work)
    git("checkout", "-q", "main", cwd=work)
    shutil.copy(SAMPLES / "2026.1.14.json", baseline)
    git("commit", "-qam", "main takes the new release", cwd=work)
    git("remote", "add", "origin", str(origin), cwd=work)
    git("push", "-q", "origin", "main", cwd=work)
    git("update-ref", "-d", "refs/remotes/origin/main", cwd=work)  # the runner's checkout has only the PR
    git("checkout", "-q", "feature", cwd=work)
    git("branch", "-q", "-D", "main", cwd=work)
    _servers(work, SAMPLES / "2026.1.14.json")
    check, outputs, _ = runner(work, {"servers": "servers.yaml", "baseline": "baselines"},
                               {"GITHUB_EVENT_NAME": "pull_request", "GITHUB_BASE_REF": "main"})
    assert "git:merge-base(origin/main):baselines/server-everything.json -> live:server-everything" in check.stdout
    assert check.returncode == 1 and outputs["verdict"] == "fail" and int(outputs["breaking"]) > 10
