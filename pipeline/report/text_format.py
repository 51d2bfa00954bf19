"""Plain text for a terminal: grouped by entity, most severe first."""

import os

from pipeline.report import groups, headline, kind_of, witness_text

_COLOURS = {"BREAKING": "31", "POTENTIALLY_BREAKING": "33", "NON_BREAKING": "32",
            "DOCUMENTATION": "36"}


def render(result, colour: bool = False, **_) -> str:
    colour = colour and "NO_COLOR" not in os.environ

    def paint(text, code):
        return f"\033[{code}m{text}\033[0m" if colour else text

    lines = []
    for entity, changes in groups(result):
        title = "server" if entity is None else f"{kind_of(changes[0].path)} {entity}"
        lines.append(paint(title, "1"))
        for c in changes:
            label = f"{c.severity:<20}"
            if c.suppressed:
                label = f"{'suppressed':<20}"
            lines.append(f"  {paint(label, '2' if c.suppressed else _COLOURS[c.severity])} {c.rule}  {c.path}")
            lines.append(f"      {c.message}")
            if c.suppressed:
                lines.append(f"      suppressed: {c.suppressed_reason}")
            elif c.severity in ("BREAKING", "POTENTIALLY_BREAKING"):
                lines.append(f"      advice: {c.note}")
            evidence = witness_text(c)
            if evidence:
                lines.append(f"      witness: {evidence}")
            for note in c.advisory:
                lines.append(f"      judge: {note.get('summary', note) if isinstance(note, dict) else note}")
        lines.append("")
    verdict = paint(result.verdict.upper(), "31;1" if result.verdict == "fail" else "32;1")
    lines.append(f"{headline(result)}; grade {result.grade}; {verdict} (fail on {result.fail_on})")
    return "\n".join(lines) + "\n"
