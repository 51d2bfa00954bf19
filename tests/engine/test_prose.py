"""The prose classifier's five steps, each on its own, in spec order."""

import pytest

from pipeline.engine.catalog import DOCUMENTATION as DOC, POTENTIALLY_BREAKING as PB
from pipeline.engine.prose import HIGH_SIMILARITY, LOW_SIMILARITY, classify, normalise


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
