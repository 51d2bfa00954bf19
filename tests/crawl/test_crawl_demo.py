"""The embedded demo servers (official mcp SDK): crawled, and evolving as documented."""

import json



def manifest(out, sid, version):
    return json.loads((out / sid / f"{version}.json").read_text())


def tool(m, name):
    return next(t for t in m["tools"] if t["name"] == name)


def test_demo_crawl_writes_every_version(demo_crawl):
    rc, out = demo_crawl
    assert rc == 0
    rows = [json.loads(x) for x in (out / "crawl-log.jsonl").read_text().splitlines()]
    assert len(rows) == 8 and all(r["ok"] for r in rows), rows
    for sid in ("demo-notes", "demo-weather"):
        for v in ("1.0.0", "1.1.0", "1.2.0", "2.0.0"):
            m = manifest(out, sid, v)
            assert m["serverInfo"]["version"] == v and m["nextCursor"] is None
            # the SDK servers speak the 2026-07-28 revision: server/discover answered
            assert m["protocolVersion"] == "2026-07-28" and m["supportedVersions"] == ["2026-07-28"]
    assert {r["handshake"] for r in rows} == {"discover"}


def test_notes_contract_evolves(demo_crawl):
    _, out = demo_crawl
    v1, v11, v12, v2 = (manifest(out, "demo-notes", v) for v in ("1.0.0", "1.1.0", "1.2.0", "2.0.0"))
    assert "pinned" not in tool(v1, "add_note")["inputSchema"]["properties"]
    assert "pinned" in tool(v11, "add_note")["inputSchema"]["properties"]          # optional param added
    assert "3 characters" in tool(v11, "search_notes")["description"]             # new constraint in prose
    assert "outputSchema" not in tool(v1, "get_note") and "outputSchema" in tool(v11, "get_note")
    assert tool(v11, "delete_note")["annotations"].get("idempotentHint") is True
    assert "idempotentHint" not in tool(v12, "delete_note")["annotations"]        # annotation weakened
    assert tool(v12, "search_notes")["inputSchema"]["properties"]["limit"]["maximum"] == 50
    assert {t["name"] for t in v2["tools"]} >= {"find_notes"} and "search_notes" not in {t["name"] for t in v2["tools"]}
    assert "notebook" in tool(v2, "add_note")["inputSchema"]["required"]          # new required argument
    assert "tags" not in tool(v2, "add_note")["inputSchema"]["properties"]        # property removed
    assert tool(v2, "find_notes")["inputSchema"]["properties"]["sort"]["enum"] == ["newest", "oldest"]
    assert "updated_at" not in tool(v2, "get_note")["outputSchema"]["properties"]
    style = lambda m: next(a for a in m["prompts"][0]["arguments"] if a["name"] == "style")  # noqa: E731
    assert style(v11)["required"] is False and style(v2)["required"] is True
    assert v1["resourceTemplates"][0]["uriTemplate"] == "notes://{note_id}"


def test_weather_contract_evolves(demo_crawl):
    _, out = demo_crawl
    v1, v11, v12, v2 = (manifest(out, "demo-weather", v) for v in ("1.0.0", "1.1.0", "1.2.0", "2.0.0"))
    assert tool(v1, "get_forecast")["description"] != tool(v11, "get_forecast")["description"]
    assert "kelvin" in tool(v11, "get_forecast")["inputSchema"]["properties"]["units"]["enum"]
    assert "kelvin" not in tool(v12, "get_forecast")["inputSchema"]["properties"]["units"]["enum"]
    assert "get_air_quality" in {t["name"] for t in v11["tools"]} - {t["name"] for t in v1["tools"]}
    assert tool(v11, "get_alerts")["annotations"].get("readOnlyHint") is True
    assert "readOnlyHint" not in tool(v12, "get_alerts")["annotations"]
    assert tool(v2, "get_forecast")["inputSchema"]["required"] == ["city", "country"]
    day = tool(v2, "get_forecast")["outputSchema"]["$defs"]["Day"]
    assert "summary" not in day["properties"]
    assert "list_alerts" in {t["name"] for t in v2["tools"]}
    assert [a["name"] for a in v2["prompts"][0]["arguments"]] == ["city", "dates"]
