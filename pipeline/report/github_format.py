"""GitHub Actions workflow commands: one annotation per unsuppressed change.

``::error`` at or above the failure threshold, ``::warning`` for other
possible breaks, ``::notice`` for the rest."""

from pipeline.report import headline


def _escape(text: str, prop: bool = False) -> str:
    text = str(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if prop else text


def annotation_lines(result, source: str | None = None) -> list[tuple[str, str]]:
    """(level, workflow command) for each unsuppressed change, located at
    ``source`` (default: the new side)."""
    lines = []
    file = _escape(source or result.new_source, prop=True)
    for c in result.changes:
        if c.suppressed:
            continue
        if result.policy.fails(c):
            command = "error"
        elif c.severity in ("BREAKING", "POTENTIALLY_BREAKING"):
            command = "warning"
        else:
            command = "notice"
        title = _escape(f"{c.severity} {c.rule}", prop=True)
        lines.append((command, f"::{command} file={file},title={title}::{_escape(c.message + ' ' + c.path)}"))
    return lines


def render(result, **_) -> str:
    lines = [line for _, line in annotation_lines(result)]
    lines.append(f"mcpdelta: {headline(result)}; grade {result.grade}; {result.verdict}")
    return "\n".join(lines) + "\n"
