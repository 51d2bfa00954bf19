"""A local server that exits at start for want of an environment variable is
started again with a placeholder for it (mcpdelta/crawl/placeholders.py):
real servers (servers/needs_env.py) on real pipes, the recipe and warnings
the capture records, and the servers that must not be started again."""

import json

from mcpdelta.crawl.live import capture_live
from mcpdelta.crawl.placeholders import MAX_NAMES, MAX_ROUNDS, PLACEHOLDER, value_for, wanted
from mcpdelta.crawl.servers import load

from .conftest import SERVERS, only, run_crawl

NEEDS_ENV = str(SERVERS / "needs_env.py")
KEY, TEAM, BASE_URL = "MCPDELTA_FX_API_KEY", "MCPDELTA_FX_TEAM_ID", "MCPDELTA_FX_BASE_URL"


def crawl_needy(tmp_path, *args, env=None, name="needy"):
    """Capture needs_env.py with ``args`` from a servers file; the record,
    the target's own (entry) recipe, and the environment each start saw."""
    starts = tmp_path / f"{name}.starts"
    servers = tmp_path / f"{name}.json"
    servers.write_text(json.dumps({"servers": [
        {"id": name, "command": "{python}", "args": [NEEDS_ENV, "--starts", str(starts), *args],
         **({"env": env} if env else {})}]}))
    [target], _ = load(servers)
    entry_recipe = json.loads(json.dumps(target.recipe))
    rec = only(run_crawl([target], tmp_path / f"{name}-out"))
    seen = [json.loads(line) for line in starts.read_text().splitlines()] if starts.exists() else []
    return rec, target, entry_recipe, seen


def placeholder_warnings(rec):
    return [w for w in rec.warnings if "placeholder" in w]


def test_a_server_wanting_a_key_is_captured_with_a_placeholder_and_says_so(tmp_path, no_leftovers):
    rec, target, entry_recipe, seen = crawl_needy(tmp_path, KEY)
    assert rec.ok, rec.error
    assert [t["name"] for t in rec.manifest["tools"]] == ["alpha", "beta", "gamma"]
    assert seen == [{KEY: None}, {KEY: PLACEHOLDER}]  # started once more, with the key set
    [warning] = placeholder_warnings(rec)
    assert KEY in warning and f"{KEY} environment variable is required" in warning
    # the names go where recipes keep them; the values never do
    assert rec.recipe["env"] == [KEY] and rec.recipe["placeholders"] == [KEY]
    assert PLACEHOLDER not in json.dumps(rec.recipe)
    assert rec.recipe["hash"] != entry_recipe["hash"] and rec.recipe["args"] == entry_recipe["args"]
    assert target.recipe == entry_recipe  # the entry's recipe, shared by its releases, is left alone
    row = json.loads((tmp_path / "needy-out" / "crawl-log.jsonl").read_text())
    assert row["recipe"] == rec.recipe and row["ok"]


def test_variables_asked_for_one_at_a_time_are_set_one_round_each(tmp_path, no_leftovers):
    rec, _, _, seen = crawl_needy(tmp_path, KEY, TEAM)
    assert rec.ok, rec.error
    assert seen == [{KEY: None, TEAM: None}, {KEY: PLACEHOLDER, TEAM: None}, {KEY: PLACEHOLDER, TEAM: PLACEHOLDER}]
    assert rec.recipe["env"] == rec.recipe["placeholders"] == sorted([KEY, TEAM])
    assert [w.split(" (")[0] for w in placeholder_warnings(rec)] == [
        f"started again with placeholder values for {KEY}", f"started again with placeholder values for {TEAM}"]


def test_a_url_variable_gets_a_loopback_url_the_server_accepts(tmp_path, no_leftovers):
    rec, _, _, seen = crawl_needy(tmp_path, BASE_URL)
    assert rec.ok, rec.error
    assert seen[-1] == {BASE_URL: "http://127.0.0.1:9"}
    assert f"{BASE_URL}=http://127.0.0.1:9" in placeholder_warnings(rec)[0]


def test_several_names_in_one_line_are_set_in_one_round(tmp_path, no_leftovers):
    rec, _, _, seen = crawl_needy(tmp_path, "--all", KEY, TEAM, BASE_URL)
    assert rec.ok, rec.error
    assert len(seen) == 2 and seen[-1] == {KEY: PLACEHOLDER, TEAM: PLACEHOLDER, BASE_URL: "http://127.0.0.1:9"}
    assert rec.recipe["placeholders"] == sorted([KEY, TEAM, BASE_URL])


def test_a_placeholder_capture_lists_what_a_configured_one_lists_under_another_recipe(tmp_path, no_leftovers):
    placed, _, _, _ = crawl_needy(tmp_path, KEY, name="placed")
    given, _, entry_recipe, seen = crawl_needy(tmp_path, KEY, env={KEY: PLACEHOLDER}, name="given")
    assert given.ok and len(seen) == 1 and not placeholder_warnings(given)
    assert given.recipe == entry_recipe and "placeholders" not in given.recipe
    # the manifest files are the same bytes; the recipes (same names) tell the captures apart
    assert (tmp_path / "placed-out" / placed.path).read_bytes() == (tmp_path / "given-out" / given.path).read_bytes()
    assert placed.recipe["env"] == given.recipe["env"] == [KEY]
    assert placed.recipe["hash"] != given.recipe["hash"]


def test_a_crash_naming_no_variable_fails_as_before_after_as_many_starts(tmp_path, no_leftovers):
    rec, _, entry_recipe, seen = crawl_needy(tmp_path, "--crash", "Error: cannot open the database ./notes.db")
    assert not rec.ok and rec.error_kind == "server_exited"
    assert "cannot open the database" in rec.error
    # two starts, as ever: server/discover, then initialize on a fresh start
    assert len(seen) == 2 and any(w.startswith("started again for initialize") for w in rec.warnings)
    assert not placeholder_warnings(rec) and rec.recipe == entry_recipe


