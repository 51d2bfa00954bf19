"""The client against a real loopback server: answers, retries, refusals."""

import time

from mcpdelta.judge.client import ATTEMPTS
from mcpdelta.judge.prompt import PROMPT_VERSION
from tests.judge import llm_server as S
from tests.judge.conftest import KEY


def test_a_well_formed_answer_becomes_a_note_with_the_documented_keys(llm, model, judge_one):
    m = model()
    llm.script(m, S.answer(0.9, summary="now shares queries with a partner", security=True))
    notes = judge_one(m)
    assert notes == [{"judge": f"{m}@127.0.0.1:{llm.port}", "verdict": "meaning_changed",
                      "security_relevant": True, "confidence": 0.8,
                      "summary": "now shares queries with a partner", "prompt_version": PROMPT_VERSION}]
    (request,) = llm.requests(m)
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["authorization"] == f"Bearer {KEY}"
    assert request["body"]["response_format"]["type"] == "json_schema"
    user = request["body"]["messages"][-1]["content"]
    assert "Search the catalog by keyword." in user and "newest items first" in user
    assert "tool.description.changed" in user and '"search"' in user


def test_a_low_score_is_equivalent(llm, model, judge_one):
    m = model()
    llm.script(m, S.answer(0.1, summary="same meaning"))
    (note,) = judge_one(m)
    assert (note["verdict"], note["confidence"], note["security_relevant"]) == ("equivalent", 0.8, False)


def test_an_injected_instruction_is_security_relevant(llm, model, judge_one):
    m = model()
    llm.script(m, S.answer(0.95, injected=True, security=False))
    (note,) = judge_one(m)
    assert note["security_relevant"] is True


def test_an_endpoint_given_as_chat_completions_url_works(llm, model, judge_one, judge_entry):
    m = model()
    llm.script(m, S.answer(0.9))
    (note,) = judge_one(judge_entry(m, endpoint=llm.base_url + "/chat/completions"))
    assert note["verdict"] == "meaning_changed"
    assert [r["path"] for r in llm.requests(m)] == ["/v1/chat/completions"]


def test_429_with_retry_after_is_waited_for_then_retried(llm, model, judge_one):
    m = model()
    llm.script(m, S.status(429, retry_after=1), S.answer(0.9))
    started = time.monotonic()
    (note,) = judge_one(m)
    assert note["verdict"] == "meaning_changed"
    first, second = llm.requests(m)
    assert second["at"] - first["at"] >= 0.95          # the header, not the 0.25 s backoff
    assert time.monotonic() - started < 5


def test_retry_after_ms_is_honoured(llm, model, judge_one):
    m = model()
    llm.script(m, S.status(429, retry_after_ms=600), S.answer(0.9))
    (note,) = judge_one(m)
    first, second = llm.requests(m)
    assert note["verdict"] == "meaning_changed" and second["at"] - first["at"] >= 0.55


def test_a_retry_after_past_the_cap_is_not_waited_for(llm, model, judge_one):
    m = model()
    llm.script(m, S.status(429, retry_after=3600), S.answer(0.9))
    started = time.monotonic()
    (note,) = judge_one(m)
    assert note["verdict"] == "judge_error" and "429" in note["summary"]
    assert llm.count(m) == 1 and time.monotonic() - started < 3


def test_500_then_200_is_retried(llm, model, judge_one):
    m = model()
    llm.script(m, S.status(500), S.answer(0.2))
    (note,) = judge_one(m)
    assert note["verdict"] == "equivalent"
    assert llm.count(m) == 2


def test_a_lasting_5xx_gives_up_after_the_attempts_with_a_judge_error(llm, model, judge_one):
    m = model()
    llm.script(m, S.status(503, retry_after=0))
    (note,) = judge_one(m)
    assert note["verdict"] == "judge_error" and "503" in note["summary"]
    assert note["confidence"] == 0.0 and note["security_relevant"] is False
    assert llm.count(m) == ATTEMPTS


