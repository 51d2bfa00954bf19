"""The prose classifier: could this text change move a model's tool selection?

The five steps of spec/severities.md, in order. It errs toward
POTENTIALLY_BREAKING: a false positive costs a line in a review comment, a
false negative silently ships a tool-selection regression.
"""

import re
from collections import Counter

from pipeline.engine.catalog import DOCUMENTATION, POTENTIALLY_BREAKING

# Step 5 thresholds on rapidfuzz's 0-100 scores. DOCUMENTATION needs one score
# at or above HIGH (a typo fix, a reflowed phrase) and neither below LOW: a
# same-length rewrite scores high on characters but low on tokens, and token
# overlap alone would call a one-letter typo in a four-word text different.
HIGH_SIMILARITY = 90.0
LOW_SIMILARITY = 70.0

NEGATIONS = frozenset({"not", "never", "without", "no", "none", "nor", "cannot"})
MODALITY = frozenset({"must", "should", "only", "required", "optional", "may", "shall", "always"})

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_NUMBER = re.compile(r"^\d")
_SPACE = re.compile(r"\s+")
_TRAILING_PUNCT = re.compile(r"[\s.,;:!?…]+$")


def normalise(text: str) -> str:
    """Step 1's form: lowercase, whitespace collapsed, trailing punctuation gone."""
    return _TRAILING_PUNCT.sub("", _SPACE.sub(" ", text.lower()).strip())


def _markers(words) -> Counter:
    found = Counter()
    for w in words:
        if w in NEGATIONS or w.endswith(("n't", "n’t")) or w in MODALITY or _NUMBER.match(w):
            found[w] += 1
    return found


def classify(old, new):
    """Return (severity, reason) for a prose change. ``None`` counts as empty."""
    a = normalise(old if isinstance(old, str) else "")
    b = normalise(new if isinstance(new, str) else "")
    if a == b:
        return DOCUMENTATION, "whitespace, case or trailing punctuation only"
    if not a or not b:
        return POTENTIALLY_BREAKING, "text added" if b else "text removed"
    words_a, words_b = _WORD.findall(a), _WORD.findall(b)
    marks_a, marks_b = _markers(words_a), _markers(words_b)
    if marks_a != marks_b:
        gone = sorted((marks_a - marks_b).elements())
        came = sorted((marks_b - marks_a).elements())
        return POTENTIALLY_BREAKING, f"semantic markers changed: {gone} -> {came}"
    if words_a != words_b and Counter(words_a) == Counter(words_b):
        return POTENTIALLY_BREAKING, "same words in a different order"
    from rapidfuzz import fuzz, utils  # only prose that really changed pays for it

    chars = fuzz.ratio(a, b, processor=utils.default_process)
    tokens = fuzz.token_set_ratio(a, b, processor=utils.default_process)
    reason = f"similarity {chars:.0f} (characters) / {tokens:.0f} (tokens)"
    if max(chars, tokens) >= HIGH_SIMILARITY and min(chars, tokens) >= LOW_SIMILARITY:
        return DOCUMENTATION, "reworded, " + reason
    return POTENTIALLY_BREAKING, "rewritten, " + reason
