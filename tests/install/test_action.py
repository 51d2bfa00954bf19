"""The GitHub Action at the repository root, run as a runner would: each
``run:`` step of action.yml executed by bash with ``${{ inputs.* }}`` and
``${{ github.action_path }}`` substituted by hand, a fresh virtual
environment standing in for actions/setup-python, against a real stdio
server whose baseline differs."""

import json
import os
import re
import shutil
import subprocess
import sys
import venv

import yaml

from tests.conftest import ROOT

ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
SAMPLES = ROOT / "data" / "samples" / "reference" / "server-everything"
REPLAY = ROOT / "tests" / "ci" / "replay_manifest.py"
EXPRESSION = re.compile(r"\$\{\{\s*([\w.-]+)\s*\}\}")


def substitute(text: str, context: dict) -> str:
    return EXPRESSION.sub(lambda m: context[m.group(1)], str(text))


def test_action_steps_check_a_server_against_its_baseline(tmp_path):
    venv.create(tmp_path / "python", with_pip=True)  # what setup-python provides
    work = tmp_path / "repo"
    (work / "baselines").mkdir(parents=True)
    shutil.copy(SAMPLES / "2025.12.18.json", work / "baselines" / "server-everything.json")
    (work / "servers.yaml").write_text(json.dumps({"servers": [{
        "id": "server-everything", "transport": "stdio", "command": sys.executable,
        "args": [str(REPLAY), str(SAMPLES / "2026.1.14.json")]}]}))
    inputs = {name: str(spec.get("default", "")) for name, spec in ACTION["inputs"].items()}
    inputs.update({"servers": "servers.yaml", "baseline": "baselines", "sarif": "mcpdelta.sarif"})
    context = {f"inputs.{k}": v for k, v in inputs.items()} | {"github.action_path": str(ROOT)}
    files = {"GITHUB_OUTPUT": tmp_path / "output", "GITHUB_STEP_SUMMARY": tmp_path / "summary"}
    base_env = {"PATH": f"{tmp_path / 'python' / 'bin'}:/usr/bin:/bin", "HOME": str(tmp_path),
                "GITHUB_ACTIONS": "true", **{k: str(v) for k, v in files.items()}}
    assert ACTION["runs"]["using"] == "composite"
    codes = {}
    for step in ACTION["runs"]["steps"]:
        if "run" not in step:
            assert step["uses"].startswith("actions/setup-python@")
            continue
        assert step["shell"] == "bash"
        env = base_env | {k: substitute(v, context) for k, v in step.get("env", {}).items()}
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c",
                               substitute(step["run"], context)],
                              cwd=work, env=env, capture_output=True, text=True, timeout=900)
        assert "Traceback" not in done.stderr, done.stderr[-2000:]
        codes[step.get("id", step["name"])] = done.returncode
        if step.get("id") != "check":
            assert done.returncode == 0, done.stderr[-2000:]
        else:
            check = done
    assert codes["check"] == 1  # the job fails: the server broke its callers
    produced = dict(line.split("=", 1) for line in files["GITHUB_OUTPUT"].read_text().splitlines())
    outputs = {name: substitute(spec["value"], {f"steps.check.outputs.{k}": v for k, v in produced.items()})
               for name, spec in ACTION["outputs"].items()}
    assert outputs["verdict"] == "fail" and outputs["grade"] == "major"
    assert int(outputs["breaking"]) > 10
    assert len([line for line in check.stdout.splitlines() if line.startswith("::error ")]) == 10
    assert json.loads((work / "mcpdelta.sarif").read_text())["version"] == "2.1.0"
    assert len(files["GITHUB_STEP_SUMMARY"].read_text(encoding="utf-8")) < 60_000
