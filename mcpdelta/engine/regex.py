"""Two JSON Schema patterns compared as the sets of strings they match.

A ``pattern`` change is a tightening when every string the new pattern
matches the old one matched too, a loosening the other way round, no change
when both hold. This module decides that for patterns of the common kind
(literals, classes, ``\\d \\w \\s .``, groups, alternation, repetition, ``^``
and ``$`` at the ends, lookaheads right after the ``^``) by walking the
automata together, and gives a
string that tells them apart when there is one. Patterns are ECMA-262 and
match anywhere in the string (``search``), as JSON Schema reads them.

Bounded: a pattern longer than MAX_PATTERN characters, a repetition count
past MAX_REPEAT, an automaton past MAX_NFA states or a joint walk past
MAX_STATES gives None ("cannot say"), as do lookarounds, backreferences and
flags. Python's regex parser reads the syntax; what each class and escape
means is ECMA-262's, spelled out here.
"""

import functools

try:  # Python 3.11+
    from re import _constants as _c
    from re import _parser as _p
except ImportError:  # pragma: no cover - older Pythons
    import sre_constants as _c
    import sre_parse as _p

MAX_PATTERN = 500
MAX_REPEAT = 256
MAX_NFA = 4000
MAX_STATES = 4000
TOP = 0x10FFFF
# ECMA-262: what \s matches, and the line terminators "." does not match
_SPACE = [(0x09, 0x0D), (0x20, 0x20), (0xA0, 0xA0), (0x1680, 0x1680), (0x2000, 0x200A),
          (0x2028, 0x2029), (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000), (0xFEFF, 0xFEFF)]
_DIGIT = [(0x30, 0x39)]
_WORD = [(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)]
_LINE = [(0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029)]


class _Unknown(Exception):
    """Outside what this module can read, or past its bounds."""


def _complement(ranges):
    out, start = [], 0
    for lo, hi in sorted(ranges):
        if lo > start:
            out.append((start, lo - 1))
        start = max(start, hi + 1)
    if start <= TOP:
        out.append((start, TOP))
    return out


_CATEGORIES = {
    "CATEGORY_DIGIT": _DIGIT, "CATEGORY_NOT_DIGIT": _complement(_DIGIT),
    "CATEGORY_WORD": _WORD, "CATEGORY_NOT_WORD": _complement(_WORD),
    "CATEGORY_SPACE": _SPACE, "CATEGORY_NOT_SPACE": _complement(_SPACE),
}


class _Nfa:
    """Thompson's construction: states are ints, ``moves[s]`` a list of
    (ranges or None for an empty move, target)."""

    def __init__(self):
        self.moves = []

    def state(self):
        if len(self.moves) >= MAX_NFA:
            raise _Unknown("automaton too large")
        self.moves.append([])
        return len(self.moves) - 1

    def piece(self, items):
        """(start, end) of a sequence of parsed items."""
        start = end = self.state()
        for op, arg in items:
            s, e = self.item(op, arg)
            self.moves[end].append((None, s))
            end = e
        return start, end

    def chars(self, ranges):
        s, e = self.state(), self.state()
        self.moves[s].append((ranges, e))
        return s, e

    def item(self, op, arg):
        name = str(op)
        if name == "LITERAL":
            return self.chars([(arg, arg)])
        if name == "NOT_LITERAL":
            return self.chars(_complement([(arg, arg)]))
        if name == "ANY":
            return self.chars(_complement(_LINE))
        if name == "IN":
            return self.chars(_class(arg))
        if name == "SUBPATTERN":
            group, add, remove, body = arg
            if add or remove:
                raise _Unknown("flags")
            return self.piece(body)
        if name == "BRANCH":
            s, e = self.state(), self.state()
            for body in arg[1]:
                bs, be = self.piece(body)
                self.moves[s].append((None, bs))
                self.moves[be].append((None, e))
            return s, e
        if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, high, body = arg
            unbounded = high == _c.MAXREPEAT
            if low > MAX_REPEAT or (not unbounded and high > MAX_REPEAT):
                raise _Unknown("repetition too long")
            start = end = self.state()
            for _ in range(low):
                bs, be = self.piece(body)
                self.moves[end].append((None, bs))
                end = be
            if unbounded:
                bs, be = self.piece(body)
                self.moves[end].append((None, bs))
                self.moves[be].append((None, end))
                return start, end
            tail = self.state()
            self.moves[end].append((None, tail))
            for _ in range(high - low):
                bs, be = self.piece(body)
                self.moves[end].append((None, bs))
                self.moves[be].append((None, tail))
                end = be
            return start, tail
        raise _Unknown(name)  # lookarounds, backreferences, anchors inside


