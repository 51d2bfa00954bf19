"""One writer per lake: an advisory lock on ``LAKE/.lock``.

Every command that appends to a lake holds it for the whole run (survey,
ingest, study, the judge stage, the flows). A second writer fails at once
with one line naming the holder (pid and host), or with ``wait=True`` waits
until the first one ends. The lock is ``flock`` on the open file, so the
kernel drops it when its holder exits, however it dies: a stale lock file
is never a stale lock. The pid and host written into it only explain who
holds it.

Re-entrant within a process: a stage that takes the lock inside a command
that already holds it goes straight on.
"""

import contextlib
import errno
import fcntl
import os
import socket
import threading
import time

from mcpdelta.errors import InputError

LOCK_NAME = ".lock"
_held = {}          # lock path -> [fd, depth]
_guard = threading.Lock()


@contextlib.contextmanager
def writer_lock(base: str, wait: bool = False, notify=None):
    """Hold the write lock of the lake at folder ``base`` (created if
    missing). ``notify(line)`` is told once when the call has to wait."""
    path = os.path.join(base, LOCK_NAME)
    with _guard:
        if path in _held:
            _held[path][1] += 1
            reentered = True
        else:
            reentered = False
    if reentered:
        try:
            yield
        finally:
            with _guard:
                _held[path][1] -= 1
        return
    fd = _open(base, path)
    try:
        _acquire(fd, path, wait, notify)
        try:  # who holds it, for the line a second writer prints; the lock works without
            os.ftruncate(fd, 0)
            os.write(fd, f"pid {os.getpid()} on {socket.gethostname()} since "
                         f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}\n".encode())
        except OSError:
            pass
        with _guard:
            _held[path] = [fd, 1]
        try:
            yield
        finally:
            with _guard:
                del _held[path]
    finally:
        os.close(fd)  # closing the file releases the lock


def _open(base, path) -> int:
    from mcpdelta.files import open_lock

    try:
        os.makedirs(base, exist_ok=True)
        return open_lock(path)  # never through a link: the lock file is written to
    except FileExistsError:
        raise InputError(base, "the lake is a file, not a folder") from None
    except NotADirectoryError:
        raise InputError(base, "the lake is a file, not a folder (or inside one)") from None
    except PermissionError:
        raise InputError(base, "the lake is read-only (permission denied)") from None
    except OSError as exc:
        if exc.errno == errno.EROFS:
            raise InputError(base, "the lake is read-only (a read-only file system)") from None
        raise InputError(base, f"cannot open the lake for writing: {exc.strerror or exc}") from None


def _acquire(fd, path, wait, notify):
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return
    except BlockingIOError:
        pass
    except OSError as exc:
        raise InputError(os.path.dirname(path), f"cannot lock the lake: {exc.strerror or exc}") from None
    holder = _holder(path)
    if not wait:
        raise InputError(os.path.dirname(path),
                         f"another mcpdelta is writing this lake ({holder}); "
                         "try again when it ends, or pass --wait")
    if notify:
        notify(f"mcpdelta: waiting for the lake {os.path.dirname(path)} ({holder})")
    fcntl.flock(fd, fcntl.LOCK_EX)


def _holder(path) -> str:
    from mcpdelta.safe import visible

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        try:
            text = os.read(fd, 200).decode("utf-8", "replace")
        finally:
            os.close(fd)
    except OSError:
        return "holder unknown"
    return visible(text.strip()) or "holder unknown"
