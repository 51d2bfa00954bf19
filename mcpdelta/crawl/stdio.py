"""stdio transport: spawn the server, newline-delimited JSON-RPC on its pipes.

The server runs in its own session (process group), carries a mark in its
environment that its descendants inherit, and is confined (``confine.py``:
its own cgroup where the machine allows, else a recorded scan of its
descendants); ``close`` closes stdin, gives it ``kill_grace_s`` to exit,
then signals the whole group (SIGTERM, then SIGKILL), kills every process
that still carries the mark (a child that called ``setsid`` or
double-forked out of the group), then every process still in its
confinement (one that also cleared its environment), and reaps the child,
so nothing it spawned (npx -> node) outlives the capture. ``kill_all`` does
the same synchronously for every live transport (the crawl's SIGTERM/SIGINT).

stdout lines that are not JSON-RPC (banners, log lines) are skipped and
counted, as the official SDK client does, up to ``limits.max_noise_lines``.
stderr is drained continuously, the capture's secrets redacted on the raw
bytes before its tail is cut, and only that tail is kept.
"""

from __future__ import annotations

import asyncio
import errno
import os
import signal
import uuid

from . import jsonrpc
from .confine import Confinement
from .errors import CrawlError, cause, short
from .model import Limits
from .redact import current_secrets, redact

MARK = "MCPDELTA_CAPTURE"
LIVE: set["StdioTransport"] = set()   # transports whose server may still run


