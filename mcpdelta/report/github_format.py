"""GitHub Actions workflow commands: one annotation per unsuppressed change,
within GitHub's limits, then one summary line.

``::error`` at or above the failure threshold, ``::warning`` for other
possible breaks, ``::notice`` for the rest. GitHub shows at most 10
annotations of each kind per step; the rest would be dropped silently, so
past ``max_annotations`` of a kind the summary line counts what was left
out instead. ``mcpdelta ci`` applies the same cap across all its servers."""

from mcpdelta.gate.verdict import of, security_notes
from mcpdelta.report import headline
from mcpdelta.report.view import approval_text, message
from mcpdelta.safe import visible, workflow_message, workflow_property

MAX_ANNOTATIONS = 10
KINDS = ("error", "warning", "notice")


def annotation_lines(result, source: str | None = None) -> list[tuple[str, str]]:
    """(kind, workflow command) for every unsuppressed change, located at
    ``source`` (default: the new side)."""
    lines = []
    gate = of(result)
    file = workflow_property(source or result.new_source)
    for c in result.changes:
        if c.suppressed:
            continue
        flagged = security_notes(c)
        mark = gate.mark(c)
        if gate.fails(result.policy, c):
            kind = "error"
        elif gate.approved(c):
            kind = "notice"
        elif c.severity in ("BREAKING", "POTENTIALLY_BREAKING") or flagged:
            kind = "warning"
        else:
            kind = "notice"
        title = f"{c.severity} {c.rule}" + (" (approved)" if gate.approved(c) else "") \
            + (" security-relevant" if flagged else "")
        text = message(c) + " " + c.path
        if mark is not None:
            text += f" ({approval_text(mark)})"
        if flagged:
            text += f" (judge, security-relevant: {flagged[-1].get('summary', '')})"
        lines.append((kind, f"::{kind} file={file},title={workflow_property(title)}::{workflow_message(text)}"))
    return lines


def cap(lines, max_annotations: int = MAX_ANNOTATIONS) -> tuple[list[str], str | None]:
    """The first ``max_annotations`` lines of each kind, and a note counting
    the rest (None when nothing was left out)."""
    written, left, kept = dict.fromkeys(KINDS, 0), dict.fromkeys(KINDS, 0), []
    for kind, line in lines:
        if written[kind] >= max_annotations:
            left[kind] += 1
        else:
            written[kind] += 1
            kept.append(line)
    if not any(left.values()):
        return kept, None
    counts = ", ".join(f"{n} {kind}{'s' if n != 1 else ''}" for kind, n in left.items() if n)
    return kept, f"{counts} not annotated (GitHub shows {max_annotations} of each kind per step)"


def render(result, max_annotations: int = MAX_ANNOTATIONS, **_) -> str:
    lines, left = cap(annotation_lines(result), max_annotations)
    summary = f"mcpdelta: {headline(result)}; grade {result.grade}; {result.verdict}"
    if left:
        summary += f"; {left}; --format json lists every change"
    lines.append(visible(summary))
    return "\n".join(lines) + "\n"