def _class(items):
    ranges, negate = [], False
    for op, arg in items:
        name = str(op)
        if name == "NEGATE":
            negate = True
        elif name == "LITERAL":
            ranges.append((arg, arg))
        elif name == "RANGE":
            ranges.append(arg)
        elif name == "CATEGORY" and str(arg) in _CATEGORIES:
            ranges += _CATEGORIES[str(arg)]
        else:
            raise _Unknown(name)
    return _complement(ranges) if negate else sorted(ranges)


@functools.lru_cache(maxsize=1024)  # the same patterns meet again and again
def _language(pattern):
    """The parts of a pattern's language: [(nfa, start, end, wanted)], a
    string being in it when each part's automaton accepts it exactly where
    ``wanted`` (the pattern itself, and each lookahead it opens with: ``^(?=R)``
    wants R and anything after, ``^(?!R)`` does not)."""
    if not isinstance(pattern, str) or len(pattern) > MAX_PATTERN:
        raise _Unknown("pattern too long")
    try:
        tree = _p.parse(pattern)
    except Exception as exc:  # re.error, RecursionError, OverflowError
        raise _Unknown(type(exc).__name__) from None
    if tree.state.flags & ~_c.SRE_FLAG_UNICODE:
        raise _Unknown("flags")  # (?i) and the like: not ECMA-262 pattern syntax
    parsed = list(tree)
    head = bool(parsed) and str(parsed[0][0]) == "AT" and str(parsed[0][1]) in (
        "AT_BEGINNING", "AT_BEGINNING_STRING")
    parts = []
    rest = parsed[1:] if head else parsed
    while head and rest and str(rest[0][0]) in ("ASSERT", "ASSERT_NOT"):
        direction, look = rest[0][1]
        if direction != 1:
            raise _Unknown("lookbehind")
        parts.append(_part(list(look), True, str(rest[0][0]) == "ASSERT"))
        rest = rest[1:]
    return tuple([_part(rest, head, True)] + parts)


def _part(items, head, wanted):
    """One automaton: ``items`` matched from the start when ``head``, else
    anywhere; to the end when they end with ``$``, else with anything after."""
    tail = bool(items) and str(items[-1][0]) == "AT" and str(items[-1][1]) in (
        "AT_END", "AT_END_STRING")
    body = items[: len(items) - 1] if tail else items
    nfa = _Nfa()
    start, end = nfa.piece(body)
    if not head:  # anything may come first
        loop = nfa.state()
        nfa.moves[loop] += [([(0, TOP)], loop), (None, start)]
        start = loop
    if not tail:
        after = nfa.state()
        nfa.moves[end].append((None, after))
        nfa.moves[after].append(([(0, TOP)], after))
        end = after
    return nfa, start, end, wanted


def _closure(nfa, states):
    seen, stack = set(states), list(states)
    while stack:
        for ranges, target in nfa.moves[stack.pop()]:
            if ranges is None and target not in seen:
                seen.add(target)
                stack.append(target)
    return frozenset(seen)


def _step(nfa, states, char):
    return _closure(nfa, [t for s in states for ranges, t in nfa.moves[s]
                          if ranges is not None and any(lo <= char <= hi for lo, hi in ranges)])


