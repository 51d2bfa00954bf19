"""Fixtures of the crawler tests: real servers on real pipes and loopback HTTP."""

import asyncio
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mcpdelta.crawl.model import Limits, Target
from mcpdelta.crawl.packages import PackageCache
from mcpdelta.crawl.runner import crawl

HERE = Path(__file__).resolve().parent
SERVERS = HERE / "servers"
FAULT_STDIO = str(SERVERS / "fault_stdio.py")
REPO = HERE.parent.parent
DEMO = REPO / "data" / "demo"


def fast_limits(**overrides) -> Limits:
    limits = Limits(start_timeout_s=10, request_timeout_s=10, total_timeout_s=60, backoff_s=0.05,
                    kill_grace_s=0.2)
    for key, value in overrides.items():
        setattr(limits, key, value)
    return limits


def stdio_target(mode: str, id_: str | None = None, **kw) -> Target:
    return Target(id=id_ or f"fault-{mode}", transport="stdio", command=sys.executable,
                  args=[FAULT_STDIO, mode], **kw)


def run_crawl(targets, out_dir, limits=None, cache_dir=None, offline=True):
    cache = PackageCache(cache_dir or (Path(out_dir) / ".cache"), 600, offline=offline)
    return asyncio.run(crawl(targets, limits or fast_limits(), out_dir, cache=cache))


def only(records):
    assert len(records) == 1, records
    return records[0]


def alive(pid: int) -> bool:
    """True if the process exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            state = fh.read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def _wait_port(port: int, proc: subprocess.Popen, what: str) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited early: {proc.stderr.read() if proc.stderr else ''}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{what} did not listen on {port}")


def _stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="session")
def fault_http():
    """Base URL of the hand-written HTTP fault server (one process per session)."""
    proc = subprocess.Popen([sys.executable, str(SERVERS / "fault_http.py")], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    assert line.startswith("PORT "), line
    port = int(line.split()[1])
    _wait_port(port, proc, "fault_http.py")
    yield f"http://127.0.0.1:{port}"
    _stop(proc)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def demo_notes_http():
    """The demo notes server 1.1.0 (official mcp SDK) over Streamable HTTP."""
    port = _free_port()
    proc = subprocess.Popen([sys.executable, str(DEMO / "notes_server.py"), "--version", "1.1.0",
                             "--transport", "streamable-http", "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=DEMO)
    _wait_port(port, proc, "notes_server.py")
    yield f"http://127.0.0.1:{port}/mcp"
    _stop(proc)


@pytest.fixture(scope="session")
def demo_crawl(tmp_path_factory):
    """The embedded demo servers crawled once through the real CLI."""
    from mcpdelta.cli import main

    out = tmp_path_factory.mktemp("demo-crawl")
    rc = main(["crawl", "--servers", str(REPO / "data" / "servers" / "demo.yaml"), "--out", str(out)])
    return rc, out


# Servers inherit the environment: this marker tells this run's processes from
# those of any other test run on the machine.
RUN_MARK = f"MCPDELTA_CRAWL_TEST_RUN={os.getpid()}".encode()
os.environ["MCPDELTA_CRAWL_TEST_RUN"] = str(os.getpid())


def crawler_processes() -> list[str]:
    """Processes of this test run still running, or never reaped, except the session servers."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                state, ppid = fh.read().rsplit(")", 1)[1].split()[:2]
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                cmd = fh.read().replace(b"\0", b" ").decode("utf-8", "replace")
            with open(f"/proc/{entry}/environ", "rb") as fh:
                ours = RUN_MARK in fh.read().split(b"\0")
        except OSError:
            continue
        if "fault_http.py" in cmd or "streamable-http" in cmd:
            continue  # the session-scoped HTTP servers
        if (ours and state != "Z") or (state == "Z" and int(ppid) == os.getpid()):
            found.append(f"{entry} state={state} ppid={ppid}: {cmd[:120]}")
    return found


@pytest.fixture
def no_leftovers():
    """After the test, no server the crawler started may still run, nor be left unreaped."""
    yield
    left = crawler_processes()
    assert not left, f"processes left behind: {left}"
