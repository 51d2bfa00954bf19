"""stdio captures against hand-written raw JSON-RPC servers: fidelity and faults."""

import json

import pytest

from .conftest import FAULT_STDIO, alive, fast_limits, only, run_crawl, stdio_target

pytestmark = pytest.mark.usefixtures("no_leftovers")


def test_fidelity_keeps_every_key_and_follows_pages(tmp_path):
    rec = only(run_crawl([stdio_target("ok")], tmp_path))
    assert rec.ok and rec.error_kind is None, rec
    assert rec.version == "9.9.9"  # serverInfo.version names the file
    written = json.loads((tmp_path / "fault-ok" / "9.9.9.json").read_text())
    assert written == rec.manifest
    assert rec.path == "fault-ok/9.9.9.json"
    # the initialize answer as sent, unknown keys and _meta included
    for key in ("_meta", "x-top-level", "instructions", "capabilities", "serverInfo"):
        assert key in written, key
    assert written["x-top-level"] == [1, {"two": 2}]
    assert written["serverInfo"]["x-build"] == 42
    assert written["capabilities"]["x-experimental"] == {"a": 1}
    assert written["protocolVersion"] == "2025-06-18"
    # three pages joined, in order, objects untouched
    tools = written["tools"]
    assert [t["name"] for t in tools] == ["alpha", "beta", "gamma"]
    from .servers import fault_stdio

    assert tools[0] == fault_stdio.TOOL_A  # unknown keys, _meta, None title, odd types
    assert tools[1]["outputSchema"]["properties"]["n"]["maximum"] == 18446744073709551615
    assert tools[1]["execution"] == {"taskSupport": "optional"}
    assert tools[2]["description"] == "ünïcode ✓ \u2028"
    assert written["prompts"][0]["arguments"][0]["x-extra"] == 1
    assert written["resources"][0]["_meta"] == {"size": 3}
    assert written["resourceTemplates"][0]["uriTemplate"] == "file:///{p}"
    assert written["nextCursor"] is None
    assert rec.offered_protocol == "2025-11-25" and rec.protocol == "2025-06-18"


def test_unsupported_version_error_is_negotiated(tmp_path):
    rec = only(run_crawl([stdio_target("old-only")], tmp_path))
    assert rec.ok, rec
    assert rec.offered_protocol == "2025-03-26"
    assert rec.manifest["supportedVersions"] == ["2024-11-05", "2025-03-26"]


def test_log_has_one_row_per_attempt(tmp_path):
    records = run_crawl([stdio_target("ok"), stdio_target("init-error")], tmp_path)
    rows = [json.loads(line) for line in (tmp_path / "crawl-log.jsonl").read_text().splitlines()]
    assert len(rows) == 2
    assert {r["id"] for r in rows} == {"fault-ok", "fault-init-error"}
    for row in rows:
        assert {"id", "version", "ok", "error_kind", "error", "duration_ms"} <= set(row)
        assert isinstance(row["duration_ms"], int)
    bad = next(r for r in rows if r["id"] == "fault-init-error")
    assert bad["ok"] is False and bad["error_kind"] == "protocol_error"
    assert "Unsupported protocol version" in bad["error"]
    assert not (tmp_path / "fault-init-error").exists()
    assert len(records) == 2


@pytest.mark.parametrize("mode, kind, words", [
    ("garbage", "protocol_error", "not JSON"),
    ("exit-early", "server_exited", "status 1"),
    ("partial-line", "server_exited", "middle of a message"),
    ("crash-mid-list", "server_exited", "out of cheese"),
    ("huge", "too_large", "over"),
])
def test_faults_become_classified_rows(tmp_path, mode, kind, words):
    rec = only(run_crawl([stdio_target(mode)], tmp_path))
    assert not rec.ok
    assert rec.error_kind == kind, rec
    assert words in rec.error
    assert rec.attempts == 1  # none of these is transient
    assert rec.manifest is None
    assert not (tmp_path / f"fault-{mode}").exists()


def test_flood_hits_the_per_server_byte_cap(tmp_path):
    rec = only(run_crawl([stdio_target("flood")], tmp_path, fast_limits(max_server_bytes=512 * 1024)))
    assert rec.error_kind == "too_large"
    assert "server output" in rec.error


