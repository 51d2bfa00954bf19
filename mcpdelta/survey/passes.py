"""Both capture passes of a servers file into a capture folder, server by
server, resumable: the ecosystem survey's crawl.

For each server of the servers file not yet done, in the file's order:

1. pass A: ``mcpdelta crawl`` of its releases into ``OUT/a`` (installs kept
   in ``OUT/cache``);
2. the SDK check (optional): its latest captured release listed again with
   the official SDK client (``bench/sdk_check.py``) into ``OUT/sdk-check.tsv``;
3. pass B: the same releases again, offline from pass A's installs, under a
   second client identity, into ``OUT/b``, each install freed once captured;
4. ``OUT/done/<id>`` marks the server finished.

Stopped at any point (SIGTERM or SIGINT), the running crawl ends its
servers and exits; the next run skips every server marked done and, within
a server, every release a pass already captured (a server stopped before
its second pass has its first pass finished, then its second). The
servers file is read again before each server, so it may be regenerated
while a run goes on: a server it no longer lists is passed over, one it
newly lists is crawled. ``OUT`` is laid out as ``mcpdelta/survey/pack.py``
packs it (the first runner's folders).
"""

from __future__ import annotations

import datetime as dt
import os
import signal
import subprocess
import sys
from pathlib import Path

from mcpdelta.errors import InputError

# the client the second pass captures as (the study's and the population crawl's)
SECOND_PASS = {"name": "mcpdelta-survey-second-pass", "version": "0.0.2"}
# no browser or GPU runtime download at install: a server lists its tools
# without them, and the crawl machine reaches only the package registries
INSTALL_SKIPS = {"PUPPETEER_SKIP_DOWNLOAD": "1", "PUPPETEER_SKIP_CHROMIUM_DOWNLOAD": "1",
                 "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD": "1", "ONNXRUNTIME_NODE_INSTALL_CUDA": "skip"}
# every key a recipe names is a dummy
CRAWL_ENV = {"MCPDELTA_DUMMY_TOKEN": "mcpdelta-dummy-not-a-secret", **INSTALL_SKIPS}
RUNNERS: list = []      # this process's runners, for stop_all
STOPPED = (128 + signal.SIGTERM, 128 + signal.SIGINT, -signal.SIGTERM, -signal.SIGINT)


def stop_all(signum=signal.SIGTERM, _frame=None) -> None:
    """A signal handler: every runner of this process stops."""
    for runner in RUNNERS:
        runner.stop(signum)


class Stopped(Exception):
    """The run was stopped (by a signal): resumable where it stopped."""


class Runner:
    """One runner over one capture folder; ``stop`` ends the crawl it is
    running and every later step."""

    def __init__(self, servers_file, out, concurrency: int = 2, sdk_check=None, log=None):
        self.servers_file, self.out = str(servers_file), Path(out)
        self.concurrency, self.sdk_check = concurrency, sdk_check
        self.log = log or (lambda line: print(line, flush=True))
        self.child: subprocess.Popen | None = None
        self.stopped = False
        RUNNERS.append(self)

    def pending(self) -> list[str]:
        """The ids the servers file lists, in its order, not yet done."""
        from mcpdelta.crawl.servers import load

        done = self.out / "done"
        return [i for i in dict.fromkeys(t.id for t in load(self.servers_file)[0]) if not (done / i).exists()]

    def stop(self, signum=signal.SIGTERM, _frame=None) -> None:
        self.stopped = True
        if self.child is not None and self.child.poll() is None:
            self.child.send_signal(signum)

    def _run(self, argv: list[str]) -> int:
        if self.stopped:
            raise Stopped()
        env = {**CRAWL_ENV, **{k: v for k, v in os.environ.items() if k in CRAWL_ENV}}
        self.child = subprocess.Popen(argv, env={**os.environ, **env})
        try:
            rc = self.child.wait()
        finally:
            if self.child.poll() is None:   # interrupted otherwise: the crawl still ends its servers
                self.child.terminate()
                self.child.wait()
            self.child = None
        if self.stopped or rc in STOPPED:
            raise Stopped()
        return rc

    def _only(self, server_id: str) -> str:
        """A file naming ``server_id`` for the crawl: its id on the crawl's
        command line let an install script that kills every process naming
        its package (gasoline-mcp's ``pgrep -af gasoline``) end the run."""
        path = self.out / "only.txt"
        self.out.mkdir(parents=True, exist_ok=True)
        path.write_text(server_id + "\n", encoding="utf-8")
        return str(path)

    def _crawl(self, server_id: str, folder: str, *extra: str) -> None:
        rc = self._run([sys.executable, "-m", "mcpdelta", "crawl", "--servers", self.servers_file,
                        "--out", str(self.out / folder), "--cache", str(self.out / "cache"),
                        "--only-from", self._only(server_id), "--concurrency", str(self.concurrency), *extra])
        if rc not in (0, 1):        # 0: all captured, 1: some failed (each logged)
            raise InputError(self.servers_file, f"the crawl of {server_id} exited {rc}")

    def capture(self, server_id: str) -> None:
        """Both passes of one server, then its done marker."""
        self.log(f"== {dt.datetime.now(dt.timezone.utc):%Y-%m-%dT%H:%M:%SZ} {server_id}")
        self._crawl(server_id, "a")
        if self.sdk_check:          # its failure is its own row, never the crawl's
            self._run([sys.executable, str(self.sdk_check), self.servers_file, str(self.out / "a"),
                       str(self.out / "sdk-check.tsv"), "--cache", str(self.out / "cache"),
                       "--only-from", self._only(server_id)])
        self._crawl(server_id, "b", "--offline", "--client-name", SECOND_PASS["name"],
                    "--client-version", SECOND_PASS["version"], "--release-installs")
        (self.out / "done").mkdir(parents=True, exist_ok=True)
        (self.out / "done" / server_id).touch()
