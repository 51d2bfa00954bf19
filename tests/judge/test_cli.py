"""``mcpdelta diff --semantic`` through the real console script."""

import json

import yaml

from tests.judge import llm_server as S
from tests.judge.conftest import KEY, KEY_ENV, NEW, OLD, PROSE_CHANGES


def _files(tmp_path, judges):
    (tmp_path / "old.json").write_text(json.dumps(OLD))
    (tmp_path / "new.json").write_text(json.dumps(NEW))
    (tmp_path / "cfg.yml").write_text(yaml.safe_dump({"judges": judges}))
    return tmp_path / "old.json", tmp_path / "new.json", tmp_path / "cfg.yml"


def test_semantic_json_carries_notes_and_changes_nothing_else(mcpdelta, llm, model, tmp_path):
    a, b = model("a"), model("b")
    llm.script(a, S.answer(0.9, security=True, summary="now leaks queries", extra={"severity": "BREAKING"}))
    llm.script(b, S.answer(0.8, security=True))
    judges = [{"endpoint": llm.base_url + "/chat/completions", "api_key_env": KEY_ENV, "model": a,
               "timeout": "5s", "budget_tokens": 100000},
              {"endpoint": llm.base_url, "api_key_env": KEY_ENV, "model": b, "name": "second"}]
    old, new, cfg = _files(tmp_path, judges)
    env = {KEY_ENV: KEY, "MCPDELTA_CACHE_DIR": str(tmp_path / "cache")}
    plain = mcpdelta("diff", old, new, "--format", "json", "--config", cfg, env=env)
    semantic = mcpdelta("diff", old, new, "--semantic", "--format", "json", "--config", cfg, env=env)
    assert semantic.returncode == plain.returncode == 1, semantic.stderr
    assert semantic.stderr == ""
    before, after = json.loads(plain.stdout), json.loads(semantic.stdout)
    noted = [c for c in after["changes"] if c["advisory"]]
    assert len(noted) == PROSE_CHANGES
    for change in noted:
        assert [n["judge"] for n in change["advisory"]] == [f"{a}@127.0.0.1:{llm.port}", "second", "jury"]
        assert change["advisory"][-1]["verdict"] == "meaning_changed"
        assert change["advisory"][-1]["security_relevant"] is True
    for change in after["changes"]:
        change["advisory"] = []
    assert after == before
    assert (llm.count(a), llm.count(b)) == (PROSE_CHANGES, PROSE_CHANGES)

    again = mcpdelta("diff", old, new, "--semantic", "--format", "json", "--config", cfg, env=env)
    assert again.stdout == semantic.stdout and again.returncode == 1
    assert (llm.count(a), llm.count(b)) == (PROSE_CHANGES, PROSE_CHANGES)   # all from the cache


def test_semantic_text_output_shows_the_judge_summary(mcpdelta, llm, model, tmp_path):
    m = model()
    llm.script(m, S.answer(0.9, summary="the tool now shares data"))
    old, new, cfg = _files(tmp_path, [{"endpoint": llm.base_url, "api_key_env": KEY_ENV, "model": m}])
    result = mcpdelta("diff", old, new, "--semantic", "--config", cfg,
                      env={KEY_ENV: KEY, "MCPDELTA_CACHE_DIR": str(tmp_path / "cache")})
    assert result.returncode == 1 and "judge: the tool now shares data" in result.stdout


def test_semantic_without_judges_says_so_in_one_line(mcpdelta, tmp_path):
    """On a base install (no jury extra) with no judge configured: one line
    naming the extra that brings the offline judge."""
    old, new, cfg = _files(tmp_path, [])
    plain = mcpdelta("diff", old, new, "--format", "json", "--config", cfg)
    semantic = mcpdelta("diff", old, new, "--semantic", "--format", "json", "--config", cfg)
    assert semantic.stdout == plain.stdout and semantic.returncode == plain.returncode == 1
    assert semantic.stderr.count("\n") == 1 and "no judges configured" in semantic.stderr
    assert "pip install 'mcpdelta[jury]'" in semantic.stderr


def test_a_key_in_the_config_is_exit_2_with_one_line(mcpdelta, llm, tmp_path):
    old, new, cfg = _files(tmp_path, [{"endpoint": llm.base_url, "api_key": "sk-secret", "model": "m"}])
    result = mcpdelta("diff", old, new, "--semantic", "--config", cfg)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and f"{cfg}:2" in result.stderr and "api_key_env" in result.stderr
    assert "sk-secret" not in result.stderr and "Traceback" not in result.stderr


def test_an_unset_key_variable_is_exit_2(mcpdelta, llm, tmp_path):
    old, new, cfg = _files(tmp_path, [{"endpoint": llm.base_url, "api_key_env": "MCPDELTA_UNSET_VAR_X",
                                       "model": "m"}])
    result = mcpdelta("diff", old, new, "--semantic", "--config", cfg, env={"MCPDELTA_UNSET_VAR_X": ""})
    assert result.returncode == 2 and "MCPDELTA_UNSET_VAR_X" in result.stderr and "not set" in result.stderr


def test_judge_failures_keep_the_exit_code_and_say_so_on_stderr(mcpdelta, llm, model, tmp_path):
    m = model()
    llm.script(m, S.status(401))
    old, new, cfg = _files(tmp_path, [{"endpoint": llm.base_url, "api_key_env": KEY_ENV, "model": m}])
    result = mcpdelta("diff", old, new, "--semantic", "--format", "json", "--config", cfg,
                      "--fail-on", "never", env={KEY_ENV: KEY, "MCPDELTA_CACHE_DIR": str(tmp_path / "c")})
    assert result.returncode == 0
    assert "judge_error" in result.stderr and result.stderr.count("\n") == 1
    verdicts = {n["verdict"] for c in json.loads(result.stdout)["changes"] for n in c["advisory"]}
    assert verdicts == {"judge_error"}
