"""Fixtures for the survey's judge stage and the drift report: a small lake
ingested from ``captures/`` (four prose changes, see ``PROSE``), judges on a
loopback chat-completions server (``tests/judge/llm_server.py``) with their
key in an environment variable."""

import pathlib

import pytest
import yaml

from tests.judge.conftest import hide_offline_member
from tests.judge.llm_server import answer

HERE = pathlib.Path(__file__).resolve().parent
CAPTURES = HERE / "captures"
KEY_ENV = "MCPDELTA_TEST_SURVEY_JUDGE_KEY"
KEY = "survey-test-key"

# The prose changes the engine finds in captures/, by (server, entity, rule):
# shop 1.0.0 -> 1.1.0: pay's description gains an injected instruction,
#                      search's title moves (and a non-prose property is added);
# shop 1.1.0 -> 1.2.0: the server instructions move;
# wiki 0.1.0 -> 0.2.0: read's description gains a full stop.
PROSE = {("shop", "pay", "tool.description.changed"), ("shop", "search", "tool.title.changed"),
         ("shop", None, "server.instructions.changed"), ("wiki", "read", "tool.description.changed")}


def scripted_answer(request, usage="default"):
    """What the loopback judge says, decided by the question's text, so the
    answers do not depend on the order of concurrent requests."""
    user = request["messages"][-1]["content"]
    kwargs = {} if usage == "default" else {"usage": usage}
    if "IGNORE PREVIOUS" in user:
        step = answer(0.95, security=True, injected=True, summary="injects an order to call pay first", **kwargs)
    elif "Rule: server.instructions.changed" in user:
        step = answer(0.8, security=True, summary="pay now also refunds: a wider side effect", **kwargs)
    elif "Rule: tool.title.changed" in user:
        step = answer(0.3, summary="same tool under another name", **kwargs)
    else:
        step = answer(0.0, summary="only punctuation", **kwargs)
    return step(request)


def no_usage(request):
    """As ``scripted_answer``, but the endpoint reports no token usage (so a
    call is charged its whole estimate)."""
    return scripted_answer(request, usage=None)


@pytest.fixture(autouse=True)
def judge_key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, KEY)


@pytest.fixture
def config_for(tmp_path, llm):
    """A loaded ``Config`` whose judges are these models on the loopback server
    (an entry may be a dict of extra fields with a ``model``)."""
    from mcpdelta.config import load_config

    def make(*models, name="cfg.yml", **fields):
        judges = []
        for m in models:
            extra = dict(m) if isinstance(m, dict) else {"model": m}
            judges.append({"endpoint": llm.base_url, "api_key_env": KEY_ENV, "timeout": "5s",
                           "budget_tokens": 1_000_000, **fields, **extra})
        path = tmp_path / name
        path.write_text(yaml.safe_dump({"judges": judges}, sort_keys=False))
        return load_config(str(path))
    return make


@pytest.fixture
def lake(tmp_path):
    """A lake holding captures/, diffed by the current engine and default policy."""
    from mcpdelta.engine.policy import Policy
    from mcpdelta.lake import Lake
    from mcpdelta.lake.ingest import rows_from_folder, store
    from mcpdelta.survey.diffstage import run_diff_stage

    lake = Lake(str(tmp_path / "lake"))
    store(lake, *rows_from_folder(str(CAPTURES)))
    run_diff_stage(lake, Policy(), workers=1)
    return lake


def ids():
    from mcpdelta.engine.policy import Policy
    from mcpdelta.survey.diffstage import engine_version, policy_hash

    return engine_version(), policy_hash(Policy())


@pytest.fixture(autouse=True)
def without_offline_member(monkeypatch):
    """These tests are about configured judges alone: the jury extra is taken
    away, here and in child processes (as on a base install)."""
    hide_offline_member(monkeypatch)
