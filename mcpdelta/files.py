"""Writing into folders someone else may have prepared: the one way to write.

The survey runs on a schedule, often as root, over folders other people can
touch (a lake, a crawl folder, a report folder). A symbolic link left where a
file or a temporary file will be written must never redirect the write, and
a half-written file must never stand under the final name. So:

    write_file(path, data)       a whole file: a fresh temporary name created
                                 exclusively in the target folder (O_EXCL,
                                 O_NOFOLLOW), written, fsynced, renamed over
                                 the final name (a link there is replaced,
                                 its target untouched), the folder fsynced
    replacing(path)              the same as a context: yields the open file
                                 (for writers that stream: Parquet, figures)
    open_append(path)            an existing or new log, opened to append
    open_lock(path)              a lock file, opened read-write
    make_folder(root, *parts)    root/part/... made as needed

``open_append`` and ``open_lock`` refuse a symbolic link, anything but a
regular file, and a file with other names (a hard link): they write into the
file itself. ``make_folder`` refuses a link or a file at any part below
``root`` (the root itself is the caller's choice). A refusal is an
``InputError`` naming the path; the file system's own failures stay
``OSError``.
"""

import contextlib
import errno
import os
import stat
import tempfile

from mcpdelta.errors import InputError

FILE_MODE = 0o644
_REFUSED = "is a symbolic link; mcpdelta never writes through one (remove it, or choose another path)"


def write_file(path, data) -> str:
    """Write ``data`` (bytes, or text as UTF-8) as the whole file at ``path``."""
    with replacing(path, binary=isinstance(data, (bytes, bytearray, memoryview))) as handle:
        handle.write(data)
    return os.fspath(path)


@contextlib.contextmanager
def replacing(path, binary: bool = True):
    """A new file that replaces ``path`` when the block ends without an
    error (and is removed when it does not)."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    name = os.path.basename(path)
    # mkstemp opens O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW: a fresh name, never a link's target
    fd, temporary = tempfile.mkstemp(dir=folder, prefix=f".{name[:64]}.", suffix=".tmp")
    try:
        os.fchmod(fd, FILE_MODE)
        handle = os.fdopen(fd, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8"}))
    except BaseException:
        os.close(fd)
        os.unlink(temporary)
        raise
    try:
        with handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)  # a link at ``path`` is replaced, not followed
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    _sync_folder(folder)


def _sync_folder(folder: str) -> None:
    """The rename itself reaches the disk (best effort: not every file system can)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _open_own(path, flags: int) -> int:
    """A descriptor on the regular file at ``path`` itself (created if
    missing): never through a link, never a FIFO or a device, never a file
    with other names."""
    path = os.fspath(path)
    flags |= os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags, FILE_MODE)
    except OSError as exc:
        if exc.errno == errno.ELOOP and os.path.islink(path):
            raise InputError(path, _REFUSED) from None
        if exc.errno == errno.ENXIO:  # a FIFO nobody reads
            raise InputError(path, "is a FIFO (named pipe), not a regular file; refused") from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise InputError(path, "is not a regular file (a FIFO, a device or a socket); refused")
        if info.st_nlink > 1:
            raise InputError(path, f"has {info.st_nlink - 1} other name(s) (a hard link); refused")
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_append(path):
    """The text file at ``path`` opened to append (created if missing)."""
    return os.fdopen(_open_own(path, os.O_WRONLY | os.O_APPEND), "a", encoding="utf-8")


def open_lock(path) -> int:
    """A read-write descriptor on the lock file at ``path`` (created if missing)."""
    return _open_own(path, os.O_RDWR)


def make_folder(root, *parts) -> str:
    """``root/parts...``, each part made if missing; ``InputError`` when a
    part is a symbolic link (a capture folder linked elsewhere would receive
    the capture) or a file. ``root`` is made too, and may be a link."""
    path = os.fspath(root)
    os.makedirs(path, exist_ok=True)
    for part in parts:
        path = os.path.join(path, part)
        try:
            os.mkdir(path)
            continue
        except FileExistsError:
            pass
        info = os.lstat(path)
        if stat.S_ISLNK(info.st_mode):
            raise InputError(path, _REFUSED)
        if not stat.S_ISDIR(info.st_mode):
            raise InputError(path, "a file stands where a folder should be")
    return path
