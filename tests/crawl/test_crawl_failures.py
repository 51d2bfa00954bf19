"""What the crawl log says of a failure: the installer's line naming the
dependency and host, the time a failed install took, one attempt for what
cannot recover and another for what can, the line of a server's stderr that
names its error (against registry stand-ins on 127.0.0.1 and real servers)."""

import asyncio
import json
import shutil
import sys

import pytest

from mcpdelta.crawl.model import Target
from mcpdelta.crawl.packages import PackageCache
from mcpdelta.crawl.runner import crawl
from mcpdelta.crawl.servers import load

from .conftest import fast_limits, only, run_crawl
from .servers.local_index import LocalIndex
from .servers.local_npm import LocalNpm
from .test_crawl_sources import write

# .invalid never resolves (RFC 6761): a host this machine cannot reach, at once
GONE_HOST = "deps.mcpdelta.invalid"
GONE_TGZ = f"https://{GONE_HOST}/gone-1.0.0.tgz"


class FlakyNpm(LocalNpm):
    """Answers 503 to the first ``fail`` requests for one package file."""

    def __init__(self, flaky: str, fail: int):
        super().__init__()
        self.flaky, self.fail = flaky, fail

    def answer(self, path):
        if path == f"/-/{self.flaky}" and self.fail > 0:
            self.fail -= 1
            return 503, b"Service Unavailable", "text/plain"
        return super().answer(path)


@pytest.fixture
def npm(monkeypatch, tmp_path):
    if not shutil.which("npm"):
        pytest.skip("npm is not installed")
    reg = FlakyNpm("mcpdelta-fx-flaky-1.0.0.tgz", fail=1)
    reg.add("mcpdelta-fx-unreachable", "1.0.0", "2025-01-01T00:00:00.000Z",
            dependencies={"mcpdelta-fx-gone": GONE_TGZ}, server=True)
    reg.add("mcpdelta-fx-flaky", "1.0.0", "2025-01-01T00:00:00.000Z", server=True)
    reg.serve(monkeypatch, tmp_path)
    yield reg
    reg.stop()


def _sweep(tmp_path, entries: str, **cache_kw):
    targets, _ = load(write(tmp_path / "servers.yaml", "servers:\n" + entries))
    cache = PackageCache(tmp_path / "cache", 300, **cache_kw)
    records = asyncio.run(crawl(targets, fast_limits(total_timeout_s=300), tmp_path / "out", cache=cache))
    rows = [json.loads(line) for line in (tmp_path / "out" / "crawl-log.jsonl").read_text().splitlines()]
    return {r.id: r for r in records}, {r["id"]: r for r in rows}


def test_a_dependency_on_an_unreachable_host_is_one_attempt_named_and_timed(tmp_path, npm):
    by, rows = _sweep(tmp_path, """
  - {id: unreachable, package: {registry: npm, name: mcpdelta-fx-unreachable, versions: ["1.0.0"]}}
""")
    rec, row = by["unreachable"], rows["unreachable"]
    assert not rec.ok and rec.error_kind == "install_failed"
    # npm's own line names the dependency's URL and the host, in the error and the log
    assert f"request to {GONE_TGZ} failed" in rec.error and f"ENOTFOUND {GONE_HOST}" in rec.error
    assert any(GONE_HOST in line and "ENOTFOUND" in line for line in row["error_lines"])
    assert GONE_HOST in row["stderr_tail"]
    # one attempt: no retry of the install, no later cut-off, and none of npm's own
    # retries (a minute and more against a host it cannot resolve)
    assert not any("attempt" in w for w in rec.warnings) and rec.install_retry is None
    assert "first, as of its release" not in rec.error
    assert 0 < row["install_ms"] < 30_000
    # the install's time is in the record: install + capture split the duration
    assert row["capture_ms"] == 0 and row["install_ms"] <= row["duration_ms"] < row["install_ms"] + 1000


def test_a_registry_5xx_is_retried_and_the_retry_said(tmp_path, npm):
    by, _ = _sweep(tmp_path, """
  - {id: flaky, package: {registry: npm, name: mcpdelta-fx-flaky, versions: ["1.0.0"]}}
""")
    rec = by["flaky"]
    assert rec.ok, rec.error
    retries = [w for w in rec.warnings if w.startswith("install attempt 1:")]
    assert len(retries) == 1 and "E503" in retries[0], rec.warnings
    assert npm.requests.count(("/-/mcpdelta-fx-flaky-1.0.0.tgz", 503)) == 1


def test_an_unreachable_pypi_dependency_is_named_by_uv(tmp_path):
    if not shutil.which("uv") and not _bundled_uv():
        pytest.skip("uv is not installed")
    index = LocalIndex()
    index.add("mcpdelta-fx-pyunreachable", "1.0.0", "2025-01-01T00:00:00Z",
              requires=[f"mcpdelta-fx-gone @ https://{GONE_HOST}/mcpdelta_fx_gone-1.0.0-py3-none-any.whl"],
              server=True)
    index.start()
    try:
        by, rows = _sweep(tmp_path, """
  - {id: pyunreachable, package: {registry: pypi, name: mcpdelta-fx-pyunreachable, versions: ["1.0.0"]}}
""", pypi_url=index.url, python_installer="uv")
    finally:
        index.stop()
    rec, row = by["pyunreachable"], rows["pyunreachable"]
    assert not rec.ok and rec.error_kind == "install_failed"
    assert GONE_HOST in rec.error and GONE_HOST in row["stderr_tail"]
    assert not any("attempt" in w for w in rec.warnings) and rec.install_retry is None
    assert 0 < row["install_ms"] <= row["duration_ms"]


def _bundled_uv() -> bool:
    try:
        from uv import find_uv_bin

        return bool(find_uv_bin())
    except (ImportError, FileNotFoundError):
        return False


NODE_EADDRINUSE = r"""
import sys
sys.stderr.write('''node:events:497
      throw er; // Unhandled 'error' event
      ^

Error: listen EADDRINUSE: address already in use 127.0.0.1:3000
    at Server.setupListenHandle [as _listen2] (node:net:1872:16)
    at listenInCluster (node:net:1920:12)
Emitted 'error' event on Server instance at:
    at emitErrorNT (node:net:1899:8) {
  code: 'EADDRINUSE',
  errno: -98,
  syscall: 'listen',
  address: '127.0.0.1',
  port: 3000
}

Node.js v20.20.2
''')
sys.exit(1)
"""


def test_a_server_dying_of_eaddrinuse_is_reported_by_the_line_naming_the_address(tmp_path):
    target = Target(id="busy", transport="stdio", command=sys.executable, args=["-c", NODE_EADDRINUSE])
    rec = only(run_crawl([target], tmp_path / "out"))
    assert not rec.ok and rec.error_kind == "server_exited"
    assert rec.error.endswith("stderr: Error: listen EADDRINUSE: address already in use 127.0.0.1:3000"), rec.error
    assert "code: 'EADDRINUSE'," not in rec.error_lines
    assert not any(attempt in w for w in rec.warnings for attempt in ("attempt 2", "retried"))