def test_spawn_failure(tmp_path):
    target = stdio_target("ok")
    target.command = str(tmp_path / "no-such-server")
    rec = only(run_crawl([target], tmp_path))
    assert rec.error_kind == "spawn_failed" and "no-such-server" in rec.error


def test_a_server_dying_of_an_exception_group_names_the_error_inside_it(tmp_path):
    """Python draws an exception group's tracebacks inside a frame ("  | ",
    "  +-+---"); the cause is the error in the frame, not its last heading."""
    script = tmp_path / "group_server.py"
    script.write_text("import sys\n"
                      "sys.stdin.readline()\n"
                      "raise ExceptionGroup('unhandled errors in a TaskGroup', "
                      "[ConnectionError('[Errno -2] Name or service not known')])\n")
    target = stdio_target("ok")
    target.args = [str(script)]
    rec = only(run_crawl([target], tmp_path))
    assert rec.error_kind == "server_exited", rec.error
    assert rec.error.endswith("stderr: ConnectionError: [Errno -2] Name or service not known"), rec.error
    assert not any("Traceback" in line for line in rec.error_lines)


def test_a_script_without_an_interpreter_line_or_a_dangling_link_says_so(tmp_path):
    script = tmp_path / "server.mjs"  # as some npm packages ship their bin
    script.write_text("console.log('hi')\n")
    script.chmod(0o755)
    link = tmp_path / "dangling"
    link.symlink_to(tmp_path / "dist" / "missing.js")
    records = {}
    for name, command in (("noshebang", script), ("dangling", link)):
        target = stdio_target("ok")
        target.command = str(command)
        records[name] = only(run_crawl([target], tmp_path / f"out-{name}"))
    assert records["noshebang"].error_kind == "spawn_failed"
    assert "does not start with a #! line" in records["noshebang"].error
    assert records["dangling"].error_kind == "spawn_failed"
    assert "missing.js" in records["dangling"].error and "does not exist" in records["dangling"].error


def test_a_relative_command_is_looked_for_in_the_servers_folder_and_said_so(tmp_path):
    folder = tmp_path / "server-folder"
    folder.mkdir()
    (folder / "dangling").symlink_to("dist/missing.js")  # relative: resolved from the server's folder
    records = {}
    for name, command in (("dangling", "./dangling"), ("absent", "bin/absent")):
        target = stdio_target("ok")
        target.command, target.cwd = command, str(folder)
        records[name] = only(run_crawl([target], tmp_path / f"out-{name}"))
    assert records["dangling"].error_kind == "spawn_failed"
    assert "'dist/missing.js', which does not exist" in records["dangling"].error
    assert records["absent"].error_kind == "spawn_failed"
    assert f"looked for in {str(folder)!r}" in records["absent"].error


@pytest.mark.parametrize("mode", ["hang", "hang-stubborn"])
def test_hang_times_out_and_the_whole_group_dies(tmp_path, monkeypatch, mode):
    pidfile = tmp_path / "pids"
    target = stdio_target(mode, env={"PIDFILE": str(pidfile)})
    rec = only(run_crawl([target], tmp_path / "out", fast_limits(start_timeout_s=1.5)))
    assert rec.error_kind == "timeout" and "initialize" in rec.error
    assert rec.attempts == 1  # a local hang is not retried
    server, child = map(int, pidfile.read_text().split())
    assert not alive(server) and not alive(child)


def test_the_start_limit_bounds_discover_and_initialize_together(tmp_path):
    """``timeout_s: N``: a server that never answers fails after about N
    seconds, not after N once per handshake tried (server/discover, then
    initialize)."""
    rec = only(run_crawl([stdio_target("hang")], tmp_path, fast_limits(start_timeout_s=2.0)))
    assert rec.error_kind == "timeout"
    assert rec.error == "no answer to server/discover or initialize within 2s"
    assert 2000 <= rec.capture_ms < 3000


