"""Markdown fit for a pull-request comment or a job summary: the verdict and
a summary table first, then the changes by entity kind and rule, long
entity lists and the less severe kinds of change collapsed, and the whole
kept under ``max_chars`` (GitHub holds 65,536 characters in a comment)."""

from mcpdelta.gate.verdict import of
from mcpdelta.report import headline
from mcpdelta.report.view import approval_text, compact, cut, hidden_count, plural, rule_counts, sections
from mcpdelta.safe import md_code as code
from mcpdelta.safe import md_text as text
from mcpdelta.safe import no_command_lines

_ICONS = {"BREAKING": "🔴", "POTENTIALLY_BREAKING": "🟠", "NON_BREAKING": "🟢",
          "DOCUMENTATION": "📝"}
MAX_CHARS = 60_000
OPEN_ENTITIES = 10  # entity lists longer than this are collapsed


def _entities(kind, entities) -> str:
    items = compact(entities)
    names = ", ".join(code(e) for e in items)
    label = f"{len(entities)} {plural(kind, len(entities))}"
    if len(items) <= OPEN_ENTITIES:
        return f"{label}: {names}"
    return f"<details><summary>{label}</summary>\n\n{names}\n\n</details>"


def _group_block(group) -> list:
    """Markdown lines for one rule group: a heading, the advice, one bullet
    per statement."""
    sev = "suppressed" if group.suppressed else group.severity
    icon = "⚪" if group.suppressed else _ICONS[group.severity]
    count = f" · {len(group.entities)} {plural(group.kind, len(group.entities))}" if len(group.entities) > 1 else ""
    approved = " · approved" if group.approved else ""
    out = ["", f"#### {icon} `{group.rule}` ({sev}){count}{approved}", ""]
    if not group.suppressed and not group.approved and group.severity in ("BREAKING", "POTENTIALLY_BREAKING"):
        out += [f"> {text(group.note)}", ""]
    return out


def _statement_block(group, s) -> list:
    out = [f"- {text(s.text)}"]
    if len(s.entities) > 1:
        listed = _entities(group.kind, s.entities)
        out += ["", f"  {listed}".replace("\n", "\n  ")] if listed.startswith("<details>") else [f"  {listed}"]
    if s.ambiguous:
        out.append("  at " + ", ".join(code(p) for p in s.pointers))
    if s.prose:
        old, new = s.prose
        out.append(f"  <br>old: {text(cut(old))}")
        out.append(f"  <br>new: {text(cut(new))}")
    if s.changes[0].suppressed:
        out.append(f"  <br>suppressed: {text(s.changes[0].suppressed_reason)}")
    if s.mark is not None:
        out.append(f"  <br>{'⏰' if s.mark.expired else '✔️'} {text(approval_text(s.mark))}")
    if s.witness:
        evidence, entity = s.witness
        where = f" (for {code(entity)})" if entity is not None and len(s.entities) > 1 else ""
        value = code(evidence) if any(c.witness for c in s.changes) else text(evidence)  # a value, or a note
        out.append(f"  <br>witness{where}: {value}")
    for entity, note, security in s.advisory:
        where = f" ({code(entity)})" if len(s.entities) > 1 else ""
        flag = " ⚠️ **security-relevant**" if security else ""
        out.append(f"  <br>judge{where}{flag}: {text(note)}")
    return out


def render(result, show: str = "DOCUMENTATION", max_chars: int = MAX_CHARS, **_) -> str:
    status = "❌ fail" if result.verdict == "fail" else "✅ pass"
    security = ", security" if of(result).fail_on_security else ""
    head = [
        "## mcpdelta contract diff",
        "",
        f"**{status}** (fail on `{result.fail_on}`{security}) · grade **{result.grade}** · {text(headline(result))}",
        "",
        "| Severity | Count |",
        "| --- | ---: |",
    ]
    head += [f"| {_ICONS.get(k, '⚪')} `{k}` | {v} |" for k, v in result.summary.items()]
    fired = rule_counts(result.changes)
    if fired:
        head += ["", "| Rule | Severity | Changes |", "| --- | --- | ---: |"]
        head += [f"| `{r}` | {_ICONS[s]} `{s}` | {n} |" for r, s, n in fired]
    hidden = hidden_count(result.changes, show)
    if hidden:
        head += ["", f"{hidden} change{'s' if hidden != 1 else ''} below `{show}` not shown."]

    blocks = []  # (lines, changes it shows): the unit the size limit keeps or drops
    for section in sections(result.changes, show, of(result)):
        minor = all(g.suppressed or g.severity in ("NON_BREAKING", "DOCUMENTATION") for g in section.groups)
        title = "Server" if section.kind == "server" else section.title.capitalize()
        blocks.append(([""] + ([f"<details><summary><b>{title}</b></summary>", ""] if minor
                                else [f"### {title}"]), 0, "open" if minor else None))
        for group in section.groups:
            lines = _group_block(group)
            first = True
            for s in group.statements:
                blocks.append(((lines if first else []) + _statement_block(group, s), len(s.changes), None))
                first = False
        if minor:
            blocks.append((["", "</details>"], 0, "close"))

    out = "\n".join(head)
    total = sum(n for _, n, _ in blocks)
    shown_changes = 0
    reserve = 400  # the closing note and a pending </details>
    is_open = False
    for i, (lines, n, mark) in enumerate(blocks):
        piece = "\n" + "\n".join(lines)
        if len(out) + len(piece) + reserve > max_chars:
            left = total - shown_changes
            if is_open:
                out += "\n\n</details>"
            out += (f"\n\n**{left} more change{'s' if left != 1 else ''} left out** to stay under "
                    f"{max_chars:,} characters; `mcpdelta diff --format json` lists every change.")
            break
        out += piece
        shown_changes += n
        is_open = {"open": True, "close": False}.get(mark, is_open)
    return no_command_lines(out) + "\n"
