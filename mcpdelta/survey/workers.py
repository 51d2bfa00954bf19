"""A diff stage's pool worker, from its start to its end: it dies with the
survey that started it, loads no numpy, and ends without freeing its heap
object by object. The pool starts workers by spawn, so each imports this
small module for its initializer before anything heavy."""

import os
import sys


PR_SET_PDEATHSIG = 1


def init_worker(parent_pid):
    """Pool worker initializer: die with the survey, diff without numpy,
    and end at once when the pool shuts down. A worker reads and writes
    Parquet and never builds an array, and pyarrow (17 on) imports numpy
    only when it can: most of pyarrow's import, about 0.2 s of CPU a
    worker."""
    import atexit

    die_with_parent(parent_pid)
    sys.modules.setdefault("numpy", None)  # an import of numpy now fails at once
    atexit.register(_end_now)  # before the teardown (and the handlers registered before it)


def _end_now():
    """A pool worker's exit, without the interpreter freeing its heap object
    by object (its batches' caches: about 0.2 s that the survey waits for
    in ``shutdown``). Every batch it took is written and renamed into place
    or reported failed by then, multiprocessing has flushed its output, and
    the pool reads no exit code. multiprocessing's own exit clean-up (its
    finalizers) runs first: Python 3.13 leaves it to atexit, where this
    handler, registered later, would run before it (it runs once)."""
    from multiprocessing import util

    util._exit_function()
    os._exit(0)


def die_with_parent(parent_pid):
    """End this pool worker when the survey that started it dies, however it
    dies (SIGKILL included), so no orphan goes on diffing and writing
    batches a re-run will diff again. Linux: the kernel sends SIGKILL on the
    parent's death (prctl PR_SET_PDEATHSIG); elsewhere, and for a parent
    already gone, a watchdog thread polls the parent pid."""
    import signal
    import sys
    import threading

    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # pragma: no cover - no prctl: the watchdog alone
            pass
    if os.getppid() != parent_pid:  # died before prctl took effect
        os._exit(1)

    def watch():
        import time

        while os.getppid() == parent_pid:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="parent-watchdog", daemon=True).start()