def test_total_timeout_bounds_a_slow_capture(tmp_path):
    rec = only(run_crawl([stdio_target("hang")], tmp_path, fast_limits(total_timeout_s=1.0)))
    assert rec.error_kind == "timeout" and "total time limit" in rec.error


def test_cursor_cycle_stops_and_keeps_the_cursor(tmp_path):
    rec = only(run_crawl([stdio_target("cycle")], tmp_path))
    assert rec.ok and rec.error_kind == "truncated"
    assert "cursor" in rec.error
    assert [t["name"] for t in rec.manifest["tools"]] == ["t-None", "t-a", "t-b"]
    assert rec.manifest["nextCursor"] == "a"
    assert json.loads((tmp_path / "fault-cycle" / "9.9.9.json").read_text())["nextCursor"] == "a"


def test_page_cap_stops_and_keeps_the_cursor(tmp_path):
    rec = only(run_crawl([stdio_target("endless")], tmp_path, fast_limits(max_pages=5)))
    assert rec.ok and rec.error_kind == "truncated" and "page cap" in rec.error
    assert len(rec.manifest["tools"]) == 5
    assert rec.manifest["nextCursor"] == "5"


def test_failed_optional_list_is_partial(tmp_path):
    rec = only(run_crawl([stdio_target("fail-prompts")], tmp_path))
    assert rec.ok and rec.error_kind == "partial"
    assert "prompts/list" in rec.error and "-32603" in rec.error
    assert "prompts" not in rec.manifest  # not captured, so absent (not empty)
    assert rec.manifest["tools"][0]["name"] == "alpha"
    assert rec.manifest["resources"]


@pytest.mark.parametrize("mode, method, key", [("reject-prompts", "prompts/list", "prompts"),
                                               ("no-templates", "resources/templates/list", "resourceTemplates")])
def test_unimplemented_optional_list_is_a_note(tmp_path, mode, method, key):
    rec = only(run_crawl([stdio_target(mode)], tmp_path))
    assert rec.ok and rec.error_kind is None and rec.error is None  # not partial
    assert any(method in w and "-32601" in w and "not a failure" in w for w in rec.warnings), rec.warnings
    assert key not in rec.manifest and rec.manifest["tools"]
    row = json.loads((tmp_path / "crawl-log.jsonl").read_text())
    assert row["ok"] is True and row["error_kind"] is None


def test_failed_tools_list_is_a_failure(tmp_path, capsys):
    from mcpdelta.cli import main

    servers = tmp_path / "servers.yaml"
    servers.write_text(f'servers:\n  - {{id: broken, command: "{{python}}", args: ["{FAULT_STDIO}", fail-tools]}}\n')
    rc = main(["crawl", "--servers", str(servers), "--out", str(tmp_path / "out")])
    assert rc == 1
    row = json.loads((tmp_path / "out" / "crawl-log.jsonl").read_text())
    assert row["ok"] is False and row["error_kind"] == "list_failed"
    assert "tools/list" in row["error"] and "no db" in row["error"]
    assert not (tmp_path / "out" / "broken").exists()  # no manifest without its tools
    assert "0 ok, 1 failed" in capsys.readouterr().out


def test_noisy_stdout_is_skipped_and_counted(tmp_path):
    rec = only(run_crawl([stdio_target("noisy")], tmp_path))
    assert rec.ok and rec.error_kind is None
    assert [t["name"] for t in rec.manifest["tools"]] == ["alpha"]
    assert rec.noise_lines == 4  # two banners, a log line and a bare number
    assert any("skipped 4 stdout line" in w and "Transport: stdio" in w for w in rec.warnings)
    row = json.loads((tmp_path / "crawl-log.jsonl").read_text())
    assert row["noise_lines"] == 4


def test_noise_past_the_bound_fails(tmp_path):
    rec = only(run_crawl([stdio_target("garbage")], tmp_path, fast_limits(max_noise_lines=100)))
    assert not rec.ok and rec.error_kind == "protocol_error"
    assert "over 100 stdout lines" in rec.error and "Server starting" in rec.error


