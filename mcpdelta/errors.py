"""User-facing errors: one line that names the thing and the problem.

The CLI turns an ``InputError`` into that line on stderr and exit status 2.
Anything else escaping is a bug in mcpdelta, not a user mistake.
"""


class InputError(Exception):
    """Bad usage or unreadable input (a file, a config, a server list)."""

    def __init__(self, where: str, problem: str):
        super().__init__(f"{where}: {problem}" if where else problem)
        self.where = where
        self.problem = problem

    def __reduce__(self):  # raised in a worker process, re-raised in its parent
        return (type(self), (self.where, self.problem))


def describe_os_error(exc: OSError) -> str:
    """One line for a file-system failure the command did not anticipate
    (a read-only or full report folder, a file where a folder should be):
    the path, then what is wrong."""
    import errno
    import os

    where = os.fsdecode(exc.filename) if exc.filename is not None else ""
    problem = {
        errno.ENOSPC: "no space left on the device",
        errno.EROFS: "read-only file system",
        errno.EACCES: "permission denied (read-only?)",
        errno.EPERM: "permission denied (read-only?)",
        errno.EEXIST: "a file stands where a folder should be",
        errno.ENOTDIR: "a file stands where a folder should be",
        errno.EISDIR: "is a folder, not a file",
        errno.ENOENT: "no such file or folder",
        errno.ELOOP: "symbolic link loop",
        errno.EFBIG: "file too large (a file-size limit)",
    }.get(exc.errno, exc.strerror or str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
    return f"{where}: {problem}" if where else problem
