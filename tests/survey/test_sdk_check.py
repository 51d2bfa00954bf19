"""bench/sdk_check.py: the official SDK client's listing of a real stdio
server compared with the crawler's capture of the same server."""

import asyncio
import importlib.util
import json
import subprocess
import sys

from tests.conftest import ROOT

spec = importlib.util.spec_from_file_location("sdk_check", ROOT / "bench" / "sdk_check.py")
sdk_check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sdk_check)

DEMO = ROOT / "data" / "demo"


def crawl_capture(tmp_path, version):
    servers = tmp_path / "servers.yaml"
    servers.write_text(f'servers:\n  - id: weather\n    command: "{{python}}"\n'
                       f'    args: ["{DEMO / "weather_server.py"}", "--version", "{version}"]\n')
    run = subprocess.run([sys.executable, "-m", "pipeline", "crawl", "--servers", str(servers),
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
