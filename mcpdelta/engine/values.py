"""The values a scalar place accepts, compared as sets.

A place whose keywords all act on scalars (``type`` among null, boolean,
integer, number, string; ``enum``/``const``; numeric bounds in every draft's
spelling and ``multipleOf``; string lengths and ``pattern``) is read whole:
every keyword that bears on a type together, so an ``enum`` replaced by a
range that holds it is a widening, ``integer`` and ``number`` with
``multipleOf: 1`` are the same values, and a bound added beside an enum none
of whose values it excludes changes nothing.

``relation(old, new)`` says "same", "wider" (the new side accepts every old
value and more), "narrower", "both" or None (cannot say), with a value in
each difference it claims: a "narrower" or "both" always comes with a value
the old side accepts and the new one rejects, checked by ``accepts`` below,
so no claim stands on a keyword alone. Inclusion is shown only where the
sets are plainly nested (a finite side checked value by value; intervals,
multiples, lengths and patterns (``regex.compare``) contained); anything
else is None, and the keyword handlers' reading stands.
"""

import math

from mcpdelta.engine import regex
from mcpdelta.engine.equality import json_key
from mcpdelta.engine.keywords import ANNOTATING


def json_type(value) -> str:
    """The JSON type of a value (an integral float is an integer)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return "integer"
    if isinstance(value, float):
        return "number"
    return {str: "string", list: "array", dict: "object"}.get(type(value), "?")


def type_names(kind):
    """The type names of a ``type`` keyword, or None if it is not one."""
    if type(kind) is str:  # JSON gives exact types: no subclass to allow for
        return [kind]
    if type(kind) is list and kind and all(type(t) is str for t in kind):
        return kind
    return None


SCALARS = ("null", "boolean", "integer", "number", "string")
KEYWORDS = frozenset({"type", "enum", "const", "minimum", "maximum", "exclusiveMinimum",
                      "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "pattern",
                      "format"})
BOUNDING = KEYWORDS - {"type"}  # what bounds a place's values within its types
MAX_LISTED = 500     # values checked one by one
MAX_RANGE = 256      # an integer range this small is read as the values it holds
HUGE = 10 ** 15


def exact(value, denominator=1):
    """``value`` as an exact fraction (a float through its shortest text, so
    0.1 is 1/10). fractions brings decimal with it: imported only once a
    scalar place has moved, never on a diff that has none."""
    from fractions import Fraction

    value = Fraction(str(value) if isinstance(value, float) else value)
    return value if denominator == 1 else value / denominator


class _Place:
    """One side's scalar keywords, read."""

    __slots__ = ("kinds", "listed", "listed_keys", "low", "low_open", "high", "high_open", "step",
                 "min_len", "max_len", "pattern", "format")


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def scalar_place(node) -> bool:
    """Whether ``node`` holds only the keywords a scalar place is read from
    (annotations and ``x-`` keywords aside, which ``read`` ignores)."""
    return isinstance(node, dict) and all(
        key in KEYWORDS or key in ANNOTATING or key.startswith("x-") for key in node)


def read(node):
    """A scalar place's keywords, or None when the node is no scalar place
    (another keyword, a type that is not a scalar, a value the walk cannot
    read)."""
    if not scalar_place(node):
        return None
    p = _Place()
    kinds = None
    if "type" in node:
        names = type_names(node["type"])
        if names is None or not set(names) <= set(SCALARS):
            return None
        kinds = set(names)
    listed = None
    if "enum" in node:
        if not isinstance(node["enum"], list) or len(node["enum"]) > MAX_LISTED:
            return None
        listed = list(node["enum"])
    if "const" in node:
        listed = [node["const"]] if listed is None else [
            v for v in listed if json_key(v) == json_key(node["const"])]
    if listed is not None and any(isinstance(v, (dict, list)) for v in listed):
        return None
    if kinds is None:
        if listed is None:
            return None  # any type at all, objects and arrays too
        kinds = {json_type(v) for v in listed}
    if "integer" in kinds and "number" in kinds:
        kinds.discard("integer")
    p.kinds, p.listed = kinds, listed
    p.listed_keys = None if listed is None else frozenset(json_key(v) for v in listed)
    p.low, p.low_open = _bound(node, "minimum", "exclusiveMinimum", lower=True)
    p.high, p.high_open = _bound(node, "maximum", "exclusiveMaximum", lower=False)
    if p.low is False or p.high is False:
        return None
    step = node.get("multipleOf")
    if "multipleOf" in node and (not _number(step) or step <= 0):
        return None
    p.step = None if step is None else exact(step)
    if p.step is not None and p.step.denominator == 1 and "number" in kinds:
        # a number that is a multiple of a whole number is an integer (draft 6 on)
        kinds.discard("number")
        kinds.add("integer")
    for key in ("minLength", "maxLength"):
        if key in node and (not _number(node[key]) or node[key] < 0 or node[key] != int(node[key])):
            return None  # null, a text, a fraction: not a length the walk can read
    p.min_len, p.max_len = int(node.get("minLength", 0)), node.get("maxLength")
    p.max_len = None if p.max_len is None else int(p.max_len)
    p.pattern = node.get("pattern")
    p.format = node.get("format")
    if any(key in node and not isinstance(node[key], str) for key in ("pattern", "format")):
        return None  # (a null is no pattern either: it is not a schema a validator reads)
    return p


