"""``mcpdelta ci`` end to end: a real stdio server (a replay of a stored
capture) against a committed baseline, with GitHub's environment files."""

import json
import shutil
import subprocess
import sys

import jsonschema
import pytest

from tests.conftest import ROOT, _console_script

SAMPLES = ROOT / "data" / "samples" / "reference" / "server-everything"
OLD, NEW = SAMPLES / "2025.12.18.json", SAMPLES / "2026.1.14.json"
REPLAY = ROOT / "tests" / "ci" / "replay_manifest.py"
NOTES = ROOT / "data" / "examples" / "notes"
SARIF_SCHEMA = ROOT / "tests" / "schemas" / "sarif-2.1.0.json"


def servers_file(folder, manifest, server_id="server-everything"):
    path = folder / "servers.yaml"
    path.write_text(json.dumps({"servers": [{"id": server_id, "transport": "stdio",
                                             "command": sys.executable,
                                             "args": [str(REPLAY), str(manifest)]}]}))
    return path


def ci(*args, cwd, github=None):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(cwd)}
    if github:
        env.update({"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(github / "summary.md"),
                    "GITHUB_OUTPUT": str(github / "output.txt")})
    return subprocess.run([_console_script(), "ci", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=120)


def outputs(path) -> dict:
    return dict(line.split("=", 1) for line in path.read_text().splitlines())


@pytest.fixture(scope="module")
def expected():
    """The same pair diffed by ``mcpdelta diff`` from the two files."""
    run = subprocess.run([_console_script(), "diff", str(OLD), str(NEW), "--format", "json"],
                         capture_output=True, text=True, timeout=60)
    return json.loads(run.stdout)


@pytest.fixture(scope="module")
def everything(tmp_path_factory):
    """ci over the 156-change server-everything pair, as under GitHub Actions."""
    base = tmp_path_factory.mktemp("ci")
    (base / "baselines").mkdir()
    shutil.copy(OLD, base / "baselines" / "server-everything.json")
    servers = servers_file(base, NEW)
    run = ci("--servers", servers, "--baseline", "baselines", "--sarif", "out.sarif", cwd=base, github=base)
    return base, run


def test_exit_status_and_outputs_say_the_change_breaks(everything, expected):
    base, run = everything
    assert run.returncode == 1, run.stderr
    assert "Traceback" not in run.stderr
    out = outputs(base / "output.txt")
    assert out["verdict"] == "fail"
    assert out["grade"] == expected["grade"] == "major"
    assert int(out["breaking"]) == expected["summary"]["BREAKING"] > 10
    assert int(out["potentially_breaking"]) == expected["summary"]["POTENTIALLY_BREAKING"]


def test_annotations_stay_within_githubs_ten_per_level(everything, expected):
    _, run = everything
    commands = [line for line in run.stdout.splitlines() if line.startswith("::")]
    errors = [line for line in commands if line.startswith("::error ")]
    assert len(errors) == 10
    [summary] = [line for line in commands if "not annotated" in line]
    left = expected["summary"]["BREAKING"] - 10
    assert f"{left} errors" in summary
    assert len(commands) <= 3 * 10 + 1


def test_job_summary_fits_a_pull_request_comment(everything, expected):
    base, _ = everything
    text = (base / "summary.md").read_text(encoding="utf-8")
    assert len(text) < 60_000
    assert text.index("| Server |") < text.index("<details")  # the table of servers comes first
    assert "| `server-everything` | fail | major |" in text
    full = subprocess.run([_console_script(), "diff", str(OLD), str(NEW), "--format", "markdown"],
                          capture_output=True, text=True, timeout=60).stdout
    if len(full) > 60_000:  # cut, and saying so
        assert "left out" in text


def test_sarif_log_validates_and_holds_every_change(everything, expected):
    base, _ = everything
    log = json.loads((base / "out.sarif").read_text())
    jsonschema.validate(log, json.loads(SARIF_SCHEMA.read_text()))
    [run] = log["runs"]
    assert len(run["results"]) == len(expected["changes"])
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]}
    assert uris == {"baselines/server-everything.json"}  # a file in the repository
    assert run["properties"]["server"] == "server-everything"


