"""Patterns compared as the strings they match (mcpdelta.engine.regex),
checked against Python's own regex engine on the strings it returns and on
strings drawn at random."""

import re

from hypothesis import given, settings, strategies as st

from mcpdelta.engine.regex import MAX_PATTERN, compare, lost

PIECES = ["a", "b", "[ab]", "[a-c]", "\\d", "[0-9a]", "x?", "(?:ab|b)", "a+", "b*", "[^a]", "."]


LOOKS = ["", "(?!a)", "(?=.b)", "(?!.*ab)", "(?=[ab]*$)"]


@st.composite
def patterns(draw):
    body = "".join(draw(st.lists(st.sampled_from(PIECES), min_size=1, max_size=4)))
    shape = draw(st.sampled_from(["^{}$", "{}", "^{}", "{}$"]))
    if shape.startswith("^"):  # lookaheads are read right after the ^
        body = draw(st.sampled_from(LOOKS)) + body
    return shape.format(body)


def _search(pattern, text):
    """ECMA-262's reading, in Python: ``$`` only at the very end, ``.`` no
    line terminator of ECMA's."""
    python = pattern.replace(".", "[^\n\r\u2028\u2029]")
    if python.endswith("$"):
        python = python[:-1] + "\\Z"
    return re.search(python, text) is not None


@settings(max_examples=150, deadline=None)
@given(patterns(), patterns(), st.lists(st.text(alphabet="ab0c1x ", max_size=6), max_size=20))
def test_the_verdict_agrees_with_pythons_engine(old, new, texts):
    verdict = compare(old, new)
    assert verdict in ("same", "wider", "narrower", "apart")
    found = lost(old, new)
    if found is not None:  # a string the old pattern matches and the new one does not
        assert _search(old, found) and not _search(new, found), (old, new, found)
    for text in texts:
        if verdict in ("same", "wider") and _search(old, text):
            assert _search(new, text), (old, new, text)
        if verdict in ("same", "narrower") and _search(new, text):
            assert _search(old, text), (old, new, text)


def test_named_verdicts():
    assert compare("^[a-z][a-z0-9_]*$", "^[a-z][a-z_]*$") == "narrower"
    assert lost("^[a-z][a-z0-9_]*$", "^[a-z][a-z_]*$") == "a0"
    assert compare("^\\d+$", "^[0-9]+$") == "same"
    assert compare("^[a-z]+\\.(png|svg)$", "^[a-z]+\\.(png|svg|gif)$") == "wider"
    assert compare("abc", "^abc$") == "narrower"  # unanchored: "0abc" matched before
    assert compare("^\\s$", "^ $") == "narrower"  # ECMA's \s takes a no-break space too


def test_what_it_cannot_read_or_bound_it_does_not_judge():
    assert compare("^a(?=b)", "^ab") is None             # a lookahead past the start
    assert compare("(?<=a)b", "b") is None               # lookbehind
    assert compare("^(a)\\1$", "^aa$") is None           # backreference
    assert compare("^a{1000}$", "^a*$") is None          # repetition past the bound
    assert compare("a" * (MAX_PATTERN + 1), "a") is None  # a pattern past the bound
    assert compare("(?i)a", "a") is None                 # flags
    # many states: a bounded walk, not a hang
    assert compare("^(a|b)*a(a|b){12}$", "^(a|b)*b(a|b){12}$") in (None, "apart")
