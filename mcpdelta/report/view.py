"""Changes arranged for a reader (the text and Markdown formats).

Sections by entity kind (server, tools, prompts, resources, resource
templates); inside a section one group per rule and severity, most severe
first; inside a group one statement per distinct message, with the
entities it holds for in natural order (``resource/2`` before
``resource/10``). The machine formats keep one record per change."""

import functools
import json
import re

from mcpdelta.engine.catalog import RANK, RULES

KINDS = (  # (first path segment, singular, plural)
    ("", "server", "server"),
    ("tools", "tool", "tools"),
    ("prompts", "prompt", "prompts"),
    ("resources", "resource", "resources"),
    ("resourceTemplates", "resource template", "resource templates"),
)
_PLACEHOLDER = {"tool": "<tool>", "prompt": "<prompt>", "resource": "<uri>",
                "resource template": "<template>", "server": "<server>"}
PROSE_LIMIT = 240  # characters of old and new text shown for a prose change


def natural_key(text) -> tuple:
    """Digits compare as numbers: ``a2`` < ``a10``."""
    parts = re.split(r"(\d+)", "" if text is None else str(text))
    return tuple(int(p) if i % 2 else p.casefold() for i, p in enumerate(parts)), str(text)


def kind_of(path: str) -> str:
    first = path.split("/")[1] if path.count("/") >= 1 else ""
    return next((k[1] for k in KINDS if k[0] == first), "server")


def plural(kind: str, n: int) -> str:
    """``tool`` for one, ``tools`` for any other count."""
    return kind if n == 1 else next(k[2] for k in KINDS if k[1] == kind)


_FIELD = re.compile(r"\{(entity|where|detail|old|new|side)\}")


@functools.lru_cache(maxsize=1024)
def _pattern(template: str, entity: str, side: str):
    out, seen, pos = [], set(), 0
    for m in _FIELD.finditer(template):
        out.append(re.escape(template[pos:m.start()]))
        name = m.group(1)
        if name == "entity":
            out.append(re.escape(entity))
        elif name == "side":
            out.append(re.escape(side))
        elif name in seen:
            out.append(f"(?P={name})")
        else:
            out.append(f"(?P<{name}>.*?)")
            seen.add(name)
        pos = m.end()
    out.append(re.escape(template[pos:]))
    return re.compile("".join(out) + r"\Z", re.S)


def _where(text: str, detail: str) -> str:
    """The engine's short locator, with ``{*}`` (additional properties)
    spelled out: the root's own additionalProperties constraint is "the
    root"'s, the values of other keys are ``name.*``."""
    if detail == "additionalProperties" and text.endswith("{*}"):
        return text[:-3].rstrip(".") or "the root"
    if text == "{*}":
        return "any other property"
    return text.replace(".{*}", ".*").replace("{*}", ".*")


def message(change, entity_text=None) -> str:
    """The change's message for a reader: ``absent`` for a missing value, a
    readable locator, and the entity as ``entity_text`` when given (a
    placeholder for a statement shared by several entities)."""
    rule = RULES[change.rule]
    side = "input" if ".input." in change.rule else "output"
    entity = str(change.entity)
    m = _pattern(rule.message, entity, side).match(change.message)
    if m is None:  # not the template's output: show it as the engine wrote it
        return change.message
    fields = {k: (v or "") for k, v in m.groupdict().items()}
    fields.setdefault("detail", "")
    if "old" in fields and change.old is None and fields["old"] == "null":
        fields["old"] = "absent"
    if "new" in fields and change.new is None and fields["new"] == "null":
        fields["new"] = "absent"
    if "where" in fields:
        fields["where"] = _where(fields["where"], fields["detail"])
    return rule.message.format(entity=entity if entity_text is None else entity_text,
                               side=side, **{k: fields.get(k, "") for k in ("where", "detail", "old", "new")})


def compact(entities) -> list:
    """Names that differ only in a trailing number, consecutive in natural
    order, as one range: ``test://static/resource/{1..100}``."""
    out, run = [], None  # run: (prefix, first, last)

    def close():
        if run:
            prefix, first, last = run
            out.append(f"{prefix}{first}" if first == last else
                       f"{prefix}{first}, {prefix}{last}" if last == first + 1 else
                       f"{prefix}{{{first}..{last}}}")

    for name in entities:
        m = re.fullmatch(r"(.*?)([1-9]\d*|0)", str(name), re.S)
        if m and run and m.group(1) == run[0] and int(m.group(2)) == run[2] + 1:
            run = (run[0], run[1], run[2] + 1)
            continue
        close()
        run = (m.group(1), int(m.group(2)), int(m.group(2))) if m else None
        if not m:
            out.append(str(name))
    close()
    return out


