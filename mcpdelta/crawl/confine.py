"""Every process a captured server starts ends with its capture, however it detaches.

A server runs in its own session, so signalling its process group ends what
stays in the group, and the environment mark (``stdio.MARK``) finds what
left the group but kept its environment. A process that double-forks, calls
``setsid`` and clears its environment escapes both. So each server is also
confined, the strongest way the machine allows:

- ``cgroup``: the server starts in a cgroup of its own (cgroup v2, made
  under mcpdelta's own cgroup: root, or a systemd-delegated user slice). A
  process cannot leave a cgroup by forking, ``setsid`` or a new environment;
  at the end the whole cgroup is killed (``cgroup.kill``) and removed.
- ``scan`` (no writable cgroup v2): the server is made a child subreaper,
  so a descendant whose parent exits is re-parented to the server instead
  of to init. Before the server is stopped its descendants are recorded by
  a scan of ``/proc`` (pid and start time); after it, every recorded
  process still running with the same start time is killed, so a reused
  pid is never hit. What this cannot see: a process that detached after
  the server itself died.

``MCPDELTA_CONFINE=scan`` chooses the scan where a cgroup would do (a
machine whose cgroups another tool manages). The number of processes ended
this way, beyond the server's own group, is recorded with the capture.
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import time

PR_SET_CHILD_SUBREAPER = 36
PREFIX = "mcpdelta-capture-"


@functools.cache
def _cgroup_root() -> str | None:
    """The folder of mcpdelta's own cgroup v2, if a child cgroup can be made there."""
    if os.environ.get("MCPDELTA_CONFINE") == "scan":
        return None
    try:
        with open("/proc/self/cgroup") as fh:
            own = next((line.strip()[3:] for line in fh if line.startswith("0::")), None)
        with open("/proc/self/mountinfo") as fh:
            mounts = [line.split() for line in fh]
    except OSError:
        return None
    mount = next((f[4] for f in mounts if "-" in f and f[f.index("-") + 1] == "cgroup2"), None)
    if own is None or mount is None:
        return None
    root = os.path.join(mount, own.lstrip("/"))
    probe = os.path.join(root, f"{PREFIX}probe-{os.getpid()}")
    try:
        os.mkdir(probe)
        os.rmdir(probe)
    except OSError:
        return None
    _remove_stale(root)
    return root


def _remove_stale(root: str) -> None:
    """Empty capture cgroups an earlier mcpdelta left (it was killed): rmdir
    removes only an empty one."""
    with contextlib.suppress(OSError):
        for name in os.listdir(root):
            if name.startswith(PREFIX):
                with contextlib.suppress(OSError):
                    os.rmdir(os.path.join(root, name))


class Confinement:
    """The confinement of one server (see the module docstring)."""

    def __init__(self, mark: str):
        root = _cgroup_root()
        self.cgroup = None
        if root is not None:
            path = os.path.join(root, PREFIX + mark)
            try:
                os.mkdir(path)
                self.cgroup = path
            except OSError:
                pass
        self.kind = "cgroup" if self.cgroup else "scan"
        self.ended = 0           # processes ended beyond the server's group
        self._recorded: dict[int, str] = {}

    def preexec(self):
        """The function the server's child runs before its exec."""
        procs = os.path.join(self.cgroup, "cgroup.procs").encode() if self.cgroup else None
        prctl = _prctl()  # looked up here: nothing is loaded between fork and exec

        def enter():
            if procs is not None:
                try:  # low-level calls only: this runs between fork and exec
                    fd = os.open(procs, os.O_WRONLY)
                    try:
                        os.write(fd, b"0")
                        return
                    finally:
                        os.close(fd)
                except OSError:
                    pass
            if prctl is not None:
                prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)  # kept across exec
        return enter

    def started(self, pid: int) -> None:
        """After the spawn: a server the cgroup did not take (its write was
        refused) falls back to the scan (its child already made itself a subreaper)."""
        if self.cgroup is not None and pid not in _pids_in(self.cgroup):
            self.release()
            self.cgroup, self.kind = None, "scan"

    def record(self, pid: int) -> None:
        """Before the server is stopped: its descendants, for the scan."""
        if self.cgroup is None:
            self._recorded = _descendants(pid)

    def end(self, pid: int) -> None:
        """After the server's group was signalled: end whatever is left."""
        if self.cgroup is not None:
            self._end_cgroup()
            return
        for child, started in self._recorded.items():
            fields = _stat(child)
            if child != pid and fields and fields[0] != "Z" and fields[19] == started:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(child, signal.SIGKILL)
                    self.ended += 1
        self._recorded = {}

    def _end_cgroup(self) -> None:
        left = _pids_in(self.cgroup)
        if left:
            self.ended += len(left)
            try:
                with open(os.path.join(self.cgroup, "cgroup.kill"), "w") as fh:
                    fh.write("1")
            except OSError:  # a kernel before 5.14: one by one, until none is left
                for _ in range(5):
                    for child in _pids_in(self.cgroup):
                        with contextlib.suppress(ProcessLookupError, PermissionError):
                            os.kill(child, signal.SIGKILL)
                    if not _pids_in(self.cgroup):
                        break
        for _ in range(100):  # dying processes leave the cgroup as the kernel finishes them
            if not _pids_in(self.cgroup):
                break
            time.sleep(0.01)

    def release(self) -> None:
        """Remove the capture's cgroup (once it is empty)."""
        if self.cgroup is not None:
            with contextlib.suppress(OSError):
                os.rmdir(self.cgroup)


@functools.cache
def _prctl():
    """libc's ``prctl`` (Linux), or None."""
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


def _pids_in(cgroup: str) -> list[int]:
    try:
        with open(os.path.join(cgroup, "cgroup.procs")) as fh:
            return [int(line) for line in fh if line.strip()]
    except OSError:
        return []


def _stat(pid) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def _descendants(pid: int) -> dict[int, str]:
    """Every live descendant of ``pid`` (by parent links in /proc), with its start time."""
    if not os.path.isdir("/proc"):
        return {}
    children: dict[int, list[int]] = {}
    started: dict[int, str] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        fields = _stat(entry)
        if fields is None or len(fields) <= 19 or fields[0] == "Z":
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
        started[int(entry)] = fields[19]
    found, todo = {}, [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found[child] = started[child]
                todo.append(child)
    return found
