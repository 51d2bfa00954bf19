"""Release notes in Markdown: the changes grouped by severity, then by entity.

For a CHANGELOG or a release page rather than a review: no verdict table,
one line per change in the words of the text report, the rule named after
it; approved breaks listed with their reasons (and expiry), suppressed
changes counted, not listed."""

from mcpdelta.engine.catalog import SEVERITIES
from mcpdelta.gate.verdict import of, security_notes
from mcpdelta.report import gate_counts, severity_counts
from mcpdelta.report.markdown_format import code, text
from mcpdelta.report.view import approval_text, compact, kind_of, message, natural_key, plural
from mcpdelta.safe import no_command_lines

TITLES = {
    "BREAKING": "Breaking changes",
    "POTENTIALLY_BREAKING": "Potentially breaking changes",
    "NON_BREAKING": "Additions and other compatible changes",
    "DOCUMENTATION": "Documentation",
}


def _identity(manifest) -> tuple:
    info = manifest.get("serverInfo") if isinstance(manifest, dict) else None
    info = info if isinstance(info, dict) else {}
    name, version = info.get("name"), info.get("version")
    return (name if isinstance(name, str) else None, version if isinstance(version, str) else None)


def title(result) -> str:
    (old_name, old_version), (new_name, new_version) = _identity(result.old), _identity(result.new)
    name = new_name or old_name
    if name and old_version and new_version:
        return f"{text(name)} {text(old_version)} → {text(new_version)}"
    return f"{text(result.old_source)} → {text(result.new_source)}"


KIND_ORDER = ("server", "tool", "prompt", "resource", "resource template")
RUN = 3  # entities sharing one change this many times or more are listed as one line


def _kind(change) -> str:
    return "tool" if change.path.startswith("/probes/") else kind_of(change.path)


def _after(result, change) -> str:
    """The rule, then the approval and the judges' security flags."""
    out = f" ({code(change.rule)})"
    mark = of(result).mark(change)
    if mark is not None:
        words = text(approval_text(mark))
        out += f" — **{words}**" if mark.expired else f" — *{words}*"
    for note in security_notes(change):
        out += f" — ⚠️ security-relevant (judge): {text(note.get('summary', ''))}"
    return out


def _severity_block(result, changes) -> list:
    """One bullet per entity (its changes nested when several); entities
    with one change alike (rule, wording, approval) in a run of RUN or more
    share one bullet with their names compacted."""
    by_entity = {}
    for c in changes:
        by_entity.setdefault(c.entity, []).append(c)
    order = sorted(by_entity, key=lambda e: (KIND_ORDER.index(_kind(by_entity[e][0])), e is not None,
                                             natural_key(e)))
    alike = {}
    for entity in order:
        if entity is not None and len(by_entity[entity]) == 1:
            c = by_entity[entity][0]
            key = (_kind(c), c.rule, message(c, "\0"), _after(result, c))
            alike.setdefault(key, []).append(entity)
    out, done = [], set()
    for entity in order:
        if entity in done:
            continue
        members = sorted(by_entity[entity], key=lambda c: (c.path, c.rule))
        kind = _kind(members[0])
        if len(members) == 1 and entity is not None:
            c = members[0]
            run = alike[(kind, c.rule, message(c, "\0"), _after(result, c))]
            if len(run) >= RUN:
                names = ", ".join(code(n) for n in compact(run))
                out.append(f"- {len(run)} {plural(kind, len(run))} ({names}): "
                           f"{text(message(c, '<' + kind + '>'))}{_after(result, c)}")
                done.update(run)
                continue
        label = "server" if entity is None else f"{kind} {code(entity)}"
        if len(members) == 1:
            out.append(f"- {label}: {text(message(members[0]))}{_after(result, members[0])}")
        else:
            out.append(f"- {label}")
            out += [f"  - {text(message(c))}{_after(result, c)}" for c in members]
        done.add(entity)
    return out


def render(result, **_) -> str:
    live = [c for c in result.changes if not c.suppressed]
    suppressed = len(result.changes) - len(live)
    counts = severity_counts(result.summary)
    out = [f"## {title(result)}", ""]
    out.append(f"Grade **{result.grade}**: " + (f"{len(live)} change{'s' if len(live) != 1 else ''} "
                                                 f"({counts}){gate_counts(result)}." if live else "no changes."))
    for severity in SEVERITIES:
        changes = [c for c in live if c.severity == severity]
        if changes:
            out += ["", f"### {TITLES[severity]}", ""] + _severity_block(result, changes)
    if suppressed:
        out += ["", f"{suppressed} suppressed change{'s' if suppressed != 1 else ''} (ignored by the "
                    "config) not listed."]
    return no_command_lines("\n".join(out)) + "\n"
