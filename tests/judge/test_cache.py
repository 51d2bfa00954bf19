"""The content-hash cache: a second run over the same changes sends nothing."""

import json

from mcpdelta.judge import annotate
from mcpdelta.judge.cache import CACHE_FILE, DiskCache
from tests.judge import llm_server as S
from tests.judge.conftest import NEW, PROSE_CHANGES


def _annotate(diff_result, config, env, cache_dir, new=NEW):
    from tests.judge.conftest import OLD

    result = diff_result(OLD, new)
    annotate(result, config, cache=DiskCache(str(cache_dir)), environ=env)
    return result


def test_a_second_run_sends_no_request_and_gives_the_same_notes(llm, model, diff_result, config_for,
                                                                 judge_entry, env, tmp_path):
    a, b = model("a"), model("b")
    llm.script(a, S.answer(0.9))
    llm.script(b, S.answer(0.2))
    config = config_for([judge_entry(a), judge_entry(b)])
    first = _annotate(diff_result, config, env, tmp_path / "cache")
    assert (llm.count(a), llm.count(b)) == (PROSE_CHANGES, PROSE_CHANGES)
    second = _annotate(diff_result, config, env, tmp_path / "cache")   # a new process would read the file
    assert (llm.count(a), llm.count(b)) == (PROSE_CHANGES, PROSE_CHANGES)
    assert json.dumps(second.as_json()) == json.dumps(first.as_json())
    assert sum(1 for _ in open(tmp_path / "cache" / CACHE_FILE)) == 2 * PROSE_CHANGES


def test_only_a_changed_text_is_asked_again(llm, model, diff_result, config_for, judge_entry, env, tmp_path):
    m = model()
    llm.script(m, S.answer(0.9))
    config = config_for([judge_entry(m)])
    _annotate(diff_result, config, env, tmp_path)
    changed = json.loads(json.dumps(NEW))
    changed["tools"][0]["title"] = "Find things"
    _annotate(diff_result, config, env, tmp_path, new=changed)
    assert llm.count(m) == PROSE_CHANGES + 1


def test_another_model_does_not_reuse_an_answer(llm, model, diff_result, config_for, judge_entry, env,
                                                 tmp_path):
    a, b = model("a"), model("b")
    llm.script(a, S.answer(0.9))
    llm.script(b, S.answer(0.9))
    _annotate(diff_result, config_for([judge_entry(a)]), env, tmp_path)
    _annotate(diff_result, config_for([judge_entry(b)]), env, tmp_path)
    assert llm.count(b) == PROSE_CHANGES


def test_failures_are_not_cached(llm, model, diff_result, config_for, judge_entry, env, tmp_path):
    m = model()
    llm.script(m, S.status(401))
    config = config_for([judge_entry(m)])
    _annotate(diff_result, config, env, tmp_path)
    llm.script(m, S.answer(0.9))
    result = _annotate(diff_result, config, env, tmp_path)
    assert llm.count(m) == 2 * PROSE_CHANGES
    assert all(n["verdict"] == "meaning_changed" for c in result.changes for n in c.advisory)


def test_a_torn_or_foreign_line_is_skipped(llm, model, diff_result, config_for, judge_entry, env, tmp_path):
    m = model()
    llm.script(m, S.answer(0.9))
    config = config_for([judge_entry(m)])
    _annotate(diff_result, config, env, tmp_path)
    path = tmp_path / CACHE_FILE
    lines = path.read_text().splitlines()
    row = json.loads(lines[0])
    row["value"] = {"meaning_score": "garbage"}
    path.write_text("\n".join([json.dumps(row), *lines[1:], '{"key": "torn'])+"\n")
    result = _annotate(diff_result, config, env, tmp_path)
    assert llm.count(m) == PROSE_CHANGES + 1      # only the spoilt answer is asked again
    assert all(n["verdict"] == "meaning_changed" for c in result.changes for n in c.advisory)


def test_an_unwritable_cache_warns_once_and_still_judges(llm, model, diff_result, config_for, judge_entry,
                                                          env, tmp_path, capsys):
    m = model()
    llm.script(m, S.answer(0.9))
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    result = _annotate(diff_result, config_for([judge_entry(m)]), env, blocker / "cache")
    assert all(n["verdict"] == "meaning_changed" for c in result.changes for n in c.advisory)
    err = capsys.readouterr().err
    assert err.count("mcpdelta: warning: cannot") == 1 and "judge cache" in err
