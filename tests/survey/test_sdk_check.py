"""bench/sdk_check.py: the official SDK client's listing of a real stdio
server compared with the crawler's capture of the same server."""

import asyncio
import json
import subprocess
import sys

from bench import sdk_check  # bench/ is a namespace package: the checkout's folder
from tests.conftest import ROOT

DEMO = ROOT / "data" / "demo"


def crawl_capture(tmp_path, version):
    servers = tmp_path / "servers.yaml"
    servers.write_text(f'servers:\n  - id: weather\n    command: "{{python}}"\n'
                       f'    args: ["{DEMO / "weather_server.py"}", "--version", "{version}"]\n')
    run = subprocess.run([sys.executable, "-m", "mcpdelta", "crawl", "--servers", str(servers),
                          "--out", str(tmp_path / "out")], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    [manifest] = (tmp_path / "out" / "weather").glob("*.json")
    return json.loads(manifest.read_text())


def test_the_sdk_client_lists_what_the_crawler_captured(tmp_path):
    manifest = crawl_capture(tmp_path, "2.0.0")
    tools, protocol = asyncio.run(sdk_check.sdk_tools(
        sys.executable, [str(DEMO / "weather_server.py"), "--version", "2.0.0"], None, str(DEMO)))
    assert protocol and len(tools) == len(manifest["tools"]) > 0
    assert sdk_check.compare(manifest["tools"], tools) == (True, True, "")


def test_a_different_listing_is_named_tool_by_tool(tmp_path):
    old = crawl_capture(tmp_path, "1.0.0")["tools"]
    tools, _ = asyncio.run(sdk_check.sdk_tools(
        sys.executable, [str(DEMO / "weather_server.py"), "--version", "2.0.0"], None, str(DEMO)))
    names, schemas, difference = sdk_check.compare(old, tools)
    only_old = sorted({t["name"] for t in old} - {t["name"] for t in tools})
    only_new = sorted({t["name"] for t in tools} - {t["name"] for t in old})
    assert (only_old or only_new) and not names and not schemas
    for name in only_old:
        assert name in difference.split("only the crawler lists ")[1].split(";")[0]
    for name in only_new:
        assert name in difference.split("only the SDK lists ")[1].split(";")[0]


CONFIGURED = ROOT / "tests" / "survey" / "configured" / "configured_server.py"


def test_an_empty_list_on_either_side_is_not_checked_never_a_match():
    """The configured server started without its configuration lists no
    tools to the SDK client either: nothing is compared."""
    tools, _ = asyncio.run(sdk_check.sdk_tools(sys.executable, [str(CONFIGURED), "1.0.0"], None, str(ROOT)))
    assert tools == []
    assert sdk_check.compare([], tools) == (None, None, "not checked: neither client listed any tools")
    listed, _ = asyncio.run(sdk_check.sdk_tools(sys.executable, [str(CONFIGURED), "1.0.0"],
                                                {"SERVICE_URL": "http://127.0.0.1:9", "PATH": ""}, str(ROOT)))
    assert len(listed) == 2
    assert sdk_check.compare([], listed) == (None, None, "not checked: the crawler listed no tools")
    assert sdk_check.compare(listed, []) == (None, None, "not checked: the SDK client listed no tools")
    assert sdk_check.compare(listed, listed) == (True, True, "")


def test_the_study_reads_an_empty_side_as_not_checked_whatever_the_file_says():
    """A result file of an older check called 0 tools against 0 a match:
    sdk_check.sql and its summary count it as not checked."""
    import duckdb

    from mcpdelta.resources import sql
    from mcpdelta.survey.population import register

    con = duckdb.connect()
    con.execute("CREATE TABLE releases AS SELECT * FROM (VALUES ('a', '1.0'), ('b', '2.0'), ('c', '3.0'), "
                "('d', '4.0')) t(server_id, version)")
    rows = [{"server_id": "a", "version": "1.0", "crawler_tools": 0, "sdk_tools": 0, "names_match": True,
             "schemas_match": True, "sdk_protocol": "2025-11-25", "difference": ""},
            {"server_id": "b", "version": "2.0", "crawler_tools": 3, "sdk_tools": 3, "names_match": True,
             "schemas_match": True, "sdk_protocol": "2025-11-25", "difference": ""},
            {"server_id": "c", "version": "3.0", "crawler_tools": 3, "sdk_tools": None, "names_match": None,
             "schemas_match": None, "sdk_protocol": "", "difference": "the SDK client failed: x"},
            {"server_id": "d", "version": "4.0", "crawler_tools": 2, "sdk_tools": 0, "names_match": None,
             "schemas_match": None, "sdk_protocol": "2025-11-25", "difference": "not checked: ..."}]
    register(con, None, rows)
    checked = {r[0]: r[1:] for r in con.execute(sql("study/sdk_check")).fetchall()}
    columns = [d[0] for d in con.description]
    at = columns.index("checked") - 1
    assert {s: (c[at], c[at + 1]) for s, c in checked.items()} == {
        "a": (False, False), "b": (True, True), "c": (False, False), "d": (False, False)}
    summary = dict(zip(*[[d[0] for d in con.execute(sql("study/sdk_check_summary")).description],
                         con.execute(sql("study/sdk_check_summary")).fetchone()]))
    assert summary == {"listed": 4, "checked": 1, "sdk_failed": 1, "listed_none": 2, "names_match": 1,
                       "schemas_match": 1}
