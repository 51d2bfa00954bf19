"""Plain text for a terminal: a summary block, then the changes by entity
kind, one statement per rule and message with the entities it holds for."""

import os

from mcpdelta.gate.verdict import of
from mcpdelta.report import headline
from mcpdelta.report.view import approval_text, compact, cut, hidden_count, plural, rule_counts, sections
from mcpdelta.safe import no_command_lines, visible

_COLOURS = {"BREAKING": "31", "POTENTIALLY_BREAKING": "33", "NON_BREAKING": "32",
            "DOCUMENTATION": "36"}
MAX_ENTITIES = 20  # names listed per statement before "+N more"


def entity_list(kind, entities, limit) -> str:
    items = compact(entities)
    names = ", ".join(visible(e) for e in items[:limit])
    more = f", +{len(items) - limit} more" if len(items) > limit else ""
    return f"{len(entities)} {plural(kind, len(entities))}: {names}{more}"


def render(result, colour: bool = False, show: str = "DOCUMENTATION",
           max_entities: int = MAX_ENTITIES, **_) -> str:
    colour = colour and "NO_COLOR" not in os.environ

    def paint(text, code):
        return f"\033[{code}m{text}\033[0m" if colour else text

    gate = of(result)
    verdict = paint(result.verdict.upper(), "31;1" if result.verdict == "fail" else "32;1")
    fail_on = result.fail_on + (", security" if gate.fail_on_security else "")
    lines = [f"{headline(result)}; grade {result.grade}; {verdict} (fail on {fail_on})"]
    if result.changes:
        lines.append(f"  {visible(result.old_source)} -> {visible(result.new_source)}")
        fired = rule_counts(result.changes)
        if fired:
            by_severity = {}
            for rule, severity, n in fired:
                by_severity.setdefault(severity, []).append(f"{rule} {n}")
            lines += [f"  {severity}: {', '.join(rules)}" for severity, rules in by_severity.items()]
        hidden = hidden_count(result.changes, show)
        if hidden:
            lines.append(f"  {hidden} change{'s' if hidden != 1 else ''} below {show} not shown (--show)")
    for section in sections(result.changes, show, gate):
        lines += ["", paint(section.title, "1")]
        for group in section.groups:
            label = f"{'suppressed' if group.suppressed else group.severity:<20}"
            count = (f"  ({len(group.entities)} {plural(group.kind, len(group.entities))})"
                     if len(group.entities) > 1 else "")
            approved = "  approved" if group.approved else ""
            lines.append(f"  {paint(label, '2' if group.suppressed else _COLOURS[group.severity])} "
                         f"{group.rule}{count}{approved}")
            if not group.suppressed and not group.approved and group.severity in ("BREAKING", "POTENTIALLY_BREAKING"):
                lines.append(f"      advice: {group.note}")
            if group.witness_note:
                lines.append(f"      witness: {visible(group.witness_note)}")
            for s in group.statements:
                lines.append(f"    - {visible(s.text)}")
                if len(s.entities) > 1:
                    lines.append(f"      {entity_list(group.kind, s.entities, max_entities)}")
                if s.ambiguous:
                    lines.append("      at " + ", ".join(visible(p) for p in s.pointers))
                if s.prose:
                    old, new = s.prose
                    lines.append(f"      old: {visible(cut(old))}")
                    lines.append(f"      new: {visible(cut(new))}")
                if s.changes[0].suppressed:
                    lines.append(f"      suppressed: {visible(s.changes[0].suppressed_reason)}")
                if s.mark is not None:
                    lines.append(f"      {visible(approval_text(s.mark))}")
                evidence = s.witness
                if evidence:
                    text, entity = evidence
                    where = f" (for {visible(entity)})" if entity is not None and len(s.entities) > 1 else ""
                    lines.append(f"      witness{where}: {visible(text)}")
                for entity, note, security in s.advisory:
                    where = f" ({visible(entity)})" if len(s.entities) > 1 else ""
                    flag = paint(" SECURITY-RELEVANT", "31;1") if security else ""
                    lines.append(f"      judge{where}{flag}: {visible(note)}")
    if result.changes:
        lines += ["", f"{result.verdict.upper()}: {headline(result)}; grade {result.grade}",
                  "(mcpdelta rules RULE explains a rule: what fires it, what to do, an example)"]
    return no_command_lines("\n".join(lines)) + "\n"