def test_secrets_expand_but_never_reach_files(tmp_path, monkeypatch):
    monkeypatch.setenv("FAULT_TOKEN", "s3cr3t-value-123")
    target = stdio_target("echo-secret", env={"FAULT_TOKEN": "${FAULT_TOKEN}"})
    rec = only(run_crawl([target], tmp_path))
    assert rec.ok
    assert rec.manifest["serverInfo"]["tokenOk"] is True  # the server got the value
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert "s3cr3t-value-123" not in path.read_text(errors="replace"), path


def test_secret_in_a_failure_is_redacted(tmp_path, monkeypatch):
    monkeypatch.setenv("FAULT_TOKEN", "s3cr3t-value-123")
    rec = only(run_crawl([stdio_target("leak-crash", env={"FAULT_TOKEN": "${FAULT_TOKEN}"})], tmp_path))
    assert rec.error_kind == "server_exited"
    assert "token=***" in rec.error and "token=***" in rec.stderr_tail
    log = (tmp_path / "crawl-log.jsonl").read_text()
    assert "token=***" in log and "s3cr3t-value-123" not in log


def test_missing_variable_is_a_row(tmp_path, monkeypatch):
    monkeypatch.delenv("NOT_SET_ANYWHERE", raising=False)
    rec = only(run_crawl([stdio_target("ok", env={"T": "${NOT_SET_ANYWHERE}"})], tmp_path))
    assert not rec.ok and rec.error_kind == "missing_env"


def test_concurrency_many_servers_each_a_row(tmp_path):
    targets = [stdio_target("ok", id_=f"s{i}") for i in range(6)] + [stdio_target("garbage")]
    records = run_crawl(targets, tmp_path, fast_limits(concurrency=3))
    assert sorted(r.id for r in records if r.ok) == [f"s{i}" for i in range(6)]
    assert [r.error_kind for r in records if not r.ok] == ["protocol_error"]


def test_default_client_identity_is_sent(tmp_path):
    from mcpdelta import __version__

    rec = only(run_crawl([stdio_target("echo-client")], tmp_path))
    assert rec.ok, rec
    seen = rec.manifest["serverInfo"]
    assert seen["seenClientInfo"] == {"name": "mcpdelta-crawler", "version": __version__}
    assert seen["seenProtocolVersion"] == "2025-11-25"
    assert rec.client == {"name": "mcpdelta-crawler", "version": __version__}


def test_second_client_identity_reaches_the_server(tmp_path):
    """A second capture pass: the server sees the chosen clientInfo and protocol version."""
    import asyncio

    from mcpdelta.crawl.model import ClientIdentity
    from mcpdelta.crawl.packages import PackageCache
    from mcpdelta.crawl.runner import crawl

    client = ClientIdentity(name="second-pass", version="0.0.1", protocol_version="2025-06-18")
    cache = PackageCache(tmp_path / ".cache", 600, offline=True)
    rec = only(asyncio.run(crawl([stdio_target("echo-client")], fast_limits(), tmp_path / "out",
                                 cache=cache, client=client)))
    assert rec.ok, rec
    seen = rec.manifest["serverInfo"]
    assert seen["seenClientInfo"] == {"name": "second-pass", "version": "0.0.1"}
    assert seen["seenProtocolVersion"] == "2025-06-18"
    assert rec.offered_protocol == rec.protocol == "2025-06-18"
    row = json.loads((tmp_path / "out" / "crawl-log.jsonl").read_text())
    assert row["client"] == {"name": "second-pass", "version": "0.0.1"}
    assert row["offered_protocol"] == "2025-06-18"


def test_offered_old_protocol_needs_no_negotiation(tmp_path):
    import asyncio

    from mcpdelta.crawl.model import ClientIdentity
    from mcpdelta.crawl.packages import PackageCache
    from mcpdelta.crawl.runner import crawl

    cache = PackageCache(tmp_path / ".cache", 600, offline=True)
    rec = only(asyncio.run(crawl([stdio_target("old-only")], fast_limits(), tmp_path / "out", cache=cache,
                                 client=ClientIdentity(protocol_version="2025-03-26"))))
    assert rec.ok and rec.offered_protocol == "2025-03-26", rec
    assert "supportedVersions" not in rec.manifest  # accepted at once: no error, no list
