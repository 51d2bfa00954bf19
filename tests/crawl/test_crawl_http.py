"""Streamable HTTP and legacy SSE captures against real loopback servers."""

import json
import socket
import uuid

import httpx
import pytest

from mcpdelta.crawl.model import Target

from .conftest import fast_limits, only, run_crawl


def http_target(url, id_="remote", transport="streamable-http", **kw):
    return Target(id=id_, transport=transport, url=url, **kw)


def key():
    return uuid.uuid4().hex[:8]


def stats(base, k):
    return httpx.get(f"{base}/stats", params={"key": k}).json()


@pytest.mark.parametrize("path", ["/mcp/json", "/mcp/sse"])
def test_streamable_http_session(tmp_path, fault_http, path):
    k = key()
    rec = only(run_crawl([http_target(f"{fault_http}{path}?key={k}")], tmp_path))
    assert rec.ok, rec
    assert rec.version == "3.1.4"
    assert rec.manifest["tools"][0] == {"name": "remote_tool", "description": "A remote tool.",
                                        "inputSchema": {"type": "object"},
                                        "_meta": {"io.example/remote": True}, "x-odd": [None, 1.5]}
    seen = stats(fault_http, k)
    assert len(seen["sessions"]) == 1
    # every request after initialize carried the session id and the negotiated version
    assert seen["protocol_headers"] and set(seen["protocol_headers"]) == {"2025-06-18"}
    assert seen["deleted"] == seen["sessions"]  # the session was closed


def test_http_500_then_200_is_retried(tmp_path, fault_http):
    k = key()
    rec = only(run_crawl([http_target(f"{fault_http}/mcp/flaky?key={k}")], tmp_path))
    assert rec.ok and rec.attempts == 2
    assert "HTTP 500" in rec.warnings[0]


def test_429_honours_retry_after(tmp_path, fault_http):
    k = key()
    rec = only(run_crawl([http_target(f"{fault_http}/mcp/busy?key={k}")], tmp_path))
    assert rec.ok and rec.attempts == 2
    assert "HTTP 429" in rec.warnings[0] and "retried after 1s" in rec.warnings[0]


def test_401_is_auth_required_and_not_retried(tmp_path, fault_http):
    k = key()
    rec = only(run_crawl([http_target(f"{fault_http}/mcp/auth?key={k}")], tmp_path))
    assert not rec.ok and rec.error_kind == "auth_required" and "401" in rec.error
    assert rec.attempts == 1
    assert stats(fault_http, k)["requests"] == 1


def test_bearer_token_from_environment(tmp_path, fault_http, monkeypatch):
    monkeypatch.setenv("FAULT_HTTP_TOKEN", "s3cr3t-value-123")
    target = http_target(f"{fault_http}/mcp/auth?key={key()}",
                         headers={"Authorization": "Bearer ${FAULT_HTTP_TOKEN}"})
    rec = only(run_crawl([target], tmp_path))
    assert rec.ok, rec
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert "s3cr3t-value-123" not in path.read_text(errors="replace")


def test_404_is_http_status_and_not_retried(tmp_path, fault_http):
    k = key()
    rec = only(run_crawl([http_target(f"{fault_http}/mcp/gone?key={k}")], tmp_path))
    assert rec.error_kind == "http_status" and "404" in rec.error and "transport: sse" in rec.error
    assert rec.attempts == 1


def test_connection_refused_is_retried_then_recorded(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    rec = only(run_crawl([http_target(f"http://127.0.0.1:{port}/mcp")], tmp_path, fast_limits(retries=2)))
    assert rec.error_kind == "connection_error"
    assert rec.attempts == 3 and len(rec.warnings) == 2


def test_legacy_sse_transport(tmp_path, fault_http):
    rec = only(run_crawl([http_target(f"{fault_http}/sse", transport="sse")], tmp_path))
    assert rec.ok, rec
    assert rec.protocol == "2024-11-05"
    assert rec.manifest["protocolVersion"] == "2024-11-05"
    assert rec.manifest["tools"][0]["x-odd"] == [None, 1.5]


def test_sdk_demo_server_over_streamable_http_matches_stdio(tmp_path, demo_notes_http, demo_crawl):
    rec = only(run_crawl([http_target(demo_notes_http, id_="demo-notes-http")], tmp_path))
    assert rec.ok, rec
    assert rec.version == "1.1.0"
    _, out = demo_crawl
    over_stdio = json.loads((out / "demo-notes" / "1.1.0.json").read_text())
    for key_ in ("tools", "prompts", "resources", "resourceTemplates", "serverInfo", "instructions"):
        assert rec.manifest[key_] == over_stdio[key_], key_
