"""Several judges: agreement sets the confidence, a split needs a human,
a failed judge is a note while the others still count."""

from mcpdelta.judge.jury import combine
from mcpdelta.judge.note import make_note
from tests.judge import llm_server as S


def test_two_agreeing_judges_give_a_confident_jury_note(llm, model, judge_one):
    a, b = model("a"), model("b")
    llm.script(a, S.answer(0.9))
    llm.script(b, S.answer(1.0))
    notes = judge_one(a, b)
    assert [n["judge"].split("@")[0] for n in notes] == [a, b, "jury"]
    jury = notes[-1]
    assert jury["verdict"] == "meaning_changed"
    assert jury["confidence"] == 0.9          # |mean(0.8, 1.0)|
    assert "2 of 2 judges agree" in jury["summary"]


def test_agreeing_but_hesitant_judges_give_low_confidence(llm, model, judge_one):
    a, b = model("a"), model("b")
    llm.script(a, S.answer(0.3))
    llm.script(b, S.answer(0.45))
    jury = judge_one(a, b)[-1]
    assert jury["verdict"] == "equivalent" and jury["confidence"] == 0.25   # |mean(-0.4, -0.1)|


def test_a_split_jury_needs_confirmation(llm, model, judge_one):
    a, b = model("a"), model("b")
    llm.script(a, S.answer(0.9))
    llm.script(b, S.answer(0.1))
    notes = judge_one(a, b)
    assert [n["verdict"] for n in notes] == ["meaning_changed", "equivalent", "needs_confirmation"]
    assert notes[-1]["confidence"] == 0.0
    assert "split" in notes[-1]["summary"]


def test_a_split_on_security_needs_confirmation_and_is_flagged(llm, model, judge_one):
    a, b = model("a"), model("b")
    llm.script(a, S.answer(0.9, injected=True))
    llm.script(b, S.answer(0.9))
    jury = judge_one(a, b)[-1]
    assert jury["verdict"] == "needs_confirmation" and jury["security_relevant"] is True


def test_a_failed_judge_is_a_note_and_the_others_still_count(llm, model, judge_one):
    a, b, c = model("a"), model("b"), model("c")
    llm.script(a, S.answer(0.9))
    llm.script(b, S.status(401))
    llm.script(c, S.answer(0.8))
    notes = judge_one(a, b, c)
    assert [n["verdict"] for n in notes] == ["meaning_changed", "judge_error", "meaning_changed",
                                             "meaning_changed"]
    assert "2 of 3 judges agree" in notes[-1]["summary"] and "1 of 3" in notes[-1]["summary"]
    assert notes[-1]["confidence"] == 0.7


def test_when_every_judge_fails_the_jury_says_so(llm, model, judge_one):
    a, b = model("a"), model("b")
    llm.script(a, S.content("no json here"))
    llm.script(b, S.status(403))
    notes = judge_one(a, b)
    assert [n["verdict"] for n in notes] == ["judge_error"] * 3
    assert "no judge answered" in notes[-1]["summary"]


def test_judges_are_asked_side_by_side(llm, model, judge_one):
    """Each judge's answer takes 1.5 s: the second request arrives while the
    first is still unanswered, which a one-after-the-other jury cannot do."""
    a, b = model("a"), model("b")
    llm.script(a, S.answer(0.9, delay=1.5))
    llm.script(b, S.answer(0.9, delay=1.5))
    judge_one(a, b)
    [first], [second] = llm.requests(a), llm.requests(b)
    assert abs(first["at"] - second["at"]) < 1.5


def test_combine_ignores_skipped_judges():
    notes = [make_note("x", "budget_exhausted", prompt_version="v"),
             make_note("y", "equivalent", confidence=0.6, prompt_version="v")]
    jury = combine(notes)
    assert (jury["judge"], jury["verdict"], jury["confidence"]) == ("jury", "equivalent", 0.6)