def _points(*nfas):
    """One character from each stretch of the alphabet no range splits."""
    cuts = {0}
    for nfa in nfas:
        for moves in nfa.moves:
            for ranges, _ in moves:
                for lo, hi in ranges or ():
                    cuts.add(lo)
                    if hi < TOP:
                        cuts.add(hi + 1)
    return sorted(cuts)


def _printable(points):
    """Prefer readable characters where a stretch offers one."""
    out = []
    bounds = points + [TOP + 1]
    for lo, nxt in zip(points, bounds[1:]):
        hi = nxt - 1
        pick = next((c for c in (ord("a"), ord("0"), ord("A"), ord("_"), ord("-"), ord("."), ord(" "))
                     if lo <= c <= hi), None)
        if pick is None:
            pick = lo if lo >= 0x20 or hi < 0x20 else max(lo, 0x20)
        out.append(pick)
    return out


def _accepts(parts, states) -> bool:
    return all((end in state) == wanted for (nfa, start, end, wanted), state in zip(parts, states))


def _begin(parts):
    return tuple(_closure(nfa, [start]) for nfa, start, end, wanted in parts)


def _advance(parts, states, char):
    return tuple(_step(nfa, state, char) for (nfa, *_), state in zip(parts, states))


@functools.lru_cache(maxsize=1024)  # compare and lost ask for the same pairs (the walk, then the proof)
def difference(a, b):
    """The shortest string pattern ``a`` matches and ``b`` does not ("" may
    be one); None when there is none. Raises _Unknown when it cannot say."""
    pa, pb = _language(a), _language(b)
    chars = _printable(_points(*(nfa for nfa, *_ in pa + pb)))
    first = (_begin(pa), _begin(pb))
    seen = {first: ""}
    queue = [first]
    while queue:
        pair = queue.pop(0)
        text = seen[pair]
        if _accepts(pa, pair[0]) and not _accepts(pb, pair[1]):
            return text
        for char in chars:
            nxt = (_advance(pa, pair[0], char), _advance(pb, pair[1], char))
            if not nxt[0][0] or nxt in seen:
                continue  # the pattern itself can no longer match: nothing of a's ahead
            if len(seen) >= MAX_STATES:
                raise _Unknown("too many states")
            seen[nxt] = text + chr(char)
            queue.append(nxt)
    return None


@functools.lru_cache(maxsize=1024)  # the same patterns meet again and again
def shortest(pattern):
    """The length of the shortest string ``pattern`` matches (None: none
    matches, or it cannot say)."""
    try:
        found = difference(pattern, "^(?=a)b")  # a pattern that matches nothing
    except (_Unknown, RecursionError, MemoryError):
        return None
    return None if found is None else len(found)


@functools.lru_cache(maxsize=1024)  # the same patterns meet again and again
def compare(old, new):
    """"same", "wider" (the new pattern matches every string the old one
    did, and more), "narrower", "apart", or None (cannot say)."""
    try:
        lost = difference(old, new)
        gained = difference(new, old)
    except (_Unknown, RecursionError, MemoryError):
        return None
    if lost is None and gained is None:
        return "same"
    if lost is None:
        return "wider"
    if gained is None:
        return "narrower"
    return "apart"


def lost(old, new):
    """A string the old pattern matches and the new one does not, or None."""
    try:
        return difference(old, new)
    except (_Unknown, RecursionError, MemoryError):
        return None


def matches(pattern, text):
    """Does ``pattern`` match somewhere in ``text``? None: cannot say (the
    pattern is of a kind this module does not read, or ``text`` is long)."""
    if not isinstance(text, str) or not isinstance(pattern, str) or len(text) > 4 * MAX_PATTERN:
        return None
    return _matches(pattern, text)


@functools.lru_cache(maxsize=4096)  # the same few texts are tried against each pattern
def _matches(pattern, text):
    try:
        parts = _language(pattern)
        states = _begin(parts)
        for char in text:
            states = _advance(parts, states, ord(char))
        return _accepts(parts, states)
    except (_Unknown, RecursionError, MemoryError):
        return None
