"""The README's nightly section, end to end: a real Prefect server on
127.0.0.1 started here, the nightly deployment served, one run triggered
with `prefect deployment run`, its summary and report path read back from
the flow run's logs, and the run's row in the lake."""

import os
import pathlib
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from mcpdelta.lake import Lake
from tests.conftest import ROOT

BIN = pathlib.Path(sys.executable).parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait(what, check, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(1)
    raise AssertionError(f"timed out waiting for {what}")


def _stop(proc):
    """SIGINT to the process group (what Ctrl-C does), then SIGKILL."""
    if proc.poll() is not None:
        return
    os.killpg(proc.pid, signal.SIGINT)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


@pytest.fixture
def prefect_env(tmp_path):
    port = _free_port()
    return port, {
        **{k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")},
        "PREFECT_HOME": str(tmp_path / "prefect-home"),
        "PREFECT_API_URL": f"http://127.0.0.1:{port}/api",
        "DO_NOT_TRACK": "1",
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_UI_ENABLED": "false",
        "PREFECT_SERVER_LOGGING_LEVEL": "WARNING",
    }


def test_nightly_deployment_run_logs_its_summary_and_writes_a_runs_row(prefect_env, tmp_path):
    port, env = prefect_env
    lake = tmp_path / "lake"
    logs = {name: open(tmp_path / f"{name}.log", "w") for name in ("server", "serve")}
    server = subprocess.Popen([str(BIN / "prefect"), "server", "start", "--host", "127.0.0.1",
                               "--port", str(port)], env=env, cwd=tmp_path, stdout=logs["server"],
                              stderr=subprocess.STDOUT, start_new_session=True)
    served = None
    try:
        def healthy():
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=2) as r:
                    return r.status == 200
            except OSError:
                return server.poll() is not None and pytest.fail((tmp_path / "server.log").read_text())
        _wait("the Prefect server", healthy, 180)

        served = subprocess.Popen([sys.executable, "-m", "mcpdelta.flows.nightly", "--lake", str(lake)], env=env,
                                  cwd=ROOT, stdout=logs["serve"], stderr=subprocess.STDOUT,
                                  start_new_session=True)

        def prefect(*args, timeout=60):
            return subprocess.run([str(BIN / "prefect"), *args], env=env, cwd=tmp_path,
                                  capture_output=True, text=True, timeout=timeout)

        _wait("the nightly deployment", lambda: served.poll() is None and prefect(
            "deployment", "inspect", "mcpdelta-survey/nightly").returncode == 0, 120)
        started = prefect("deployment", "run", "mcpdelta-survey/nightly")
        assert started.returncode == 0, started.stdout + started.stderr
        run_id = re.search(r"UUID: ([0-9a-f-]{36})", started.stdout).group(1)

        def finished():
            state = prefect("flow-run", "inspect", run_id).stdout
            m = re.search(r"type=StateType\.(\w+)|'type': '(\w+)'|\"type\": \"(\w+)\"", state)
            kind = next((g for g in m.groups() if g), None) if m else None
            return kind if kind in ("COMPLETED", "FAILED", "CRASHED", "CANCELLED") else None
        assert _wait("the flow run", finished, 240) == "COMPLETED", (tmp_path / "serve.log").read_text()

        text = prefect("flow-run", "logs", run_id).stdout
        assert re.search(r"surveyed 2 servers, 8 captures, 6 version pairs \(6 diffed, 0 cached\), 0 errors",
                         text), text
        report = pathlib.Path(str(lake) + "-report") / "survey.html"
        assert f"report: {report}" in text and report.is_file()
        rows = Lake(str(lake)).connect().execute(
            "SELECT command, servers, captures, pairs, pairs_diffed, errors FROM runs").fetchall()
        assert rows == [("survey", 2, 8, 6, 6, 0)]
    finally:
        for proc in (served, server):
            if proc is not None:
                _stop(proc)
        for f in logs.values():
            f.close()
    assert server.returncode is not None and (served is None or served.returncode is not None)
