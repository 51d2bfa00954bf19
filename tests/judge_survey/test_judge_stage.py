"""The survey's judge stage: notes into the lake's notes table, the table as
the nightly cache (counted at the loopback server), budgets, failures, and
changes rows and severities never touched."""

import hashlib
import json

from mcpdelta.engine.policy import Policy
from mcpdelta.survey import judge_stage, run_survey
from tests.judge.llm_server import content
from tests.judge_survey.conftest import PROSE, ids, no_usage, scripted_answer


def notes(lake, *columns):
    con = lake.connect()
    cols = ", ".join(columns)
    return con.execute(f"SELECT {cols} FROM notes ORDER BY {cols}").fetchall()


def changes_files(lake):
    """Every changes file, with a hash of its bytes."""
    import pathlib

    root = pathlib.Path(lake.base) / "changes"
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_survey_writes_one_note_per_prose_change_and_a_rerun_sends_nothing(lake, llm, model, config_for,
                                                                            tmp_path):
    m = model()
    llm.script(m, scripted_answer)
    config = config_for(m)
    run_survey(lake, Policy(), config, crawl=False, workers=1, report_dir=tmp_path / "report")
    assert llm.count(m) == 4
    rows = notes(lake, "server_id", "entity", "rule", "judge", "model", "verdict", "security_relevant",
                 "confidence", "summary")
    judge = f"{m}@127.0.0.1:{llm.port}"
    assert rows == [
        ("shop", "pay", "tool.description.changed", judge, m, "meaning_changed", True, 0.9,
         "injects an order to call pay first"),
        ("shop", "search", "tool.title.changed", judge, m, "equivalent", False, 0.4,
         "same tool under another name"),
        ("shop", None, "server.instructions.changed", judge, m, "meaning_changed", True, 0.6,
         "pay now also refunds: a wider side effect"),
        ("wiki", "read", "tool.description.changed", judge, m, "equivalent", False, 1.0, "only punctuation"),
    ]
    assert {(s, e, r) for s, e, r, *_ in rows} == PROSE
    # the key is the content hash of the question; the stored answer is the cache's value
    keyed = notes(lake, "note_key", "endpoint", "prompt_version", "answer_json")
    assert all(len(k) == 64 and e == llm.base_url and p == "mcpdelta-judge/1" and json.loads(a)["summary"]
               for k, e, p, a in keyed)
    # partitioned by server, like the other tables
    assert sorted(p.parent.name for p in (tmp_path / "lake" / "notes" / "v1").rglob("*.parquet")) == \
        ["server_id=shop", "server_id=wiki"]

    # the nightly re-run: the notes table is the cache, nothing is asked again
    run_survey(lake, Policy(), config, crawl=False, workers=1, report_dir=tmp_path / "report")
    assert llm.count(m) == 4
    assert len(notes(lake, "note_key")) == 4
    engine, policy_id = ids()
    assert judge_stage(lake, config, engine, policy_id) == {
        "judged": 0, "cached": 4, "errors": 0, "configured": True, "budget_exhausted": 0,
        "notes": 0, "requests": 0}
    assert llm.count(m) == 4


def test_a_new_judge_is_asked_only_its_own_questions(lake, llm, model, config_for):
    first, second = model("a"), model("b")
    llm.script(first, scripted_answer)
    llm.script(second, scripted_answer)
    engine, policy_id = ids()
    judge_stage(lake, config_for(first), engine, policy_id)
    counts = judge_stage(lake, config_for(first, second, name="two.yml"), engine, policy_id)
    assert (llm.count(first), llm.count(second)) == (4, 4)
    # the first judge's answers come from the lake; each change gets the second
    # judge's note and a jury note, and the first judge's note is not written twice
    assert counts == {"judged": 4, "cached": 0, "errors": 0, "configured": True, "budget_exhausted": 0,
                      "notes": 8, "requests": 4}
    jury = {(e, r): (v, s) for e, r, j, v, s in
            notes(lake, "entity", "rule", "judge", "verdict", "security_relevant") if j == "jury"}
    assert jury == {(None, "server.instructions.changed"): ("meaning_changed", True),
                    ("pay", "tool.description.changed"): ("meaning_changed", True),
                    ("search", "tool.title.changed"): ("equivalent", False),
                    ("read", "tool.description.changed"): ("equivalent", False)}


def test_a_failed_judge_is_a_recorded_note_and_is_asked_again_next_run(lake, llm, model, config_for):
    good, bad = model("good"), model("bad")
    llm.script(good, scripted_answer)
    llm.script(bad, content("this is not JSON at all"))
    config = config_for(good, bad)
    engine, policy_id = ids()
    counts = judge_stage(lake, config, engine, policy_id)
    assert counts["judged"] == 4 and counts["errors"] == 4 and counts["notes"] == 12
    by_judge = {}
    for judge, verdict in notes(lake, "judge", "verdict"):
        by_judge.setdefault(judge.split("@")[0], set()).add(verdict)
    assert by_judge == {good: {"meaning_changed", "equivalent"}, bad: {"judge_error"},
                        "jury": {"meaning_changed", "equivalent"}}
    assert (llm.count(good), llm.count(bad)) == (4, 4)

    # next night the endpoint is fixed: only the failed judge is asked again
    llm.script(bad, scripted_answer)
    counts = judge_stage(lake, config, engine, policy_id)
    assert (llm.count(good), llm.count(bad)) == (4, 8)
    assert counts == {"judged": 4, "cached": 0, "errors": 0, "configured": True, "budget_exhausted": 0,
                      "notes": 8, "requests": 4}
    assert judge_stage(lake, config, engine, policy_id)["cached"] == 4
    assert (llm.count(good), llm.count(bad)) == (4, 8)


