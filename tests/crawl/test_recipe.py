"""The recipe each capture records (mcpdelta/crawl/recipe.py), read from real
servers files and fixture files."""

import json

from mcpdelta.crawl.servers import load


def write(tmp_path, env, args=("--config", "fixtures/settings.json", "--root", ".", "--up", "../..", "{version}")):
    (tmp_path / "fixtures" / "profile").mkdir(parents=True, exist_ok=True)
    (tmp_path / "fixtures" / "settings.json").write_text('{"mode": "all"}')
    (tmp_path / "fixtures" / "profile" / "token.json").write_text('{"token": "dummy"}')
    servers = tmp_path / "servers.json"
    servers.write_text(json.dumps({"servers": [
        {"id": "s", "command": "{python}", "args": list(args), "versions": ["1.0.0", "2.0.0"], "env": env,
         "tool_set": "--config picks the tools"}]}))
    targets, _ = load(servers)
    return targets


ENV = {"TOKEN": "${MCPDELTA_DUMMY_TOKEN}", "URL": "http://127.0.0.1:9", "HOME_DIR": "fixtures/profile",
       "SCRATCH": "/tmp"}


def test_a_recipe_names_its_variables_and_fixtures_never_their_values(tmp_path):
    one, two = write(tmp_path, ENV)
    recipe = one.recipe
    assert recipe["env"] == ["HOME_DIR", "SCRATCH", "TOKEN", "URL"]
    assert recipe["args"] == ["--config", "fixtures/settings.json", "--root", ".", "--up", "../..", "{version}"]
    # "." and "../.." name the checkout, "/tmp" the machine: not fixtures
    assert recipe["fixtures"] == ["fixtures/profile", "fixtures/settings.json"]
    assert recipe["tool_set"] == "--config picks the tools"
    text = json.dumps(recipe)
    assert "127.0.0.1" not in text and "MCPDELTA_DUMMY_TOKEN" not in text
    assert recipe["hash"].startswith("sha256:") and len(recipe["hash"]) == 71
    assert two.recipe == recipe  # every version of one entry runs under one recipe


def test_the_hash_moves_with_a_value_an_argument_or_a_fixture_s_content(tmp_path):
    first = write(tmp_path, ENV)[0].recipe["hash"]
    assert write(tmp_path, ENV)[0].recipe["hash"] == first  # the same files: the same hash
    assert write(tmp_path, {**ENV, "URL": "http://127.0.0.1:10"})[0].recipe["hash"] != first
    assert write(tmp_path, ENV, args=("--config", "fixtures/settings.json"))[0].recipe["hash"] != first
    write(tmp_path, ENV)
    (tmp_path / "fixtures" / "profile" / "token.json").write_text('{"token": "other"}')
    targets, _ = load(tmp_path / "servers.json")
    assert targets[0].recipe["hash"] != first


def test_a_recipe_is_in_the_crawl_log_of_a_failure_too(tmp_path, mcpdelta):
    servers = tmp_path / "servers.json"
    servers.write_text(json.dumps({"servers": [{"id": "gone", "command": str(tmp_path / "no-such-server"),
                                                 "env": {"KEY": "${MCPDELTA_DUMMY_TOKEN}"}}]}))
    run = mcpdelta("crawl", "--servers", servers, "--out", tmp_path / "out",
                   env={"MCPDELTA_DUMMY_TOKEN": "a-value-never-written"})
    assert run.returncode == 1, run.stderr
    [row] = [json.loads(line) for line in (tmp_path / "out" / "crawl-log.jsonl").read_text().splitlines()]
    assert row["error_kind"] == "spawn_failed" and row["recipe"]["env"] == ["KEY"]
    assert "a-value-never-written" not in (tmp_path / "out" / "crawl-log.jsonl").read_text()
