"""Stage-by-stage progress for the long commands, on a terminal only.

A command opens ``display()`` around its work; the pipeline marks stages
with ``stage(name)`` and reports counts with ``update`` / ``finish``. With
no display open (stderr is not a terminal, a library caller, a Prefect
flow) every call is a no-op, so nothing reaches a pipe or a log. The
display writes to stderr only: stdout stays the command's result (a
``--format json`` object is never interleaved with progress)."""

import contextlib
import os
import sys
import time

from mcpdelta.safe import visible

_active = None  # the open display of this process, if any


class _Display:
    def __init__(self):
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        class Elapsed(TextColumn):  # the stage's own time, frozen when it ends
            def render(self, task):
                from rich.text import Text

                end = task.fields.get("ended") or time.perf_counter()
                return Text(f"{end - task.fields['began']:6.1f} s", style="progress.elapsed")

        self.bar = Progress(TextColumn("{task.fields[mark]}"), TextColumn("{task.fields[name]:<10}"),
                            BarColumn(bar_width=24), MofNCompleteColumn(), Elapsed(""),
                            TextColumn("{task.description}"),
                            console=Console(stderr=True), redirect_stdout=False, transient=False)
        self.task = None

    def stage(self, name, detail=""):
        self.finish()
        self.task = self.bar.add_task(plain(detail), total=None, name=name, mark="…", began=time.perf_counter(),
                                      ended=None)

    def update(self, detail=None, done=None, total=None):
        if self.task is None:
            return
        fields = {}
        if detail is not None:
            fields["description"] = plain(detail)
        if total is not None:
            fields["total"] = total
        if done is not None:
            fields["completed"] = done
        self.bar.update(self.task, **fields)

    def finish(self, detail=None):
        if self.task is None:
            return
        task = self.bar.tasks[-1]
        done = {"completed": task.total} if task.total is not None else {"total": 1, "completed": 1}
        self.bar.update(self.task, mark="✓", ended=time.perf_counter(), **done,
                        **({"description": plain(detail)} if detail is not None else {}))
        self.bar.stop_task(self.task)
        self.task = None


def plain(text) -> str:
    """A detail as terminal text: server ids and paths are neither control
    characters nor rich markup (``[link=...]``) on the way out."""
    from rich.markup import escape

    return escape(visible(text))


def enabled() -> bool:
    """Progress only for a person at a terminal (and not for TERM=dumb)."""
    return sys.stderr.isatty() and os.environ.get("TERM") != "dumb"


@contextlib.contextmanager
def display(on: bool | None = None):
    """Show stages on stderr for the duration, if stderr is a terminal."""
    global _active
    if _active is not None or not (enabled() if on is None else on):
        yield
        return
    _active = _Display()
    _active.bar.start()
    try:
        yield
    finally:
        _active.finish()
        _active.bar.stop()
        _active = None


def stage(name: str, detail: str = "") -> None:
    """Begin a stage (ending the one before, with its time)."""
    if _active is not None:
        _active.stage(name, detail)


def update(detail: str | None = None, done: int | None = None, total: int | None = None) -> None:
    if _active is not None:
        _active.update(detail, done, total)


def finish(detail: str | None = None) -> None:
    """End the current stage, with the counts it ends on."""
    if _active is not None:
        _active.finish(detail)


def crawl_callbacks() -> dict:
    """``progress`` and ``on_total`` for ``mcpdelta.crawl.runner.crawl``."""
    if _active is None:
        return {}

    def on_record(rec, done, total):
        update(f"{rec.id} {rec.version}: {'ok' if rec.ok else rec.error_kind}", done, total)

    return {"progress": on_record, "on_total": lambda total: update(done=0, total=total)}


def on_diff_batch(stats) -> None:
    """``on_batch`` for ``run_diff_stage``: pairs done of pairs to do."""
    done = stats["pairs_cached"] + stats["pairs_diffed"]
    update(f"{stats['pairs_diffed']} diffed, {stats['pairs_cached']} cached", done, stats["pairs"])
