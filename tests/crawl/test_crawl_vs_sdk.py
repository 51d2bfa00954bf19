"""The crawler gets what the official ``mcp`` SDK client gets: tool names and
input schemas, and the protocol revision, for each demo server release in
both eras (a dual-era server, where both sides speak server/discover, and a
handshake-only one), against the same real stdio servers."""

import asyncio
import sys

import pytest

from mcp import Client, StdioServerParameters

from .conftest import DEMO, run_crawl
from .test_crawl_fidelity import demo_target


async def sdk_capture(era: str):
    params = StdioServerParameters(command=sys.executable, cwd=str(DEMO),
                                   args=[str(DEMO / "notes_server.py"), "--version", "2.0.0", "--era", era])
    async with Client(params) as client:
        tools, cursor = [], None
        while True:
            page = await client.list_tools(cursor=cursor)
            tools += [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in page.tools]
            cursor = page.next_cursor
            if not cursor:
                return client.protocol_version, tools


@pytest.mark.parametrize("era", ["dual", "legacy"])
def test_tools_match_the_sdk_client(tmp_path, era):
    version, sdk_tools = asyncio.run(sdk_capture(era))
    target = demo_target(era, f"n-{era}")
    target.args[2] = "2.0.0"
    rec, = run_crawl([target], tmp_path)
    assert rec.ok and rec.protocol == version
    ours = {t["name"]: t for t in rec.manifest["tools"]}
    theirs = {t["name"]: t for t in sdk_tools}
    assert sorted(ours) == sorted(theirs) and len(ours) >= 3
    for name in ours:
        assert ours[name]["inputSchema"] == theirs[name]["inputSchema"], name