def cut(text, limit: int = PROSE_LIMIT) -> str:
    text = "absent" if text is None else str(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def witness_text(change, limit: int = 120) -> str | None:
    """One line of evidence: the witness value, or why there is none."""
    if change.witness is not None:
        value = json.dumps(change.witness["value"], sort_keys=True, ensure_ascii=False)
        if len(value) > limit:
            value = value[: limit - 1] + "…"
        return f"{change.witness['kind']} {value}"
    return change.witness_note


class Statement:
    """One message shared by one or more entities under one rule."""

    def __init__(self, text, changes, group_note=False, mark=None):
        self.group_note = group_note  # the group states the witness note
        self.mark = mark  # the approval all its changes share (approved or expired), or None
        self.text = text  # with the entity placeholder when shared
        self.changes = changes
        self.entities = sorted({c.entity for c in changes if c.entity is not None}, key=natural_key)
        # two changes of one entity reading the same: the pointers tell them apart
        self.ambiguous = len(changes) > max(len(self.entities), 1)

    @property
    def pointers(self) -> list:
        return sorted((c.path for c in self.changes), key=natural_key)

    @property
    def prose(self):
        c = self.changes[0]
        return (c.old, c.new) if RULES[c.rule].prose else None

    @property
    def witness(self):
        """(text, entity) of the first witness or note; entity None when
        every change has the same one."""
        texts = [(witness_text(c), c.entity) for c in self.changes
                 if c.witness is not None or not self.group_note]
        texts = [t for t in texts if t[0]]
        if not texts:
            return None
        if len({t for t, _ in texts}) == 1 and len(texts) == len(self.changes):
            return texts[0][0], None
        return texts[0]

    @property
    def advisory(self) -> list:
        """(entity, summary, security-relevant) of every judge note."""
        out = []
        for c in self.changes:
            for note in c.advisory:
                if isinstance(note, dict):
                    out.append((c.entity, note.get("summary", note), bool(note.get("security_relevant"))))
                else:
                    out.append((c.entity, note, False))
        return out


def approval_text(mark) -> str:
    """``approved: REASON (until DATE)``, or how an approval expired."""
    a = mark.approval
    if mark.expired:
        return f"approval expired {a.expires.isoformat()} (fails again): {a.reason}"
    return f"approved: {a.reason}" + (f" (until {a.expires.isoformat()})" if a.expires else "")


class Group:
    """Every change of one rule at one severity (and suppression) in a section."""

    def __init__(self, kind, rule, severity, suppressed, changes, gate=None, approved=False):
        self.kind, self.rule, self.severity, self.suppressed = kind, rule, severity, suppressed
        self.approved = approved  # every change approved: shown, never failing
        self.changes = changes
        self.note = RULES[rule].note
        self.entities = sorted({c.entity for c in changes if c.entity is not None}, key=natural_key)
        notes = {(c.witness is None, c.witness_note) for c in changes}
        # one reason for no witness shared by the whole group is said once
        self.witness_note = next(iter(notes))[1] if len(notes) == 1 and next(iter(notes))[0] else None
        marks = gate.marks if gate is not None else {}
        by_text = {}
        for c in changes:
            mark = marks.get(c)
            key = (message(c, _PLACEHOLDER[kind]), c.suppressed_reason,
                   (c.old, c.new) if RULES[c.rule].prose else None,
                   None if mark is None else (mark.approval.reason, str(mark.approval.expires), mark.expired))
            by_text.setdefault(repr(key), []).append(c)
        statements = []
        for members in by_text.values():
            if len({m.entity for m in members}) == 1:
                text = message(members[0])
            else:
                text = message(members[0], _PLACEHOLDER[kind])
            statements.append(Statement(text, members, group_note=self.witness_note is not None,
                                        mark=marks.get(members[0])))
        self.statements = sorted(statements, key=lambda s: (natural_key(s.entities[0] if s.entities else ""),
                                                            s.text))


class Section:
    def __init__(self, kind, groups):
        self.kind = kind
        self.groups = groups
        self.entities = sorted({c.entity for g in groups for c in g.changes if c.entity is not None},
                               key=natural_key)

    @property
    def title(self) -> str:
        if self.kind == "server":
            return "server"
        return f"{plural(self.kind, 2)} ({len(self.entities)})"


def shown(change, show: str) -> bool:
    return RANK[change.severity] >= RANK[show]


def sections(changes, show: str = "DOCUMENTATION", gate=None) -> list:
    """Live changes at or above ``show``, arranged; approved ones after the
    live ones of their kind, suppressed ones last. ``gate`` (mcpdelta.gate.verdict)
    says which are approved."""
    buckets = {}
    for c in changes:
        if not shown(c, show):
            continue
        approved = gate is not None and gate.approved(c)
        key = (kind_of(c.path), c.rule, c.severity, c.suppressed, approved)
        buckets.setdefault(key, []).append(c)
    out = []
    for _, kind, _plural in KINDS:
        groups = [Group(kind, rule, severity, suppressed, members, gate, approved)
                  for (k, rule, severity, suppressed, approved), members in buckets.items() if k == kind]
        if groups:
            groups.sort(key=lambda g: (g.suppressed, g.approved, -RANK[g.severity], g.rule))
            out.append(Section(kind, groups))
    return out


def rule_counts(changes) -> list:
    """(rule, severity, count) of live changes, most severe and most frequent first."""
    counts = {}
    for c in changes:
        if not c.suppressed:
            counts[(c.rule, c.severity)] = counts.get((c.rule, c.severity), 0) + 1
    return sorted(((r, s, n) for (r, s), n in counts.items()), key=lambda t: (-RANK[t[1]], -t[2], t[0]))


def hidden_count(changes, show: str) -> int:
    return sum(1 for c in changes if not shown(c, show))

