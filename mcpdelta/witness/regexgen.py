"""Short strings that a regular expression ``search``-matches.

JSON Schema patterns are unanchored ECMA-262 regexes; Python's ``re`` reads
the common subset the same way. The generator walks the parsed pattern and
takes the shortest choice everywhere. Every string it returns is a guess the
caller must confirm (``validate.matches`` or the validator): lookarounds and
backreferences are approximated, never trusted. Nothing here runs Python's
backtracking matcher on a schema's pattern: ``matches`` is linear-time.
"""

import re

from mcpdelta.witness.regexparse import sre_constants as _c, sre_parse as _p
from mcpdelta.witness.validate import matches

_CATEGORY = {
    "CATEGORY_DIGIT": "0", "CATEGORY_NOT_DIGIT": "a", "CATEGORY_WORD": "a",
    "CATEGORY_NOT_WORD": " ", "CATEGORY_SPACE": " ", "CATEGORY_NOT_SPACE": "a",
    "CATEGORY_LINEBREAK": "\n", "CATEGORY_NOT_LINEBREAK": "a",
}
_PROBES = "a0A_ -.!z9Z~"
_MAX = 4096


class _Unsupported(Exception):
    pass


def shortest(pattern: str, alt: int = 0, extra: int = 0):
    """A short string matching ``pattern`` (``alt`` picks other branches and
    characters where there is a choice; ``extra`` repeats every open-ended
    repetition that many more times), or None."""
    try:
        parsed = _p.parse(pattern)
        groups = {}
        text = _emit(parsed, groups, alt, extra)
    except (_Unsupported, re.error, RecursionError, TypeError, ValueError, OverflowError):
        return None
    if len(text) > _MAX:
        return None
    return text if matches(pattern, text) else None


def _in_class(items, alt):
    negate = any(op is _c.NEGATE for op, _ in items)
    chars = []
    for op, arg in items:
        if op is _c.LITERAL:
            chars.append(chr(arg))
        elif op is _c.RANGE:
            chars.append(chr(arg[0]))
            if arg[1] > arg[0]:
                chars.append(chr(arg[0] + 1))
        elif op is _c.CATEGORY:
            chars.append(_CATEGORY.get(str(arg), "a"))
    if not negate:
        if not chars:
            raise _Unsupported
        return chars[alt % len(chars)]
    probe = re.compile(_class_source(items))
    for ch in _PROBES:
        if probe.fullmatch(ch):
            return ch
    raise _Unsupported


def _class_source(items):
    # rebuild a character class we can test probes against
    parts, negate = [], False
    for op, arg in items:
        if op is _c.NEGATE:
            negate = True
        elif op is _c.LITERAL:
            parts.append(re.escape(chr(arg)))
        elif op is _c.RANGE:
            parts.append(re.escape(chr(arg[0])) + "-" + re.escape(chr(arg[1])))
        elif op is _c.CATEGORY:
            parts.append({"CATEGORY_DIGIT": r"\d", "CATEGORY_NOT_DIGIT": r"\D",
                          "CATEGORY_WORD": r"\w", "CATEGORY_NOT_WORD": r"\W",
                          "CATEGORY_SPACE": r"\s", "CATEGORY_NOT_SPACE": r"\S"}.get(str(arg), ""))
    return "[" + ("^" if negate else "") + "".join(parts) + "]"


def _emit(parsed, groups, alt, extra=0):
    out = []
    for op, arg in parsed:
        if op is _c.LITERAL:
            out.append(chr(arg))
        elif op is _c.NOT_LITERAL:
            out.append("a" if chr(arg) != "a" else "b")
        elif op is _c.ANY:
            out.append("a")
        elif op is _c.IN:
            out.append(_in_class(arg, alt))
        elif op in (_c.MAX_REPEAT, _c.MIN_REPEAT) or str(op) == "POSSESSIVE_REPEAT":
            low, high, sub = arg
            count = min(low + extra, high)
            if count > _MAX:
                raise _Unsupported
            out.append(_emit(sub, groups, alt, extra) * count)
        elif op is _c.SUBPATTERN:
            group, _add, _del, sub = arg
            text = _emit(sub, groups, alt, extra)
            if group is not None:
                groups[group] = text
            out.append(text)
        elif op is _c.BRANCH:
            options = [_emit(b, groups, alt, extra) for b in arg[1]]
            out.append(options[alt % len(options)] if alt else min(options, key=len))
        elif op is _c.GROUPREF:
            out.append(groups.get(arg, ""))
        elif op in (_c.AT, _c.ASSERT, _c.ASSERT_NOT):
            continue
        elif op is _c.CATEGORY:
            out.append(_CATEGORY.get(str(arg), "a"))
        else:
            raise _Unsupported
    return "".join(out)