def binding_bound(node, inclusive, exclusive, lower):
    """The binding (value, is exclusive, keyword) of a numeric bound, None if
    unbounded, False if the walk cannot read it (left to the net)."""
    found = []
    for key, strict in ((inclusive, False), (exclusive, True)):
        if key in node:
            if not _number(node[key]):
                return False
            found.append((node[key], strict, key))
    if not found:
        return None
    # the tighter one binds: for a lower bound the larger value, exclusive on a tie
    return max(found, key=lambda f: (f[0], f[1])) if lower else min(found, key=lambda f: (f[0], not f[1]))


def _bound(node, inclusive, exclusive, lower):
    """(value as an exact fraction, open) of the binding bound, (None, False) if
    none, (False, False) when it cannot be read."""
    found = binding_bound(node, inclusive, exclusive, lower)
    if found is None or found is False:
        return found, False
    return exact(found[0]), found[1]


def accepts(p, value):
    """Does place ``p`` accept scalar ``value``? None: cannot say."""
    kind = json_type(value)
    if not (kind in p.kinds or (kind == "integer" and "number" in p.kinds)):
        return False
    if p.listed_keys is not None and json_key(value) not in p.listed_keys:
        return False
    if kind in ("integer", "number"):
        x = exact(value)
        if p.low is not None and (x < p.low or (p.low_open and x == p.low)):
            return False
        if p.high is not None and (x > p.high or (p.high_open and x == p.high)):
            return False
        if p.step is not None and (x / p.step).denominator != 1:
            return False
    if kind == "string":
        if len(value) < p.min_len or (p.max_len is not None and len(value) > p.max_len):
            return False
        if p.pattern is not None:
            return regex.matches(p.pattern, value)
    return True


def _finite(p):
    """Every value ``p`` accepts, when they are few and known; else None."""
    out = list(p.listed) if p.listed is not None else []
    for kind in sorted(p.kinds) if p.listed is None else ():
        if kind == "null":
            out.append(None)
        elif kind == "boolean":
            out += [False, True]
        elif kind == "integer" and p.low is not None and p.high is not None \
                and p.high - p.low <= MAX_RANGE:
            out += list(range(math.ceil(p.low), math.floor(p.high) + 1))
        else:
            return None
    kept = []
    for value in out:
        ok = accepts(p, value)
        if ok is None:
            return None
        if ok:
            kept.append(value)
    return kept


def _candidates(a, b):
    """Values near every edge either side draws, in a fixed order."""
    numbers = [0, 1, -1, 2, exact(1, 2), HUGE, -HUGE]
    for p in (a, b):
        for edge in (p.low, p.high):
            if edge is not None:
                numbers += [edge, edge + 1, edge - 1, edge + exact(1, 2), edge - exact(1, 2),
                            math.floor(edge), math.ceil(edge)]
        if p.step is not None:
            numbers += [p.step, -p.step, p.step * 2, p.step * 3]
            for edge in (p.low, p.high):
                if edge is not None:
                    k = math.floor(edge / p.step)
                    numbers += [p.step * (k + i) for i in (-1, 0, 1, 2)]
    edges = sorted({e for p in (a, b) for e in (p.low, p.high) if e is not None})
    numbers += [(lo + hi) / 2 for lo, hi in zip(edges, edges[1:])]  # inside a narrow gap between bounds
    out = [None, False, True]
    for x in numbers:
        x = exact(x)
        out.append(int(x) if x.denominator == 1 else float(x))
    texts = ["", "a", "0", "A", "-", "aa"]
    for p, q in ((a, b), (b, a)):
        if p.pattern is not None:
            other = q.pattern if q.pattern is not None else "^(?=a)b"
            found = regex.lost(p.pattern, other)
            if found is not None:
                texts.append(found)
            least = regex.lost(p.pattern, "^(?=a)b")
            if least is not None:
                texts.append(least)
    for p in (a, b):
        for n in (p.min_len, p.max_len):
            if n is not None:
                for m in (n - 1, n, n + 1):
                    if 0 <= m <= 10_000:
                        texts += _padded(texts, m)
    seen, kept = set(), []
    for value in out + texts + [v for p in (a, b) if p.listed for v in p.listed]:
        key = _scalar_key(value)
        if key not in seen:  # each value tried once, at its first place
            seen.add(key)
            kept.append(value)
    return kept


