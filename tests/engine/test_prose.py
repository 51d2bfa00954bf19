"""The prose classifier's five steps, each on its own, in spec order."""

import pytest
from hypothesis import given, settings, strategies as st

from mcpdelta.engine.catalog import DOCUMENTATION as DOC, POTENTIALLY_BREAKING as PB
from mcpdelta.engine.prose import (HIGH_SIMILARITY, LOW_SIMILARITY, classify, lcs_length,
                                   normalise, python_ratio)


def test_step1_case_whitespace_and_trailing_punctuation_are_documentation():
    assert normalise("  Search   the WEB.  ") == "search the web"
    assert classify("Search the web", "search  the web.")[0] == DOC


@pytest.mark.parametrize("old,new", [("", "Deletes a file"), ("Deletes a file", ""),
                                     (None, "Deletes a file"), ("Deletes a file", None)])
def test_step2_adding_or_removing_text_is_never_a_typo_fix(old, new):
    assert classify(old, new)[0] == PB


@pytest.mark.parametrize("old,new", [
    ("limit defaults to 10", "limit defaults to 100"),        # the spec's example
    ("Never deletes files", "Deletes files"),                  # negation gone
    ("Works without a token", "Works with a token"),
    ("You should call search first", "You must call search first"),  # modality moved
    ("Returns the optional summary", "Returns the required summary"),
    ("Do not retry", "Do retry"),
    ("Don't retry on failure", "Do retry on failure"),
])
def test_step3_a_semantic_marker_differs(old, new):
    severity, reason = classify(old, new)
    assert severity == PB
    assert reason.startswith("semantic markers changed")


def test_step3_fires_whatever_the_similarity():
    # a two-character edit, similarity far above HIGH_SIMILARITY
    assert classify("Fetches up to 1000 rows from the table", "Fetches up to 10 rows from the table")[0] == PB


def test_step4_same_words_different_order():
    severity, reason = classify("use search before create", "use create before search")
    assert (severity, reason) == (PB, "same words in a different order")


def test_step5_one_typo_in_a_four_word_description_is_documentation():
    assert classify("Search the web quickly", "Search the wbe quickly")[0] == DOC


def test_step5_a_rewritten_sentence_of_the_same_length_is_potentially_breaking():
    old, new = "Returns the list of open issues", "Deletes every closed ticket now"
    assert len(old) == len(new)
    assert classify(old, new)[0] == PB


def test_step5_needs_one_high_score_and_no_low_score():
    assert LOW_SIMILARITY < HIGH_SIMILARITY
    # near-identical wording: documentation
    assert classify("Lists the repositories of a user", "Lists the repositories for a user")[0] == DOC
    # a verb swapped: neither score is high
    assert classify("Creates a note in the store", "Removes a note from the store")[0] == PB


def test_step_order_markers_before_word_order():
    # reordered AND a number changed: the marker step answers first
    severity, reason = classify("limit 10 then sort", "sort then limit 20")
    assert severity == PB and reason.startswith("semantic markers")


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(st.text(alphabet="ab c\u00e9\U0001f600", max_size=80), st.text(alphabet="abd c\u00e9", max_size=80))
def test_the_python_score_is_rapidfuzz_s_exactly(a, b):
    """Step 5's score comes from a Python LCS for short texts (no rapidfuzz
    import) and from rapidfuzz for long ones: the same float either way, on
    characters and on sorted word lists."""
    from rapidfuzz import fuzz

    assert python_ratio(a, b) == fuzz.ratio(a, b)
    words_a, words_b = sorted(set(a.split())), sorted(set(b.split()))
    assert python_ratio(words_a, words_b) == fuzz.ratio(words_a, words_b)


def test_the_python_lcs_on_known_pairs():
    assert lcs_length("", "") == 0
    assert lcs_length("abc", "") == 0
    assert lcs_length("lewenstein", "levenshtein") == 9
    assert lcs_length(["read", "files"], ["write", "files"]) == 1
    long_a, long_b = "x" * 300 + "ab" * 400, "ab" * 400 + "y" * 300  # past one machine word
    assert lcs_length(long_a, long_b) == 800


_SPACE_CHARS = " \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2028\u2029\u202f\u3000"


@settings(max_examples=600, deadline=None, derandomize=True, database=None)
@given(st.text(alphabet=_SPACE_CHARS + "aZ.,;:!?…'\u200b\ufeffİ", max_size=40))
def test_step1_is_the_regular_expressions_reading(text):
    """Step 1 in its spec's words: every run of whitespace (what ``\\s``
    matches, Unicode's too) one space, the ends trimmed, then trailing
    punctuation and space gone."""
    import re

    spelled = re.sub(r"[\s.,;:!?…]+$", "", re.sub(r"\s+", " ", text.lower()).strip())
    assert normalise(text) == spelled


@pytest.mark.parametrize("old,new,gone,came", [
    ("limit 10 or 10", "limit 10", ["10"], []),                  # one of two the same
    ("never 1 2 2", "not 2 3", ["1", "2", "never"], ["3", "not"]),
    ("must retry", "should retry twice", ["must"], ["should", "twice"]),
])
def test_step3_names_the_markers_each_side_lost(old, new, gone, came):
    assert classify(old, new) == (PB, f"semantic markers changed: {gone} -> {came}")
