"""One classified change, and how the engine names places in a manifest."""

import json

from mcpdelta.engine.catalog import RULES

# json.dumps(value, ensure_ascii=False, sort_keys=True), its encoder built once
_one_line = json.JSONEncoder(ensure_ascii=False, sort_keys=True).encode


def pointer(*parts) -> str:
    """A JSON pointer (RFC 6901) from unescaped parts: names, not list indexes."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def parts_below(path: str, base: str):
    """The unescaped parts of JSON pointer ``path`` below ``base`` (``pointer``
    read back), or None when ``path`` is not under ``base``."""
    if path == base:
        return ()
    if not path.startswith(base + "/"):
        return None
    return tuple(p.replace("~1", "/").replace("~0", "~") for p in path[len(base) + 1:].split("/"))


def short(value, limit: int = 60) -> str:
    """A one-line rendering of a JSON value for messages."""
    text = _one_line(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def sorted_keys(value):
    """Key order is notation: reports print objects with sorted keys."""
    if isinstance(value, dict):
        return {k: sorted_keys(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [sorted_keys(v) for v in value]
    return value


def _focus(where, old, new, old_text, new_text):
    """Two values a message cannot show whole: show the first place where
    they differ and both values there (``where`` gains the place)."""
    from mcpdelta.engine.net import MISSING, differences

    for parts, a, b in differences(old, new):
        if not parts:
            break  # they differ as wholes: nothing narrower to show
        place = pointer(*parts)
        shown = [("absent" if v is MISSING else short(v)) for v in (a, b)]
        return (f"{where} at {place}" if where else place), shown[0], shown[1]
    return where, old_text, new_text


class Change:
    """A change the engine found. ``default_severity`` is the catalog's (for a
    prose rule, the classifier's verdict); policy later sets ``severity`` and
    suppression. Judges may append to ``advisory`` and touch nothing else."""

    __slots__ = ("rule", "default_severity", "severity", "entity", "path", "old", "new",
                 "message", "suppressed", "suppressed_reason", "advisory",
                 "witness", "witness_note", "probe", "schema_path")

    def __init__(self, rule_id, entity, path, old, new, severity=None, where="", detail=""):
        rule = RULES[rule_id]
        self.rule = rule_id
        self.default_severity = severity or rule.severity
        self.severity = self.default_severity
        self.entity = entity
        self.path = path
        self.old = old
        self.new = new
        shows_old, shows_new = rule.shows  # a value's text only for a message that prints it
        old_text = short(old) if shows_old else ""
        new_text = short(new) if shows_new else ""
        if shows_old and shows_new and (old_text == new_text or old_text.endswith("...")
                                        or new_text.endswith("...")):
            where, old_text, new_text = _focus(where, old, new, old_text, new_text)
        self.message = rule.message.format(
            entity=entity, where=where, detail=detail, old=old_text, new=new_text,
            side="input" if ".input." in rule_id else "output",
        )
        self.suppressed = False
        self.suppressed_reason = None
        self.advisory = []
        self.witness = None  # evidence, set by mcpdelta.witness; never a severity
        self.witness_note = None
        # (value,): a value at the change's place that one side accepts and the
        # other rejects, found by the engine; where a witness search starts
        self.probe = None
        # a schema change's place in the engine's normal forms (their union
        # branches sorted), where a witness is sought; ``path`` is the
        # document's pointer
        self.schema_path = path

    @property
    def note(self) -> str:
        return RULES[self.rule].note

    def sort_key(self):
        return (self.path, self.rule)

    def as_json(self) -> dict:
        return {
            "rule": self.rule,
            "severity": self.severity,
            "default_severity": self.default_severity,
            "entity": self.entity,
            "path": self.path,
            "old": sorted_keys(self.old),
            "new": sorted_keys(self.new),
            "message": self.message,
            "note": self.note,
            "suppressed": self.suppressed,
            "suppressed_reason": self.suppressed_reason,
            "advisory": self.advisory,
            "witness": self.witness,
            "witness_note": self.witness_note,
        }

    def __repr__(self):
        return f"Change({self.rule} {self.severity} {self.path})"
