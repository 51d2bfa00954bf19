"""Progress on a terminal, silence in a pipe: the long commands run under a
real pseudo-terminal and through plain pipes."""

import json
import os
import pty
import re
import select
import shutil
import subprocess
import threading
import time

import pytest

from tests.conftest import ROOT, _console_script

REFERENCE = ROOT / "data" / "samples" / "reference"


def under_pty(args, cwd, timeout=120) -> tuple:
    """Run the console script with a terminal as stdin, stdout and stderr;
    return (exit status, everything it drew, ANSI sequences removed)."""
    master, slave = pty.openpty()
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "160", "LINES": "40"}
    env.pop("NO_COLOR", None)
    proc = subprocess.Popen([_console_script(), *map(str, args)], stdin=slave, stdout=slave,
                            stderr=slave, cwd=cwd, env=env, close_fds=True)
    os.close(slave)
    chunks, deadline = [], time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 1.0)
            if ready:
                try:
                    data = os.read(master, 65536)
                except OSError:  # EIO: the child closed the terminal
                    break
                if not data:
                    break
                chunks.append(data)
            elif proc.poll() is not None:
                break
        status = proc.wait(timeout=max(1, deadline - time.monotonic()))
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    text = b"".join(chunks).decode("utf-8", "replace")
    return status, re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)


@pytest.fixture(scope="module")
def snapshots(tmp_path_factory):
    """Two real servers' captures from data/: small enough to survey quickly."""
    folder = tmp_path_factory.mktemp("snapshots")
    for server in ("mcp-server-time", "server-memory"):
        shutil.copytree(REFERENCE / server, folder / server)
    return folder


def test_survey_on_a_terminal_shows_each_stage_with_counts_and_times(tmp_path):
    status, screen = under_pty(["survey", "--lake", "lake"], cwd=tmp_path)
    assert status == 0, screen
    for stage in ("crawl", "diff", "report"):
        assert re.search(rf"✓ {stage}\s.*\d+\.\d s", screen), (stage, screen)
    # each stage ends on its counts
    assert re.search(r"✓ crawl .*\d+ captures, \d+ new, 0 failed", screen), screen
    assert re.search(r"✓ diff .*6 pairs: 6 diffed, 0 cached, 0 errors", screen), screen
    assert "surveyed 2 servers" in screen  # the result itself still prints


def test_ingest_and_report_on_a_terminal_show_stages(tmp_path, snapshots):
    status, screen = under_pty(["ingest", snapshots, "--lake", "lake"], cwd=tmp_path)
    assert status == 0, screen
    assert re.search(r"✓ read\s", screen) and re.search(r"✓ store .*\d+ new, 0 errors", screen), screen
    piped = subprocess.run([_console_script(), "survey", "--lake", "lake", "--no-crawl"], cwd=tmp_path,
                           capture_output=True, text=True, timeout=120)
    assert piped.returncode == 0 and piped.stderr == ""  # not a terminal: no progress at all
    status, screen = under_pty(["report", "--lake", "lake", "--format", "png"], cwd=tmp_path)
    assert status == 0, screen
    assert re.search(r"✓ plots .*6/6", screen), screen


def test_survey_json_through_a_pipe_is_only_the_json_object(tmp_path, snapshots):
    subprocess.run([_console_script(), "ingest", snapshots, "--lake", "lake"], cwd=tmp_path,
                   check=True, capture_output=True, timeout=120)
    piped = subprocess.run([_console_script(), "survey", "--lake", "lake", "--no-crawl", "--format", "json"],
                           cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert piped.returncode == 0, piped.stderr
    doc = json.loads(piped.stdout)  # the whole of stdout is one object
    assert doc["pairs"] > 0 and piped.stderr == ""


def test_survey_json_on_a_terminal_keeps_progress_off_stdout(tmp_path, snapshots):
    """stdout a pipe, stderr the terminal: the progress goes to the terminal
    and stdout is still exactly the JSON object."""
    subprocess.run([_console_script(), "ingest", snapshots, "--lake", "lake"], cwd=tmp_path,
                   check=True, capture_output=True, timeout=120)
    master, slave = pty.openpty()
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "160"}
    drawn = []

    def drain():  # read the terminal while the command runs: a full pty would block it
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                return
            if not chunk:
                return
            drawn.append(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    proc = subprocess.Popen([_console_script(), "survey", "--lake", "lake", "--no-crawl", "--format", "json"],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=slave, env=env)
    os.close(slave)
    try:
        out, _ = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:  # never leave the command behind
            proc.kill()
            proc.wait()
        reader.join(timeout=10)
        os.close(master)
    drawn = b"".join(drawn)
    assert proc.returncode == 0
    assert json.loads(out)["pairs"] > 0
    assert "✓ diff" in drawn.decode("utf-8", "replace")


def test_study_on_a_terminal_shows_both_capture_passes_and_each_stage(tmp_path):
    servers = ROOT / "tests" / "survey" / "slice" / "servers.yaml"
    status, screen = under_pty(["study", servers, "--out", "out", "--work", "work", "--cache", "cache"],
                               cwd=tmp_path, timeout=300)
    assert status == 0, screen
    for stage in ("pass-a", "pass-b", "store", "diff steps", "diff latest", "write-up"):
        assert re.search(rf"✓ {stage}\s.*\d+\.\d s", screen), (stage, screen)
    assert re.search(r"✓ pass-a .*\d+/\d+", screen), screen  # captures done of captures to do
    assert "wrote out/README.md" in screen