def test_the_budget_stops_calls(lake, llm, model, config_for):
    m = model()
    llm.script(m, no_usage)   # no usage reported: a call is charged its whole estimate
    # one call's bound is its prompt (~2-3 KB) plus max_tokens: one fits in the budget, two do not
    config = config_for({"model": m, "max_tokens": 100_000, "budget_tokens": 150_000})
    engine, policy_id = ids()
    counts = judge_stage(lake, config, engine, policy_id)
    assert llm.count(m) == 1
    assert counts == {"judged": 4, "cached": 0, "errors": 0, "configured": True, "budget_exhausted": 3,
                      "notes": 4, "requests": 1}
    verdicts = sorted(v for (v,) in notes(lake, "verdict"))
    assert verdicts.count("budget_exhausted") == 3
    # a new night, a new budget: the one answer is kept, the skipped ones are asked
    counts = judge_stage(lake, config_for(m, name="big.yml"), engine, policy_id)
    assert llm.count(m) == 4
    assert (counts["judged"], counts["cached"], counts["budget_exhausted"]) == (3, 1, 0)


def test_changes_rows_and_severities_are_never_touched(lake, llm, model, config_for):
    m = model()
    # a judge that demands a severity: it has no way to set one
    llm.script(m, lambda request: content(json.dumps({
        "meaning_score": 1.0, "selection_intent_changed": True, "side_effects_changed": True,
        "injected_instruction": True, "security_relevant": True, "severity": "BREAKING",
        "summary": "this is catastrophic, make it BREAKING"}))(request))
    engine, policy_id = ids()
    con = lake.connect()
    query = "SELECT * EXCLUDE (batch_id) FROM all_changes ORDER BY pair_key, path, rule"
    before_rows, before_files = con.execute(query).fetchall(), changes_files(lake)
    con.close()
    counts = judge_stage(lake, config_for(m), engine, policy_id)
    assert counts["notes"] == 4 and llm.count(m) == 4
    con = lake.connect()
    assert con.execute(query).fetchall() == before_rows
    assert changes_files(lake) == before_files
    assert "severity" not in [c[0] for c in con.execute("DESCRIBE notes").fetchall()]
    severities = con.execute("SELECT rule, severity FROM all_changes WHERE rule LIKE '%description%' "
                             "ORDER BY severity").fetchall()
    assert severities == [("tool.description.changed", "DOCUMENTATION"),
                          ("tool.description.changed", "POTENTIALLY_BREAKING")]


def test_no_judges_configured_judges_nothing(lake):
    from mcpdelta.config import Config

    engine, policy_id = ids()
    assert judge_stage(lake, Config(), engine, policy_id) == {
        "judged": 0, "cached": 0, "errors": 0, "configured": False, "budget_exhausted": 0,
        "notes": 0, "requests": 0}
    assert not (lake.base and __import__("os").path.exists(lake.base + "/notes"))


def test_an_unset_key_variable_is_a_usage_error_before_any_call(lake, llm, model, config_for, monkeypatch):
    import pytest

    from mcpdelta.errors import InputError

    m = model()
    llm.script(m, scripted_answer)
    config = config_for(m)
    monkeypatch.delenv("MCPDELTA_TEST_SURVEY_JUDGE_KEY")
    engine, policy_id = ids()
    with pytest.raises(InputError, match="MCPDELTA_TEST_SURVEY_JUDGE_KEY"):
        judge_stage(lake, config, engine, policy_id)
    assert llm.count(m) == 0


def test_mcpdelta_survey_with_judges_in_the_config(tmp_path, llm, model, mcpdelta):
    """The real command line: the key only in the environment, notes in the
    lake, and a second survey sends nothing."""
    import yaml

    from mcpdelta.lake import Lake
    from tests.judge_survey.conftest import CAPTURES, KEY, KEY_ENV

    m = model()
    llm.script(m, scripted_answer)
    cfg = tmp_path / "mcpdelta.yml"
    cfg.write_text(yaml.safe_dump({"judges": [{"endpoint": f"{llm.base_url}/chat/completions",
                                               "api_key_env": KEY_ENV, "model": m, "timeout": "5s"}]}))
    lake_dir = tmp_path / "lake"
    assert mcpdelta("ingest", CAPTURES, "--lake", lake_dir).returncode == 0
    args = ("survey", "--lake", lake_dir, "--no-crawl", "--config", cfg, "--workers", "1", "--format", "json",
            "--report", tmp_path / "report")
    first = mcpdelta(*args, env={KEY_ENV: KEY})
    assert first.returncode == 0, first.stderr
    assert llm.count(m) == 4
    assert all(r["headers"]["authorization"] == f"Bearer {KEY}" for r in llm.requests(m))
    assert len(notes(Lake(str(lake_dir)), "note_key")) == 4
    second = mcpdelta(*args, env={KEY_ENV: KEY})
    assert second.returncode == 0, second.stderr
    assert json.loads(second.stdout)["pairs_diffed"] == 0
    assert llm.count(m) == 4
    # without the key variable: a one-line usage error naming it, no call
    third = mcpdelta(*args, env={KEY_ENV: ""})
    assert third.returncode == 2 and KEY_ENV in third.stderr and "Traceback" not in third.stderr
    assert llm.count(m) == 4
