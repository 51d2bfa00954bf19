"""The prose classifier: could this text change move a model's tool selection?

The five steps of spec/severities.md, in order. It errs toward
POTENTIALLY_BREAKING: a false positive costs a line in a review comment, a
false negative silently ships a tool-selection regression.
"""

import re
import sys

from mcpdelta.engine.catalog import DOCUMENTATION, POTENTIALLY_BREAKING
from mcpdelta.engine.remember import memo

# Step 5 thresholds on 0-100 scores. DOCUMENTATION needs one score at or above
# HIGH and neither below LOW. Characters: rapidfuzz's Indel ratio of the two
# texts. Tokens: the same ratio over the two sorted sets of words, which is
# the Dice overlap 2|A&B|/(|A|+|B|). One typo in a three- or four-word text
# scores about 95 / 67-75 (documentation); one word swapped for another in a
# short text ("read files" -> "write files") 76 / 50, and a same-length
# rewrite low on both (potentially breaking).
HIGH_SIMILARITY = 90.0
LOW_SIMILARITY = 60.0

NEGATIONS = frozenset({"not", "never", "without", "no", "non", "none", "nor", "cannot"})
NEGATING_PREFIXES = ("un", "non", "in", "im", "dis", "ir", "il")
MODALITY = frozenset({"must", "should", "only", "required", "optional", "may", "shall", "always"})
NUMBER_WORDS = frozenset(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty "
    "ninety hundred thousand million billion once twice first second third half".split())

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_NUMBER = re.compile(r"\d")  # any token with a digit: 10, v2, ipv6, 2x
_TRAILING_PUNCT = " .,;:!?…"  # once whitespace is single spaces, the only space left


def normalise(text: str) -> str:
    """Step 1's form: lowercase, whitespace collapsed, trailing punctuation
    gone (str.split's whitespace is the regular expressions' \\s)."""
    return " ".join(text.lower().split()).rstrip(_TRAILING_PUNCT)


_MARKER_WORDS = NEGATIONS | MODALITY | NUMBER_WORDS


def _markers(words) -> list:
    """The marker words, sorted: two texts' markers differ as multisets
    exactly when these lists do."""
    # a contraction or a token with a digit is never all letters: most
    # words are, and cost one set look-up and one isalpha
    return sorted([w for w in words if w in _MARKER_WORDS or (
        not w.isalpha() and (w.endswith(("n't", "n’t")) or _NUMBER.search(w)))])


def _without(words: list, others: list) -> list:
    """The multiset difference of two sorted lists, sorted (one merge:
    Counter subtraction costs ten times as much on these short lists)."""
    out, i = [], 0
    for word in words:
        while i < len(others) and others[i] < word:
            i += 1
        if i < len(others) and others[i] == word:
            i += 1
        else:
            out.append(word)
    return out


def _negated_by_prefix(a: set, b: set):
    """A word that gained or lost a negating prefix (safe -> unsafe): a
    negation as strong as "not", spelled inside the word."""
    for gained, base in ((b - a, a), (a - b, b)):
        for word in sorted(gained):
            for prefix in NEGATING_PREFIXES:
                if word.startswith(prefix) and word[len(prefix):] in base:
                    return word
    return None


def classify(old, new):
    """Return (severity, reason) for a prose change. ``None`` counts as empty.
    While ``remembered`` lasts, two texts met again are not scored again."""
    known = memo("prose")
    if known is None or not (isinstance(old, (str, type(None))) and isinstance(new, (str, type(None)))):
        return _classified(old, new)
    key = (old, new)
    found = known.get(key)
    if found is None:
        found = known[key] = _classified(old, new)
    return found


def _classified(old, new):
    a = normalise(old if isinstance(old, str) else "")
    b = normalise(new if isinstance(new, str) else "")
    if a == b:
        return DOCUMENTATION, "whitespace, case or trailing punctuation only"
    if not a or not b:
        return POTENTIALLY_BREAKING, "text added" if b else "text removed"
    words_a, words_b = _WORD.findall(a), _WORD.findall(b)
    marks_a, marks_b = _markers(words_a), _markers(words_b)
    if marks_a != marks_b:
        gone, came = _without(marks_a, marks_b), _without(marks_b, marks_a)
        return POTENTIALLY_BREAKING, f"semantic markers changed: {gone} -> {came}"
    negated = _negated_by_prefix(set(words_a), set(words_b))
    if negated:
        return POTENTIALLY_BREAKING, f"negated by a prefix: {negated}"
    if words_a != words_b and sorted(words_a) == sorted(words_b):
        return POTENTIALLY_BREAKING, "same words in a different order"
    chars = ratio(a, b)
    tokens = ratio(sorted(set(words_a)), sorted(set(words_b)))
    reason = f"similarity {chars:.0f} (characters) / {tokens:.0f} (tokens)"
    if max(chars, tokens) >= HIGH_SIMILARITY and min(chars, tokens) >= LOW_SIMILARITY:
        return DOCUMENTATION, "reworded, " + reason
    return POTENTIALLY_BREAKING, "rewritten, " + reason


# Below this many cells (len(a) * len(b), about 1 ms here) the Python LCS
# costs less than importing rapidfuzz (about 20 ms of CPU); above it, or once
# rapidfuzz is loaded (the survey's workers load it), rapidfuzz. Both give
# the exact same score (tests/engine/test_prose.py holds them to each other).
SMALL = 1_000_000


def ratio(a, b) -> float:
    """rapidfuzz's ``fuzz.ratio``: the normalised Indel similarity of two
    sequences (strings, or lists of words), 0 to 100."""
    fuzz = sys.modules.get("rapidfuzz.fuzz")
    if fuzz is None and len(a) * len(b) > SMALL:
        from rapidfuzz import fuzz
    if fuzz is not None:
        return fuzz.ratio(a, b)
    return python_ratio(a, b)


def python_ratio(a, b) -> float:
    total = len(a) + len(b)
    if not total:
        return 100.0
    return (1 - (total - 2 * lcs_length(a, b)) / total) * 100  # rapidfuzz's own arithmetic


def lcs_length(a, b) -> int:
    """Length of the longest common subsequence, bit-parallel (Hyyrö 2004):
    one pass over ``b``, each step a few integer operations on one bit per
    element of ``a``."""
    if len(a) < len(b):
        a, b = b, a
    masks, bit = {}, 1
    for x in a:
        masks[x] = masks.get(x, 0) | bit
        bit <<= 1
    full = bit - 1
    row = full
    for y in b:
        match = masks.get(y)
        if match:
            low = row & match
            row = ((row + low) | (row - low)) & full
    return len(a) - bin(row).count("1")