def _scalar_key(value):
    """A key JSON-equal scalars share (1 and 1.0 are one JSON value, true is
    not 1), without writing them out."""
    if isinstance(value, bool):
        return ("boolean", value)
    if isinstance(value, (int, float)):
        return ("number", value)
    if value is None or isinstance(value, str):
        return ("text", value)
    return ("json", json_key(value))


def _padded(texts, n):
    """Strings of length ``n`` made from the known texts (a pattern's own
    string, repeated or cut) and from plain letters."""
    out = []
    for seed in [t for t in texts if t][:4] + ["a", "0"]:
        out.append((seed * (n // len(seed) + 1))[:n])
    return out


def _contained(a, b):
    """True when every value ``a`` accepts, ``b`` accepts (shown from the
    keywords); None when that is not plain."""
    finite = _finite(a)
    if finite is not None:
        verdicts = [accepts(b, v) for v in finite]
        return None if None in verdicts else all(verdicts)
    if b.listed is not None:
        return None
    if (a.format or None) != (b.format or None):
        return None
    for kind in a.kinds:
        if kind in ("null",) and kind not in b.kinds:
            return None
        if kind == "boolean" and "boolean" not in b.kinds:
            return None
        if kind in ("integer", "number"):
            if not (kind in b.kinds or (kind == "integer" and "number" in b.kinds)):
                return None
            if not _interval_within(a, b, whole=kind == "integer"):
                return None
            if b.step is not None:
                own = a.step if a.step is not None else (exact(1) if kind == "integer" else None)
                if own is None or (own / b.step).denominator != 1:
                    return None
        if kind == "string":
            if "string" not in b.kinds:
                return None
            if a.min_len < b.min_len or (b.max_len is not None and (
                    a.max_len is None or a.max_len > b.max_len)):
                return None
            if b.pattern is not None and (a.pattern is None or regex.compare(
                    a.pattern, b.pattern) not in ("same", "wider")):
                return None
    return True


def _interval_within(a, b, whole):
    low_a, high_a = a.low, a.high
    if whole:  # the integers of an interval: its closed integer bounds
        if low_a is not None:
            low_a = exact(math.floor(low_a) + 1 if a.low_open and low_a.denominator == 1
                             else math.ceil(low_a))
        if high_a is not None:
            high_a = exact(math.ceil(high_a) - 1 if a.high_open and high_a.denominator == 1
                              else math.floor(high_a))
        a_low_open = a_high_open = False
    else:
        a_low_open, a_high_open = a.low_open, a.high_open
    if b.low is not None:
        if low_a is None or low_a < b.low or (low_a == b.low and b.low_open and not a_low_open):
            return False
    if b.high is not None:
        if high_a is None or high_a > b.high or (high_a == b.high and b.high_open and not a_high_open):
            return False
    return True


def _outside(a, b):
    """``(value,)``: a value ``a`` accepts and ``b`` rejects, from the
    candidates; None when none of them is one."""
    for value in _candidates(a, b):
        if accepts(a, value) is True and accepts(b, value) is False:
            return (value,)
    return None


# (old keywords, new keywords) as JSON keys -> relation: one place's change
# is met again in other tools, releases and servers. Bounded.
_RELATIONS = {}
MAX_RELATIONS = 8192


def relation(old, new):
    """(verdict, lost, gained) for two scalar places: verdict "same",
    "wider", "narrower", "both" or None; ``lost`` ``(value,)`` with a value
    the old side accepts and the new one rejects, ``gained`` the other way
    round (each present where the verdict claims that difference, else
    None)."""
    if not (scalar_place(old) and scalar_place(new)):
        return None, None, None  # no scalar place (``read`` says the same)
    key = (json_key({k: v for k, v in old.items() if k in KEYWORDS}),
           json_key({k: v for k, v in new.items() if k in KEYWORDS}))
    found = _RELATIONS.get(key)
    if found is None:
        if len(_RELATIONS) >= MAX_RELATIONS:
            _RELATIONS.clear()
        found = _RELATIONS[key] = _relation(old, new)
    return found


def _relation(old, new):
    a, b = read(old), read(new)
    if a is None or b is None:
        return None, None, None
    # a side the keywords show contained has no value outside: no candidates tried
    kept_plain, grew_plain = _contained(a, b), _contained(b, a)
    lost = None if kept_plain is True else _outside(a, b)
    gained = None if grew_plain is True else _outside(b, a)
    kept = True if lost is None and kept_plain else (False if lost is not None else None)
    grew = False if gained is None and grew_plain else (True if gained is not None else None)
    if kept is None or grew is None:
        return None, None, None
    verdict = {(True, False): "same", (True, True): "wider", (False, False): "narrower",
               (False, True): "both"}[(kept, grew)]
    return verdict, lost, gained