def test_matching_baseline_passes(tmp_path):
    (tmp_path / "b").mkdir()
    shutil.copy(NEW, tmp_path / "b" / "server-everything.json")
    run = ci("--servers", servers_file(tmp_path, NEW), "--baseline", "b", cwd=tmp_path, github=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert outputs(tmp_path / "output.txt")["verdict"] == "pass"
    assert not [line for line in run.stdout.splitlines() if line.startswith("::error")]


def test_update_baseline_writes_what_a_later_run_passes_against(tmp_path):
    servers = servers_file(tmp_path, NEW)
    first = ci("--servers", servers, "--baseline", "b", "--update-baseline", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    written = json.loads((tmp_path / "b" / "server-everything.json").read_text())
    assert {t["name"] for t in written["tools"]} == {t["name"] for t in json.loads(NEW.read_text())["tools"]}
    assert ci("--servers", servers, "--baseline", "b", cwd=tmp_path).returncode == 0


def test_missing_baseline_is_one_line_and_exit_2(tmp_path):
    (tmp_path / "b").mkdir()
    run = ci("--servers", servers_file(tmp_path, NEW), "--baseline", "b", cwd=tmp_path, github=tmp_path)
    assert run.returncode == 2
    assert run.stderr.count("\n") == 1 and "no baseline" in run.stderr and "Traceback" not in run.stderr
    assert outputs(tmp_path / "output.txt")["verdict"] == "error"


def test_unknown_server_id_is_one_line(tmp_path):
    run = ci("--servers", servers_file(tmp_path, NEW), "--baseline", tmp_path, "--server", "nope", cwd=tmp_path)
    assert run.returncode == 2
    assert "no server with id 'nope'" in run.stderr and run.stderr.count("\n") == 1


def test_a_server_that_cannot_start_is_an_error_not_a_pass(tmp_path):
    (tmp_path / "b").mkdir()
    shutil.copy(OLD, tmp_path / "b" / "server-everything.json")
    run = ci("--servers", servers_file(tmp_path, tmp_path / "absent.json"), "--baseline", "b", cwd=tmp_path)
    assert run.returncode == 2
    assert "server server-everything" in run.stderr and "Traceback" not in run.stderr


def test_lockfile_baseline_gates_and_updates_with_bumped_pins(tmp_path):
    """data/examples/notes: create_note gains an optional property (minor),
    delete_note loses a required one (major), export_notes is new."""
    import yaml

    lock = tmp_path / "tool-versions.lock.yaml"
    shutil.copy(NOTES / "tool-versions.lock.yaml", lock)
    pinned = yaml.safe_load(lock.read_text())["tools"]
    assert (pinned["create_note"]["semver"], pinned["delete_note"]["semver"]) == ("1.0.3", "2.1.0")
    servers = servers_file(tmp_path, NOTES / "manifest-next.json", server_id="notes")
    run = ci("--servers", servers, "--baseline", lock, cwd=tmp_path, github=tmp_path)
    assert run.returncode == 1, run.stderr
    out = outputs(tmp_path / "output.txt")
    assert (out["verdict"], out["grade"]) == ("fail", "major") and int(out["breaking"]) >= 1
    assert ci("--servers", servers, "--baseline", lock, "--update-baseline", cwd=tmp_path).returncode == 0
    tools = yaml.safe_load(lock.read_text())["tools"]
    assert tools["create_note"]["semver"] == "1.1.0"
    assert tools["delete_note"]["semver"] == "3.0.0"
    assert "export_notes" in tools
    assert ci("--servers", servers, "--baseline", lock, cwd=tmp_path).returncode == 0


def test_a_lockfile_baseline_needs_exactly_one_server(tmp_path):
    servers = tmp_path / "two.yaml"
    servers.write_text(json.dumps({"servers": [
        {"id": i, "transport": "stdio", "command": sys.executable, "args": [str(REPLAY), str(NEW)]}
        for i in ("a", "b")]}))
    shutil.copy(NOTES / "tool-versions.lock.yaml", tmp_path / "lock.yaml")
    run = ci("--servers", servers, "--baseline", "lock.yaml", cwd=tmp_path)
    assert run.returncode == 2 and "pins one server" in run.stderr and run.stderr.count("\n") == 1
