"""GitHub Actions workflow commands: one annotation per unsuppressed change.

``::error`` at or above the failure threshold, ``::warning`` for other
possible breaks, ``::notice`` for the rest."""

from pipeline.report import headline


def _escape(text: str, prop: bool = False) -> str:
    text = str(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if prop else text


def render(result, **_) -> str:
    lines = []
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
        file = _escape(result.new_source, prop=True)
        lines.append(f"::{command} file={file},title={title}::{_escape(c.message + ' ' + c.path)}")
    lines.append(f"mcpdelta: {headline(result)}; grade {result.grade}; {result.verdict}")
    return "\n".join(lines) + "\n"
