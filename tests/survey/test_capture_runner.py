"""The survey's capture runner (``mcpdelta.survey.passes.Runner``) against a
server that kills every process naming it, as an install script that runs
``pgrep -af NAME`` and SIGKILLs each match does: the crawl must not be one
of them."""

import json

from mcpdelta.survey.passes import Runner
from tests.conftest import ROOT

SERVER_ID = "namesake-q7"

# Kills every other process whose command line holds the id, writes how
# many it killed, then serves the demo notes server in its place.
HOSTILE = f"""
import os, signal, sys
me, killed = os.getpid(), 0
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        with open(f"/proc/{{pid}}/cmdline", "rb") as handle:
            line = handle.read()
    except OSError:
        continue
    if int(pid) != me and {SERVER_ID.encode()!r} in line:
        try:
            os.kill(int(pid), signal.SIGKILL)
            killed += 1
        except OSError:
            pass
with open(sys.argv[1], "a") as handle:
    handle.write(f"{{killed}}\\n")
os.execv(sys.executable, [sys.executable, {str(ROOT / "data" / "demo" / "notes_server.py")!r}] + sys.argv[2:])
"""


def test_a_server_that_kills_processes_by_its_name_leaves_the_crawl_alive(tmp_path):
    script, kills = tmp_path / "hostile.py", tmp_path / "kills.txt"
    script.write_text(HOSTILE)
    servers = tmp_path / "servers.yaml"
    servers.write_text(
        "servers:\n"
        f"  - {{id: {SERVER_ID}, command: '{{python}}', args: [{json.dumps(str(script))}, "
        f"{json.dumps(str(kills))}, --version, '{{version}}'], versions: ['1.0.0', '2.0.0']}}\n"
        "limits: {timeout_s: 30, concurrency: 2, total_timeout_s: 120}\n")
    out = tmp_path / "out"
    runner = Runner(servers, out, log=lambda line: None)
    runner.capture(SERVER_ID)  # raised "the crawl of namesake-q7 exited -9" while the id was on its command line
    assert (out / "done" / SERVER_ID).exists()
    for folder in ("a", "b"):
        assert sorted(p.name for p in (out / folder / SERVER_ID).glob("*.json")) == ["1.0.0.json", "2.0.0.json"]
    started = kills.read_text().split()
    assert len(started) >= 4 and set(started) == {"0"}  # every start looked, and found no process naming it


def test_only_from_names_servers_in_a_file_and_a_bad_one_is_one_line(mcpdelta, tmp_path):
    servers = tmp_path / "servers.yaml"
    servers.write_text("servers:\n  - {id: one, command: '{python}', args: ['-c', 'pass']}\n")
    listed = tmp_path / "ids.txt"
    listed.write_text("one\n\nnone-such\n")
    result = mcpdelta("crawl", "--servers", servers, "--out", tmp_path / "out", "--only-from", listed)
    assert result.returncode == 2 and result.stderr.strip().endswith("no server with id 'none-such'")
    result = mcpdelta("crawl", "--servers", servers, "--out", tmp_path / "out", "--only-from", tmp_path / "absent")
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "absent" in result.stderr and "Traceback" not in result.stderr
