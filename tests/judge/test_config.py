"""Judge entries: every mistake is an InputError naming file:line."""

import pytest

from mcpdelta.config import load_config
from mcpdelta.errors import InputError
from mcpdelta.judge import load_judges
from mcpdelta.judge.config import parse_timeout

CFG = """\
profile: balanced
judges:
  - endpoint: "http://127.0.0.1:9/v1"
    api_key_env: OPENAI_API_KEY
    model: gpt-5-mini
  - {entry}
"""


def _load(tmp_path, entry, environ=None):
    path = tmp_path / "cfg.yml"
    path.write_text(CFG.format(entry=entry))
    return load_judges(load_config(str(path)), environ if environ is not None else {"OPENAI_API_KEY": "k"})


@pytest.mark.parametrize("entry, problem", [
    ('{endpoint: "http://x/v1", api_key: sk-abc, model: m}', "never write a key"),
    ('{endpoint: "http://x/v1", openai_api_key: sk-abc, model: m}', "never write a key"),
    ('{endpoint: "http://x/v1", token: abc, model: m}', "never write a key"),
    ('{endpoint: "http://x/v1", api_key_env: sk-proj-abcdef123456, model: m}', "not the key itself"),
    ('{endpoint: "http://x/v1", api_key_env: OPENAI_API_KEY}', "no model"),
    ('{endpoint: "http://x/v1", model: ""}', "model must be"),
    ('{endpoint: "http://x/v1", model: m, timeout: 5x}', "timeout must be a duration"),
    ('{endpoint: "http://x/v1", model: m, timeout: 0s}', "more than zero"),
    ('{endpoint: "http://x/v1", model: m, budget_tokens: -5}', "budget_tokens must be a positive"),
    ('{endpoint: "http://x/v1", model: m, budget_tokens: lots}', "budget_tokens must be a positive"),
    ('{endpoint: "http://x/v1", model: m, max_tokens: 0}', "max_tokens must be a positive"),
    ('{endpoint: "http://x/v1", model: m, temperature: 9}', "temperature"),
    ('{endpoint: "http://x/v1", model: m, colour: red}', "unknown judge field 'colour'"),
    ('{model: m}', "no endpoint"),
    ('{endpoint: "ftp://x/v1", model: m}', "http(s) URL"),
    ('{endpoint: "https://user:pw@x/v1", model: m}', "must not carry credentials"),
    ('{endpoint: "https://x/v1?api-key=abc", model: m}', "must not carry a key"),
    ('{endpoint: "http://127.0.0.1:9/v1", model: gpt-5-mini}', "configured twice"),
    ('{endpoint: "http://x/v1", model: m, name: jury}', "reserved"),
    ('just-a-string', "must be a mapping"),
])
def test_a_bad_entry_names_the_file_and_line(tmp_path, entry, problem):
    with pytest.raises(InputError) as caught:
        _load(tmp_path, entry)
    assert caught.value.where == f"{tmp_path / 'cfg.yml'}:6"
    assert problem in caught.value.problem


def test_an_unset_key_variable_is_a_usage_error_before_any_call(tmp_path):
    with pytest.raises(InputError) as caught:
        _load(tmp_path, '{endpoint: "http://x/v1", api_key_env: OTHER_KEY, model: m}')
    assert caught.value.where.endswith("cfg.yml:6")
    assert "OTHER_KEY" in caught.value.problem and "not set" in caught.value.problem


def test_a_good_config_is_read_with_its_defaults(tmp_path):
    first, second = _load(tmp_path, '{endpoint: "http://localhost:8080/v1/chat/completions/", model: llama,'
                                     ' timeout: 500ms, budget_tokens: 2000, temperature: 0, max_tokens: 64,'
                                     ' name: local}')
    assert (first.spec.base_url, first.spec.timeout_s, first.spec.budget_tokens, first.spec.max_tokens) == \
        ("http://127.0.0.1:9/v1", 30.0, 100000, 1024)
    assert first.name == "gpt-5-mini@127.0.0.1:9" and first.spec.api_key_env == "OPENAI_API_KEY"
    assert (second.name, second.spec.base_url, second.spec.timeout_s) == ("local", "http://localhost:8080/v1", 0.5)
    assert (second.spec.api_key_env, second.spec.temperature, second.budget.limit) == (None, 0.0, 2000)


def test_no_judges_key_gives_no_judges(tmp_path):
    path = tmp_path / "cfg.yml"
    path.write_text("profile: strict\n")
    assert load_judges(load_config(str(path)), {}) == []


@pytest.mark.parametrize("text, seconds", [("5s", 5.0), ("500ms", 0.5), ("2m", 120.0), (3, 3.0),
                                           ("1.5s", 1.5), ("7", 7.0)])
def test_timeouts(text, seconds):
    assert parse_timeout(text, "here") == seconds
