"""A pool worker ends at once when the pool shuts down: its heap is not
torn down object by object (the survey would wait for that), and what it
wrote to its output before is not lost. Real spawned worker processes."""

import os
import sys

from mcpdelta.survey import diffstage

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


def _finalize_at_exit(marker):
    """A multiprocessing finalizer with an exit priority: run by
    multiprocessing's exit clean-up (Python 3.13 runs that from atexit)."""
    import multiprocessing.util

    fd, write = os.open(marker, os.O_WRONLY | os.O_CREAT), os.write
    multiprocessing.util.Finalize(None, write, args=(fd, b"finalized"), exitpriority=10)
    return True


def test_a_pool_worker_still_runs_multiprocessing_s_exit_clean_up(tmp_path):
    marker = tmp_path / "finalized"
    pool = diffstage._pool(1)
    assert pool.submit(_finalize_at_exit, str(marker)).result()
    pool.shutdown(wait=True)
    assert marker.read_bytes() == b"finalized"


def test_without_the_early_end_the_teardown_would_run(tmp_path):
    """The check above can fail: a plain spawned process frees the object."""
    import multiprocessing

    marker = tmp_path / "torn-down"
    process = multiprocessing.get_context("spawn").Process(target=_hold_and_write, args=(str(marker),))
    process.start()
    process.join(60)
    assert process.exitcode == 0 and marker.read_bytes() == b"freed"


def test_batches_are_handed_over_at_a_short_switch_interval_then_it_is_restored(tmp_path):
    """While the survey diffs beside its pool, its other threads (which hand
    batches over) wait at most ``HANDOVER_S`` for the GIL; after the stage,
    the interpreter's interval is the one it had."""
    from mcpdelta.engine.policy import Policy
    from tests.survey.test_worker_death import _lake

    lake = _lake(tmp_path / "lake", servers=4, versions=6)
    during = []
    before = sys.getswitchinterval()
    stats = diffstage.run_diff_stage(lake, Policy(witness="never"), workers=2, batch_size=5,
                                     on_batch=lambda _: during.append(sys.getswitchinterval()))
    assert stats["pairs_diffed"] == 4 * 5 and len(during) == 4
    assert set(during) == {diffstage.HANDOVER_S} != {before}
    assert sys.getswitchinterval() == before


def test_overlapping_stages_restore_the_interval_the_first_one_found():
    """Two stages in one process (threads of a flow), the first ending
    before the second: the interval stays short until the last one ends,
    then is the one from before either began."""
    before = sys.getswitchinterval()
    second = diffstage.quick_handovers()
    try:
        with diffstage.quick_handovers():
            second.__enter__()
        assert sys.getswitchinterval() == diffstage.HANDOVER_S
    finally:
        second.__exit__(None, None, None)
    assert sys.getswitchinterval() == before