def test_a_variable_already_set_is_not_overridden(tmp_path, no_leftovers):
    rec, _, entry_recipe, seen = crawl_needy(tmp_path, KEY, "--crash", f"Error: {KEY} is invalid; a valid key is required",
                                             env={KEY: "given-by-the-entry"})
    assert not rec.ok and rec.error_kind == "server_exited"
    assert seen == [{KEY: "given-by-the-entry"}] * 2
    assert not placeholder_warnings(rec) and rec.recipe == entry_recipe


def test_a_server_that_keeps_asking_is_started_a_bounded_number_of_times(tmp_path, no_leftovers):
    names = [f"MCPDELTA_FX_KEY_{i}" for i in range(MAX_ROUNDS + 2)]
    rec, _, _, seen = crawl_needy(tmp_path, *names)
    assert not rec.ok and rec.error_kind == "server_exited" and names[MAX_ROUNDS] in rec.error
    # the first start, one per round, then the initialize start the crawler makes anyway
    assert len(seen) == 1 + MAX_ROUNDS + 1
    assert rec.recipe["placeholders"] == names[:MAX_ROUNDS]  # a failure records what it ran under too


def test_at_most_max_names_variables_are_set(tmp_path, no_leftovers):
    names = [f"MCPDELTA_FX_KEY_{i:02}" for i in range(MAX_NAMES + 3)]
    rec, _, _, seen = crawl_needy(tmp_path, "--all", *names)
    assert not rec.ok and rec.error_kind == "server_exited"
    assert rec.recipe["placeholders"] == names[:MAX_NAMES]
    assert sum(v == PLACEHOLDER for v in seen[-1].values()) == MAX_NAMES


def test_a_live_capture_says_it_used_placeholders(tmp_path, monkeypatch, capsys, no_leftovers):
    monkeypatch.setenv("MCPDELTA_CACHE", str(tmp_path / "cache"))
    servers = tmp_path / "servers.json"
    servers.write_text(json.dumps({"servers": [{"id": "needy", "command": "{python}", "args": [NEEDS_ENV, KEY]}]}))
    manifest = capture_live(str(servers), "needy")
    assert [t["name"] for t in manifest["tools"]] == ["alpha", "beta", "gamma"]
    note = capsys.readouterr().err
    assert f"server needy: it exited asking for {KEY}; captured with placeholder values" in note


# what published servers print (from the population crawl's log), and what they print that is no request
ASKS = [
    ("Failed to start MCP server: GRAFANA_URL environment variable is required", ["GRAFANA_URL"]),
    ("[jira-cloud] Missing required environment variables: JIRA_API_TOKEN, JIRA_EMAIL, JIRA_HOST",
     ["JIRA_API_TOKEN", "JIRA_EMAIL", "JIRA_HOST"]),
    ("Error: No API key. Set RESEND_API_KEY or use --key=<your-resend-api-key>", ["RESEND_API_KEY"]),
    ("OpenAIError: Missing credentials. Please pass an `apiKey`, or set the `OPENAI_API_KEY` environment variable.",
     ["OPENAI_API_KEY"]),
    ("Error in main(): Error: config.CODEGPT_API_KEY is not set", ["CODEGPT_API_KEY"]),
    ('Error: Invalid environment configuration. Details: {"OBSIDIAN_API_KEY":["Required"]}', ["OBSIDIAN_API_KEY"]),
]
NOT_ASKS = [
    "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'dotenv' imported from /srv/dist/index.js",
    "Error (SESSION_NOT_FOUND): No active session. Run open first.",
    "[INFO] 18 tools registered (set GOOGLE_MAPS_ENABLED_TOOLS to limit)",
    "  VERCEL_REQUEST_TIMEOUT - Request timeout in ms (default: 30000)",
    "Usage: node script.js VERCEL_API_KEY=<YOUR_API_KEY>",
    "    response = requests.get(SERVICE_REFERENCE_URL, timeout=DEFAULT_REQUEST_TIMEOUT).json()",
    "const LIMITS_TABLE = 1;" + "x" * 200 + " environment variable is required",
    "Environment configuration failed: site URL: Private/localhost URLs not allowed (set ALLOW_PRIVATE_URLS=true "
    "to override)",
]


def test_the_names_read_from_stderr_are_requests_only():
    for line, names in ASKS:
        assert list(wanted(line, {})) == names, line
    for line in NOT_ASKS:
        assert wanted(line, {}) == {}, line
    assert list(wanted(ASKS[1][0], {"JIRA_EMAIL": ""})) == ["JIRA_API_TOKEN", "JIRA_HOST"]  # set, even empty: kept
    # each with the words that ask for it, not a whole minified script
    assert wanted("Starting...\n  Error: A_KEY is required\nBye", {}) == {"A_KEY": "Error: A_KEY is required"}
    minified = "x" * 5000 + " Missing required environment variable: IMAP_HOST. " + "y" * 5000
    [said] = wanted(minified, {}).values()
    assert "Missing required environment variable: IMAP_HOST." in said and len(said) < 250


def test_a_placeholder_has_the_shape_its_name_asks_for():
    assert [value_for(n) for n in ("GITLAB_API_URL", "MYSQL_HOST", "DB_PORT", "JIRA_EMAIL", "GITHUB_TOKEN")] == [
        "http://127.0.0.1:9", "127.0.0.1", "9", "mcpdelta-placeholder@example.invalid", PLACEHOLDER]