class StdioTransport:
    remote = False

    def __init__(self, command: str, args: list[str], env: dict[str, str] | None,
                 cwd: str | None, limits: Limits):
        self.command, self.args, self.env, self.cwd = command, list(args), env or {}, cwd
        self.limits = limits
        self.proc: asyncio.subprocess.Process | None = None
        self.bytes_read = 0
        self.noise_lines = 0                  # non-JSON stdout lines skipped
        self.noise_sample: str | None = None  # the first of them
        self.mark = uuid.uuid4().hex
        self.confinement: Confinement | None = None
        self._secrets = current_secrets()
        self._stderr = bytearray()
        self._stderr_task: asyncio.Task | None = None

    # -- life cycle -------------------------------------------------------
    async def start(self) -> None:
        env = dict(os.environ)
        env.update(self.env)
        env[MARK] = self.mark
        self.confinement = Confinement(self.mark)
        LIVE.add(self)
        try:
            self.proc = await asyncio.create_subprocess_exec(
                self.command, *self.args,
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE, env=env, cwd=self.cwd,
                start_new_session=True, limit=self.limits.max_message_bytes,
                preexec_fn=self.confinement.preexec(),
            )
        except OSError as exc:
            self.confinement.release()
            self.confinement = None
            why = exc.strerror or str(exc)
            if exc.errno == errno.ENOEXEC:  # a script the kernel cannot run: no "#!" line
                why += " (the file does not start with a #! line naming its interpreter)"
            elif exc.errno == errno.ENOENT and os.path.islink(where := os.path.join(self.cwd or "", self.command)):
                why += f" (a link to {os.readlink(where)!r}, which does not exist)"
            elif exc.errno == errno.ENOENT and self.cwd and not os.path.isabs(self.command) and "/" in self.command:
                why += f" (looked for in {self.cwd!r}, the server's folder)"
            raise CrawlError("spawn_failed", f"cannot start {self.command!r}: {why}") from None
        self.confinement.started(self.proc.pid)
        self._stderr_task = asyncio.create_task(self._drain_stderr())

    async def _drain_stderr(self) -> None:
        assert self.proc and self.proc.stderr
        keep = self.limits.stderr_tail_bytes
        while True:
            chunk = await self.proc.stderr.read(65536)
            if not chunk:
                return
            self._stderr += chunk
            if self._secrets:  # before the cut below, so no secret is ever halved by it
                self._stderr[:] = redact(bytes(self._stderr), self._secrets)
            if len(self._stderr) > keep:
                del self._stderr[: len(self._stderr) - keep]

    def stderr_tail(self) -> str:
        return redact(self._stderr.decode("utf-8", "replace"), self._secrets, edges=True) or ""

    async def close(self) -> None:
        proc = self.proc
        if proc is None:
            LIVE.discard(self)
            return
        self.confinement.record(proc.pid)  # the scan's record, taken while the tree is whole
        if proc.stdin and not proc.stdin.is_closing():
            proc.stdin.close()
        if proc.returncode is None:
            try:
                await asyncio.wait_for(proc.wait(), self.limits.kill_grace_s)
            except (asyncio.TimeoutError, TimeoutError):
                pass
        # Signal the group even when the leader exited: its children may not have.
        for sig, wait in ((signal.SIGTERM, 1.0), (signal.SIGKILL, None)):
            try:
                os.killpg(proc.pid, sig)
            except (ProcessLookupError, PermissionError):
                break
            if wait and proc.returncode is None:
                try:
                    await asyncio.wait_for(proc.wait(), wait)
                except (asyncio.TimeoutError, TimeoutError):
                    pass
        else:  # SIGKILL was sent: give the kernel a moment to finish the group off
            for _ in range(50):
                if not _group_running(proc.pid):
                    break
                await asyncio.sleep(0.02)
        kill_marked(self.mark)
        self.confinement.end(proc.pid)
        await proc.wait()
        self.confinement.release()
        LIVE.discard(self)
        transport = getattr(proc, "_transport", None)
        if transport is not None:  # release the pipes now, not at garbage collection
            transport.close()
        if self._stderr_task:
            try:
                await asyncio.wait_for(self._stderr_task, 1.0)
            except (asyncio.TimeoutError, TimeoutError, Exception):
                self._stderr_task.cancel()

    # -- messages ---------------------------------------------------------
    async def _write(self, msg: dict) -> None:
        assert self.proc and self.proc.stdin
        try:
            self.proc.stdin.write(jsonrpc.encode(msg) + b"\n")
            await self.proc.stdin.drain()
        except (BrokenPipeError, ConnectionResetError):
            raise await self._exited("while the crawler was writing") from None

    async def _exited(self, when: str) -> CrawlError:
        assert self.proc
        try:
            await asyncio.wait_for(self.proc.wait(), 1.0)
        except (asyncio.TimeoutError, TimeoutError):
            pass
        if self._stderr_task is not None and self.proc.returncode is not None:
            try:  # let the last stderr lines arrive
                await asyncio.wait_for(asyncio.shield(self._stderr_task), 0.5)
            except (asyncio.TimeoutError, TimeoutError):
                pass
        status = self.proc.returncode
        what = f"exited with status {status}" if status is not None else "closed its output"
        why = cause(self.stderr_tail())
        tail = f"; stderr: {why}" if why else ""
        return CrawlError("server_exited", f"server {what} {when}{tail}")

    async def _read(self) -> list[dict]:
        assert self.proc and self.proc.stdout
        while True:
            try:
                line = await self.proc.stdout.readuntil(b"\n")
            except asyncio.IncompleteReadError as exc:
                when = "in the middle of a message" if exc.partial.strip() else "before answering"
                raise await self._exited(when) from None
            except asyncio.LimitOverrunError:
                raise CrawlError("too_large", f"a message is over {self.limits.max_message_bytes} bytes") from None
            except ValueError:
                raise CrawlError("too_large", f"a message is over {self.limits.max_message_bytes} bytes") from None
            self.bytes_read += len(line)
            if self.bytes_read > self.limits.max_server_bytes:
                raise CrawlError("too_large", f"server output is over {self.limits.max_server_bytes} bytes")
            if not line.strip():
                continue
            try:
                return jsonrpc.decode(line, "stdout line")
            except CrawlError as exc:
                if exc.kind != "protocol_error":  # JSON over a bound fails the capture
                    raise
                # a banner or a log line on stdout: skipped, as the SDK client does
                self.noise_lines += 1
                if self.noise_sample is None:
                    self.noise_sample = short(line.decode("utf-8", "replace"), 120)
                if self.noise_lines > self.limits.max_noise_lines:
                    raise CrawlError("protocol_error", f"over {self.limits.max_noise_lines} stdout lines are not "
                                                       f"JSON-RPC (the first: {self.noise_sample!r})") from None

    async def notify(self, msg: dict) -> None:
        await self._write(msg)

    async def request(self, msg: dict) -> dict:
        await self._write(msg)
        while True:
            for item in await self._read():
                if jsonrpc.is_response(item) and item.get("id") == msg["id"]:
                    return item
                if jsonrpc.is_server_request(item):
                    await self._write(jsonrpc.answer_server_request(item))
                # notifications (logging, list_changed) and stray responses: skip


def _marked(mark: str) -> list[int]:
    """Pids of live processes whose environment carries ``MARK=mark`` (Linux /proc)."""
    if not os.path.isdir("/proc"):
        return []
    needle = f"{MARK}={mark}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as fh:
                if needle in fh.read().split(b"\0"):
                    found.append(int(entry))
        except OSError:
            continue
    return found


def kill_marked(mark: str) -> None:
    """SIGKILL every process of one capture that left its process group."""
    for _ in range(3):  # a forking process may add one between the scan and the kill
        pids = _marked(mark)
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


def kill_all() -> None:
    """End every server still running, at once (the crawl is being stopped)."""
    for transport in list(LIVE):
        if transport.proc is not None:
            transport.confinement.record(transport.proc.pid)
            try:
                os.killpg(transport.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            kill_marked(transport.mark)
            transport.confinement.end(transport.proc.pid)
            transport.confinement.release()
        else:
            kill_marked(transport.mark)
    LIVE.clear()


def _group_running(pgid: int) -> bool:
    """Does any non-zombie process remain in the group? (Linux /proc; else: signal 0)"""
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    if not os.path.isdir("/proc"):
        return True
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False
