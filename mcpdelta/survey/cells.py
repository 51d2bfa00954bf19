"""How the study's pages write a value: counts, shares, dates, and a value
the lake holds (a server or a file chose it) as literal Markdown on one
line. Every section module writes its cells with these."""

import json


def count(n, noun) -> str:
    n = 0 if n is None else n
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s" if not noun.endswith("s") else f"{n} {noun}"


def n(value) -> str:
    if value is None:
        return "0"
    return f"{value:g}" if isinstance(value, float) else str(value)


def pct(value) -> str:
    """A share in per cent; a share of nothing (a zero denominator) is 0 %,
    said only where its count is 0 too (``share`` leaves it out)."""
    return f"{0.0 if value is None else float(value):g} %"


def share(number, percent) -> str:
    """``number (percent %)``, or the bare number where the share is of nothing."""
    return f"{number}" if percent is None else f"{number} ({pct(percent)})"


def day(value) -> str:
    return "" if value is None else f"{value:%Y-%m-%d}"


def cut(text, limit) -> str:
    text = " ".join(str(text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def cell(text, limit=160) -> str:
    """A value the lake holds (a server or a file chose it) as literal Markdown, one line."""
    from mcpdelta.safe import md_text

    return md_text(cut(text, limit))


def code(text, limit=160) -> str:
    """The same in a code span."""
    from mcpdelta.safe import md_code

    return md_code(cut(text, limit))


def total(table) -> dict:
    """The "all" row of a per-server table (the one without a server)."""
    return next((r for r in table if r["server_id"] is None), {})


def witness(witness_json, limit=120) -> str:
    """A stored witness as "kind value", the value as literal Markdown."""
    from mcpdelta.errors import InputError
    from mcpdelta.inputs import load_json

    try:
        witness = load_json(witness_json, "a witness")  # bounded: a lake cell
    except InputError:
        return "(unreadable)"
    if not isinstance(witness, dict):
        return "(unreadable)"
    value = json.dumps(witness.get("value"), ensure_ascii=False, sort_keys=True)
    return f"{cell(witness.get('kind', 'value'))} {code(value, limit)}"


def sections(parts) -> str:
    """A page from its sections, a blank line between each."""
    return "\n\n".join(p.strip("\n") for p in parts) + "\n"
