"""GitHub Actions workflow commands: one annotation per unsuppressed change,
within GitHub's limits, then one summary line.

``::error`` at or above the failure threshold, ``::warning`` for other
possible breaks, ``::notice`` for the rest. GitHub shows at most 10
annotations of each kind per step; the rest would be dropped silently, so
past ``max_annotations`` of a kind the summary line counts what was left
out instead."""

from pipeline.report import headline
from pipeline.report.safe import visible
from pipeline.report.view import message

MAX_ANNOTATIONS = 10


def _escape(text: str, prop: bool = False) -> str:
    text = visible(text).replace("%", "%25")
    return text.replace(":", "%3A").replace(",", "%2C") if prop else text


def render(result, max_annotations: int = MAX_ANNOTATIONS, **_) -> str:
    lines = []
    written = {"error": 0, "warning": 0, "notice": 0}
    left = dict(written)
    for c in result.changes:
        if c.suppressed:
            continue
        if result.policy.fails(c):
            command = "error"
        elif c.severity in ("BREAKING", "POTENTIALLY_BREAKING"):
            command = "warning"
        else:
            command = "notice"
        if written[command] >= max_annotations:
            left[command] += 1
            continue
        written[command] += 1
        title = _escape(f"{c.severity} {c.rule}", prop=True)
        file = _escape(result.new_source, prop=True)
        lines.append(f"::{command} file={file},title={title}::{_escape(message(c) + ' ' + c.path)}")
    summary = f"mcpdelta: {headline(result)}; grade {result.grade}; {result.verdict}"
    if any(left.values()):
        counts = ", ".join(f"{n} {kind}{'s' if n != 1 else ''}" for kind, n in left.items() if n)
        summary += (f"; {counts} not annotated (GitHub shows {max_annotations} of each kind per step;"
                    " --format json lists every change)")
    lines.append(visible(summary))
    return "\n".join(lines) + "\n"
