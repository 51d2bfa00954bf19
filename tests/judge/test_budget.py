"""Budgets: token use counted per judge; a spent budget stops the calls."""

from mcpdelta.judge import judge_changes, load_judges
from mcpdelta.judge.cache import MemoryCache
from mcpdelta.judge.jury import is_judged
from mcpdelta.judge.prompt import estimate_tokens, render
from tests.judge import llm_server as S
from tests.judge.conftest import PROSE_CHANGES


def _run(llm, m, usage, budget, config_for, judge_entry, env, diff_result, max_tokens=100):
    config = config_for([judge_entry(m, budget_tokens=budget, max_tokens=max_tokens)])
    (judge,) = load_judges(config, env)
    result = diff_result()
    changes = [c for c in result.changes if is_judged(c)]
    assert len(changes) == PROSE_CHANGES
    estimates = [estimate_tokens(render(c.rule, c.entity, c.path, c.old, c.new), max_tokens, True)
                 for c in changes]
    notes = judge_changes(changes, [judge], MemoryCache())
    return judge, [n[0]["verdict"] for n in notes], estimates


def test_token_use_is_counted_from_the_usage_the_endpoint_reports(llm, model, config_for, judge_entry, env,
                                                                  diff_result):
    m = model()
    llm.script(m, S.answer(0.9, usage={"prompt_tokens": 300, "completion_tokens": 33, "total_tokens": 333}))
    judge, verdicts, _ = _run(llm, m, None, 100000, config_for, judge_entry, env, diff_result)
    assert verdicts == ["meaning_changed"] * PROSE_CHANGES
    assert judge.budget.spent == 333 * PROSE_CHANGES and judge.budget.reserved == 0
    assert llm.count(m) == PROSE_CHANGES


def test_a_spent_budget_stops_the_calls_and_never_overspends(llm, model, config_for, judge_entry, env,
                                                             diff_result):
    m = model()
    llm.script(m, S.answer(0.9, usage={"prompt_tokens": 1900, "completion_tokens": 100, "total_tokens": 2000}))
    judge, verdicts, estimates = _run(llm, m, None, 6000, config_for, judge_entry, env, diff_result)
    # Each call may cost up to its estimate (2000 < E < 4000): after two calls
    # 4000 are spent and no third fits in 6000.
    assert all(2000 < e < 4000 for e in estimates), estimates
    assert verdicts == ["meaning_changed"] * 2 + ["budget_exhausted"] * (PROSE_CHANGES - 2)
    assert llm.count(m) == 2
    assert judge.budget.spent == 4000 <= judge.budget.limit


def test_a_budget_below_one_call_makes_no_request(llm, model, config_for, judge_entry, env, diff_result):
    m = model()
    llm.script(m, S.answer(0.9))
    judge, verdicts, estimates = _run(llm, m, None, 100, config_for, judge_entry, env, diff_result)
    assert verdicts == ["budget_exhausted"] * PROSE_CHANGES
    # it reads as a budget too small, not as one spent ("0 of 100 used")
    (judge,) = load_judges(config_for([judge_entry(m, budget_tokens=100, max_tokens=100)]), env)
    changes = [c for c in diff_result().changes if is_judged(c)]
    summaries = [n[0]["summary"] for n in judge_changes(changes, [judge], MemoryCache())]
    assert summaries == [f"{judge.name}: budget_tokens 100 is too small for this call, which could need up to "
                         f"{e} tokens (raise budget_tokens); not asked" for e in estimates]
    assert llm.count(m) == 0 and judge.budget.spent == 0


def test_an_answer_without_usage_is_charged_its_whole_reservation(llm, model, config_for, judge_entry, env,
                                                                  diff_result):
    m = model()
    llm.script(m, S.answer(0.9, usage=None))
    judge, verdicts, estimates = _run(llm, m, None, 100000, config_for, judge_entry, env, diff_result)
    assert verdicts == ["meaning_changed"] * PROSE_CHANGES
    assert judge.budget.spent == sum(estimates)


def test_a_spent_judge_is_skipped_while_the_jury_goes_on(llm, model, judge_one, judge_entry):
    a, b = model("a"), model("b")
    llm.script(a, S.answer(0.9))
    llm.script(b, S.answer(0.9))
    notes = judge_one(judge_entry(a), judge_entry(b, budget_tokens=10))
    assert [n["verdict"] for n in notes] == ["meaning_changed", "budget_exhausted", "meaning_changed"]
    assert "budget" in notes[1]["summary"] and llm.count(b) == 0


def test_an_http_error_costs_nothing(llm, model, config_for, judge_entry, env, diff_result):
    m = model()
    llm.script(m, S.status(401))
    judge, verdicts, _ = _run(llm, m, None, 100000, config_for, judge_entry, env, diff_result)
    assert verdicts == ["judge_error"] * PROSE_CHANGES and judge.budget.spent == 0


def test_a_timed_out_attempt_is_charged_and_retried_only_within_budget(llm, model, config_for, judge_entry,
                                                                       env, diff_result):
    from mcpdelta.judge.client import ATTEMPTS

    m = model()
    llm.script(m, S.slow(2.0, S.answer(0.9)))
    config = config_for([judge_entry(m, budget_tokens=7000, max_tokens=100, timeout="150ms")])
    (judge,) = load_judges(config, env)
    small = [c for c in diff_result().changes if is_judged(c)][:1]
    estimate = estimate_tokens(render(small[0].rule, small[0].entity, small[0].path, small[0].old,
                                      small[0].new), 100, True)
    assert 7000 / 3 < estimate <= 7000 / 2
    (notes,) = judge_changes(small, [judge], MemoryCache())
    assert notes[0]["verdict"] == "judge_error"
    # 7000 covers two attempts' worth, not the ATTEMPTS the retry policy allows
    assert llm.count(m) == 2 < ATTEMPTS
    assert judge.budget.spent == 2 * estimate <= judge.budget.limit and judge.budget.reserved == 0
