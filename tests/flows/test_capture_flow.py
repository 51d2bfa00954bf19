"""The survey flow's capture mode: both passes of a servers file into a
capture folder, server by server, stopped by a real signal and resumed."""

import json
import os
import signal
import subprocess
import sys
import time

from tests.conftest import ROOT

DEMO = ROOT / "data" / "demo"


def servers_file(tmp_path, gate):
    """demo-notes, then demo-weather behind a gate: while the gate file
    exists its server does not start (so a run can be stopped inside it)."""
    wrapper = tmp_path / "gated.py"
    wrapper.write_text(
        "import os, sys, time\n"
        f"while os.path.exists({str(gate)!r}):\n    time.sleep(0.2)\n"
        f"os.execv(sys.executable, [sys.executable, {str(DEMO / 'weather_server.py')!r}] + sys.argv[1:])\n")
    path = tmp_path / "servers.yaml"
    path.write_text(
        "servers:\n"
        f"  - {{id: demo-notes, command: '{{python}}', args: [{json.dumps(str(DEMO / 'notes_server.py'))}, "
        "--version, '{version}'], versions: ['1.0.0', '2.0.0']}\n"
        f"  - {{id: demo-weather, command: '{{python}}', args: [{json.dumps(str(wrapper))}, --version, '{{version}}'], "
        "versions: ['1.0.0', '2.0.0']}\n"
        "limits: {timeout_s: 30, concurrency: 2, total_timeout_s: 60}\n")
    return path


def log_rows(out, folder):
    path = out / folder / "crawl-log.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def run_flow(servers, out, **kw):
    return subprocess.Popen([sys.executable, "-m", "mcpdelta.flows.survey", "--servers", str(servers),
                             "--captures", str(out), "--format", "json"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)


def test_a_capture_run_stopped_by_sigterm_goes_on_where_it_stopped(tmp_path):
    gate = tmp_path / "gate"
    gate.touch()
    servers, out = servers_file(tmp_path, gate), tmp_path / "out"
    first = run_flow(servers, out)
    seen, deadline = [], time.monotonic() + 600  # a loaded machine starts Prefect slowly
    for line in first.stdout:   # the runner names each server as it starts it
        seen.append(line)
        if line.startswith("== ") and line.rstrip().endswith(" demo-weather"):
            break
        assert time.monotonic() < deadline, "".join(seen)
    time.sleep(1)               # its first pass is waiting at the gate
    first.send_signal(signal.SIGTERM)
    rest, _ = first.communicate(timeout=120)
    assert first.returncode == 128 + signal.SIGTERM, "".join(seen) + rest
    assert sorted(os.listdir(out / "done")) == ["demo-notes"]
    assert {(r["id"], r["version"]) for r in log_rows(out, "b")} == {("demo-notes", "1.0.0"), ("demo-notes", "2.0.0")}
    assert all(r["client"]["name"] == "mcpdelta-survey-second-pass" for r in log_rows(out, "b"))
    assert not any(r["id"] == "demo-weather" and r["ok"] for r in log_rows(out, "a"))

    gate.unlink()
    second = run_flow(servers, out)
    text, _ = second.communicate(timeout=300)
    assert second.returncode == 0, text
    assert json.loads(text.strip().splitlines()[-1]) == {"servers": 1, "errors": [], "left": 0, "stopped": False}
    assert sorted(os.listdir(out / "done")) == ["demo-notes", "demo-weather"]
    for folder in ("a", "b"):   # each release captured once in each pass: demo-notes was not crawled again
        ok = sorted((r["id"], r["version"]) for r in log_rows(out, folder) if r["ok"])
        assert ok == [("demo-notes", "1.0.0"), ("demo-notes", "2.0.0"),
                      ("demo-weather", "1.0.0"), ("demo-weather", "2.0.0")], folder
        assert sorted(p.name for p in (out / folder / "demo-weather").glob("*.json")) == ["1.0.0.json", "2.0.0.json"]


def test_a_capture_run_needs_a_servers_file(tmp_path):
    done = subprocess.run([sys.executable, "-m", "mcpdelta.flows.survey", "--captures", str(tmp_path)],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 2 and "--captures needs --servers" in done.stderr
