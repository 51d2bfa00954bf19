"""A pool worker ends at once when the pool shuts down: its heap is not
torn down object by object (the survey would wait for that), and what it
wrote to its output before is not lost. Real spawned worker processes."""

import os
import sys

from pipeline.survey import diffstage

_HELD = []  # in a worker: a module global, freed only by an interpreter's teardown


class _FreedAtTeardown:
    """Writes to ``marker`` when freed; what it calls is held from the start
    (a late teardown has cleared the modules' names)."""

    def __init__(self, marker):
        self.fd, self.write = os.open(marker, os.O_WRONLY | os.O_CREAT), os.write

    def __del__(self):
        self.write(self.fd, b"freed")


def _hold_and_write(marker):
    _HELD.append(_FreedAtTeardown(marker))
    sys.stdout.write("written by the worker, no newline")
    return len(_HELD)


def test_a_pool_worker_ends_without_a_teardown_and_keeps_its_output(tmp_path, capfd):
    marker = tmp_path / "torn-down"
    pool = diffstage._pool(1)
    assert pool.submit(_hold_and_write, str(marker)).result() == 1
    pool.shutdown(wait=True)
    assert "written by the worker, no newline" in capfd.readouterr().out
    assert marker.read_bytes() == b""


def test_without_the_early_end_the_teardown_would_run(tmp_path):
    """The check above can fail: a plain spawned process frees the object."""
    import multiprocessing

    marker = tmp_path / "torn-down"
    process = multiprocessing.get_context("spawn").Process(target=_hold_and_write, args=(str(marker),))
    process.start()
    process.join(60)
    assert process.exitcode == 0 and marker.read_bytes() == b"freed"