def test_401_is_not_retried(llm, model, judge_one):
    m = model()
    llm.script(m, S.status(401, message="bad key"), S.answer(0.9))
    (note,) = judge_one(m)
    assert note["verdict"] == "judge_error" and "401" in note["summary"]
    assert llm.count(m) == 1


def test_404_is_not_retried(llm, model, judge_one):
    m = model()
    llm.script(m, S.status(404, message="no such model"))
    (note,) = judge_one(m)
    assert note["verdict"] == "judge_error" and llm.count(m) == 1


def test_a_hang_past_the_timeout_is_a_judge_error_after_retries(llm, model, judge_one, judge_entry):
    m = model()
    llm.script(m, S.slow(2.0, S.answer(0.9)))
    started = time.monotonic()
    (note,) = judge_one(judge_entry(m, timeout="200ms"))
    assert note["verdict"] == "judge_error" and "timed out" in note["summary"]
    assert llm.count(m) == ATTEMPTS
    assert time.monotonic() - started < 6


def test_a_slow_answer_within_the_timeout_is_fine(llm, model, judge_one):
    m = model()
    llm.script(m, S.slow(0.3, S.answer(0.9)))
    (note,) = judge_one(m)
    assert note["verdict"] == "meaning_changed" and llm.count(m) == 1


def test_a_refused_response_format_falls_back_to_plain_json(llm, model, judge_one):
    m = model()
    llm.script(m, S.rejects_response_format(S.content(
        'Sure! Here is my verdict:\n```json\n{"meaning_score": 0.7, "selection_intent_changed": "yes",'
        ' "side_effects_changed": false, "injected_instruction": false, "security_relevant": false,'
        ' "summary": "ordering now matters"}\n```')))
    (note,) = judge_one(m)
    assert note["verdict"] == "meaning_changed" and note["summary"] == "ordering now matters"
    first, second = llm.requests(m)
    assert "response_format" in first["body"] and "response_format" not in second["body"]


def test_after_a_refusal_the_judge_stops_sending_response_format(llm, model, diff_result,
                                                                  config_for, judge_entry, env):
    from mcpdelta.judge import annotate
    from mcpdelta.judge.cache import MemoryCache
    from tests.judge.conftest import NEW, OLD, PROSE_CHANGES

    m = model()
    llm.script(m, S.rejects_response_format(S.answer(0.6)))
    result = diff_result(OLD, NEW)
    annotate(result, config_for([judge_entry(m)]), cache=MemoryCache(), environ=env)
    assert all(n["verdict"] == "meaning_changed" for c in result.changes for n in c.advisory)
    with_format = [r for r in llm.requests(m) if "response_format" in r["body"]]
    assert llm.count(m) - len(with_format) == PROSE_CHANGES
    assert len(with_format) <= 4   # only the calls already in flight when the refusal came


def test_malformed_answers_are_judge_errors_never_crashes(llm, model, judge_one):
    cases = {
        "prose": S.content("I think the meaning moved a lot."),
        "score": S.content('{"meaning_score": "very", "summary": "x"}'),
        "range": S.content('{"meaning_score": 7, "summary": "x"}'),
        "empty": S.content(""),
        "list": S.content("[1, 2, 3]"),
        "body": S.raw(200, "<html>not json</html>"),
        "choices": lambda request: (200, {}, {"id": "x", "object": "chat.completion", "choices": []}, 0.0),
    }
    for tag, step in cases.items():
        m = model(tag)
        llm.script(m, step)
        (note,) = judge_one(m)
        assert note["verdict"] == "judge_error", (tag, note)
        assert llm.count(m) == 1, tag


def test_a_refused_connection_is_a_judge_error(judge_one, judge_entry, model):
    import socket

    with socket.socket() as s:   # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    (note,) = judge_one(judge_entry(model(), endpoint=f"http://127.0.0.1:{port}/v1", timeout="1s"))
    assert note["verdict"] == "judge_error" and "connect" in note["summary"]
