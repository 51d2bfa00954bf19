"""The crawler against real stdio servers: the handshake of each protocol
era, what a manifest records, isolation of each server, error causes,
secrets, name collisions and processes that try to outlive the capture."""

import json
import os
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from mcpdelta.cli import main
from mcpdelta.crawl.model import Target

from .conftest import DEMO, FAULT_STDIO, alive, fast_limits, only, run_crawl, stdio_target


def demo_target(era: str, id_: str) -> Target:
    return Target(id=id_, command=sys.executable, cwd=str(DEMO),
                  args=[str(DEMO / "notes_server.py"), "--version", "1.1.0", "--era", era])


# -- the 2026-07-28 revision and the initialize handshake ---------------------
def test_discover_first_and_initialize_for_older_servers(tmp_path):
    records = run_crawl([demo_target("dual", "modern"), demo_target("legacy", "legacy")], tmp_path,
                        fast_limits(discover_timeout_s=30))  # the answer itself decides, not the clock
    by = {r.id: r for r in records}
    modern, legacy = by["modern"], by["legacy"]
    assert modern.ok and legacy.ok
    assert modern.handshake == "discover" and modern.protocol == "2026-07-28"
    assert legacy.handshake == "initialize" and legacy.protocol == "2025-11-25"
    assert any("fell back to initialize" in w and "-32601" in w for w in legacy.warnings)
    m, old = modern.manifest, legacy.manifest
    assert m["supportedVersions"] == ["2026-07-28"] and "protocolVersion" in m
    assert m["serverInfo"] == {"name": "demo-notes", "version": "1.1.0"}  # from the discover _meta stamp
    # the lists asked with the protocol in each request's _meta give what initialize's session gives
    for key in ("tools", "prompts", "resources", "resourceTemplates"):
        assert sorted(json.dumps(x, sort_keys=True) for x in m[key]) == \
            sorted(json.dumps(x, sort_keys=True) for x in old[key]), key
    assert m["instructions"] == old["instructions"] and m["instructions"]
    rows = [json.loads(x) for x in (tmp_path / "crawl-log.jsonl").read_text().splitlines()]
    assert {r["id"]: r["handshake"] for r in rows} == {"modern": "discover", "legacy": "initialize"}


def test_a_server_silent_or_dying_on_discover_is_asked_with_initialize(tmp_path):
    silent, dying = run_crawl([stdio_target("silent-discover"), stdio_target("die-on-discover")], tmp_path,
                              fast_limits(discover_timeout_s=0.5))
    assert silent.ok and silent.handshake == "initialize" and silent.attempts == 1
    assert any("server/discover: no answer within 0.5s" in w for w in silent.warnings)
    assert dying.ok and dying.handshake == "initialize" and dying.attempts == 1
    assert any("started again for initialize" in w and "unknown method" in w for w in dying.warnings)
    assert [t["name"] for t in dying.manifest["tools"]] == ["alpha"]


def test_a_server_silent_on_discover_that_dies_on_initialize_is_started_again(tmp_path):
    # older Python SDK servers: no answer to the unknown method, then the
    # process dies of it while initialize waits
    rec = only(run_crawl([stdio_target("silent-then-die")], tmp_path, fast_limits(discover_timeout_s=0.5)))
    assert rec.ok and rec.handshake == "initialize" and rec.attempts == 1, rec.error
    assert any("started again for initialize" in w and "went unanswered" in w for w in rec.warnings), rec.warnings
    assert [t["name"] for t in rec.manifest["tools"]] == ["alpha"]


def test_a_late_discover_answer_still_wins(tmp_path):
    # the probe gives up before the server has started; the server then answers it,
    # refuses the initialize that followed (-32022), and is asked again, as the SDK client does
    rec = only(run_crawl([demo_target("dual", "slow")], tmp_path, fast_limits(discover_timeout_s=0.01)))
    assert rec.ok and rec.handshake == "discover" and rec.protocol == "2026-07-28"
    assert any("answered late" in w and "-32022" in w for w in rec.warnings), rec.warnings
    assert rec.manifest["tools"]


def test_old_protocol_flag_skips_discover(tmp_path):
    servers = tmp_path / "servers.yaml"
    servers.write_text(f'servers:\n  - {{id: n, command: "{{python}}", args: ["{DEMO / "notes_server.py"}", '
                       f'--version, "1.0.0"]}}\n')
    assert main(["crawl", "--servers", str(servers), "--out", str(tmp_path / "out"),
                 "--protocol-version", "2025-06-18"]) == 0
    row = json.loads((tmp_path / "out" / "crawl-log.jsonl").read_text())
    assert row["handshake"] == "initialize" and row["protocol"] == "2025-06-18" and row["warnings"] == []


def test_instructions_absent_from_initialize_are_written_as_null(tmp_path):
    bare, full = run_crawl([stdio_target("bare-init"), stdio_target("ok")], tmp_path)
    assert "instructions" in bare.manifest and bare.manifest["instructions"] is None
    on_disk = json.loads((tmp_path / "fault-bare-init" / "9.9.9.json").read_text())
    assert "instructions" in on_disk and on_disk["instructions"] is None
    assert full.manifest["instructions"] == "Be careful."


# -- isolation ----------------------------------------------------------------
def test_each_server_gets_a_fresh_home(tmp_path, monkeypatch):
    real = tmp_path / "real-home"
    real.mkdir()
    monkeypatch.setenv("HOME", str(real))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    first, second = run_crawl([stdio_target("home", "h1"), stdio_target("home", "h2")], tmp_path / "out")
    seen = [r.manifest["serverInfo"] for r in (first, second)]
    assert all(s["home"] != str(real) for s in seen) and seen[0]["home"] != seen[1]["home"]
    assert all(s["cache"].startswith(s["home"]) for s in seen)
    assert list(real.iterdir()) == []  # nothing reached the real home
    assert not any(os.path.exists(s["home"]) for s in seen)  # and the fresh ones are gone


def test_a_set_ordered_default_is_the_same_in_every_capture(tmp_path):
    records = run_crawl([stdio_target("set-default", f"s{i}") for i in range(4)], tmp_path)
    defaults = {json.dumps(r.manifest["tools"][0]["inputSchema"]["properties"]["fields"]["default"]) for r in records}
    assert len(defaults) == 1, defaults
    # the same seed as a plain PYTHONHASHSEED=0 run of the server's own set
    code = 'print(list({"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"}))'
    seeded = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, PYTHONHASHSEED="0"),
                            capture_output=True, text=True, check=True).stdout
    assert json.loads(defaults.pop()) == json.loads(seeded.replace("'", '"'))


# -- causes -----------------------------------------------------------------------
def test_a_crash_names_its_cause_not_its_last_line(tmp_path):
    rec = only(run_crawl([stdio_target("node-crash")], tmp_path))
    assert rec.error_kind == "server_exited"
    assert "Cannot find package 'pkce-challenge'" in rec.error and "Node.js v20" not in rec.error
    assert rec.error_lines and "ERR_MODULE_NOT_FOUND" in rec.error_lines[0]
    assert "Node.js v20.20.2" in rec.stderr_tail  # the tail is kept too, now long enough to hold it
    row = json.loads((tmp_path / "crawl-log.jsonl").read_text())
    assert row["error_lines"] == rec.error_lines


# -- secrets ------------------------------------------------------------------------
SECRET = "CANARYv4lu3  with\ttab-" + "k" * 40


def _pieces(secret: str, n: int = 8):
    return {secret[i:i + n] for i in range(len(secret) - n + 1)}


@pytest.mark.parametrize("fill", [0, 900])
def test_a_long_secret_with_whitespace_never_survives_in_part(tmp_path, monkeypatch, fill):
    monkeypatch.setenv("FAULT_TOKEN", SECRET)
    target = stdio_target("leak-long", env={"FAULT_TOKEN": "${FAULT_TOKEN}", "FILL": str(fill)})
    # a 1 KB tail: with the filler, the secret straddles the tail's start
    rec = only(run_crawl([target], tmp_path, fast_limits(stderr_tail_bytes=1024)))
    assert rec.error_kind == "server_exited"
    written = (tmp_path / "crawl-log.jsonl").read_text()
    text = json.dumps(rec.log_row()) + written
    assert "***" in written
    leaked = [p for p in _pieces(SECRET) | _pieces(json.dumps(SECRET)[1:-1]) if p in text and set(p) != {"k"}]
    assert not leaked, leaked


class _Recorder(BaseHTTPRequestHandler):
    seen: list = []
    target = ""

    def log_message(self, *args):
        pass

    def do_POST(self):
        type(self).seen.append((self.server.server_port, dict(self.headers)))
        if self.server.redirect_to:
            self.send_response(307)
            self.send_header("Location", self.server.redirect_to)
            self.end_headers()
            return
        self.send_response(500)
        self.end_headers()


def _serve(redirect_to):
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    server.redirect_to = redirect_to
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def test_a_secret_header_never_crosses_an_origin_on_redirect(tmp_path, monkeypatch):
    _Recorder.seen = []
    other = _serve(None)
    home = _serve(f"http://127.0.0.1:{other.server_port}/mcp")
    monkeypatch.setenv("API_KEY", "k-canary-123456")
    target = Target(id="redirected", transport="streamable-http", url=f"http://127.0.0.1:{home.server_port}/mcp",
                    headers={"X-Api-Key": "${API_KEY}", "X-Plain": "visible"})
    try:
        rec = only(run_crawl([target], tmp_path, fast_limits(retries=0)))
    finally:
        home.shutdown()
        other.shutdown()
    assert not rec.ok
    at_home = [h for port, h in _Recorder.seen if port == home.server_port]
    away = [h for port, h in _Recorder.seen if port == other.server_port]
    assert at_home and away  # the redirect was followed
    assert all(h.get("X-Api-Key") == "k-canary-123456" for h in at_home)
    assert all("X-Api-Key" not in h and h.get("X-Plain") == "visible" for h in away)


# -- names --------------------------------------------------------------------------
@pytest.mark.parametrize("a, b", [("acme/notes", "acme__notes"), ("acme notes", "acme_notes")])
def test_colliding_ids_are_refused_naming_both(tmp_path, capsys, a, b):
    servers = tmp_path / "servers.yaml"
    servers.write_text(f'servers:\n  - {{id: "{a}", command: "{{python}}", args: ["{FAULT_STDIO}", ok]}}\n'
                       f'  - {{id: "{b}", command: "{{python}}", args: ["{FAULT_STDIO}", ok]}}\n')
    assert main(["crawl", "--servers", str(servers), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and repr(a) in err and repr(b) in err
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


# -- processes ------------------------------------------------------------------------
def _pids(pidfile):
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        text = pidfile.read_text() if pidfile.exists() else ""
        if text.endswith("\n"):
            return [int(p) for p in text.split()]
        time.sleep(0.05)
    raise AssertionError("the server wrote no pids")


def test_children_that_leave_the_process_group_die_with_the_capture(tmp_path, no_leftovers):
    pidfile = tmp_path / "pids"
    rec = only(run_crawl([stdio_target("setsid-child", env={"PIDFILE": str(pidfile)})], tmp_path / "out"))
    assert rec.ok
    server, child, grandchild = _pids(pidfile)
    assert os.getsid(os.getpid()) != -1
    time.sleep(0.2)
    assert not alive(server) and not alive(child) and not alive(grandchild)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_stopping_the_crawl_ends_every_server(tmp_path, signum, no_leftovers):
    pidfile = tmp_path / "pids"
    servers = tmp_path / "servers.yaml"
    servers.write_text(f'servers:\n  - {{id: stuck, command: "{{python}}", args: ["{FAULT_STDIO}", hang-stubborn], '
                       f'env: {{PIDFILE: "{pidfile}", ESCAPE: "1"}}}}\n'
                       f'limits: {{timeout_s: 60, total_timeout_s: 120}}\n')
    crawl = subprocess.Popen([sys.executable, "-m", "mcpdelta", "crawl", "--servers", str(servers),
                              "--out", str(tmp_path / "out")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    try:
        server, child, grandchild = _pids(pidfile)
        time.sleep(0.5)  # the server is now waiting in initialize, ignoring SIGTERM and stdin EOF
        crawl.send_signal(signum)
        out, err = crawl.communicate(timeout=20)
    finally:
        if crawl.poll() is None:
            crawl.kill()
    assert crawl.returncode == 128 + signum, (out, err)
    assert signal.Signals(signum).name in err and "Traceback" not in err
    time.sleep(0.2)
    assert not alive(server) and not alive(child) and not alive(grandchild)


def test_the_lake_attempts_keep_the_new_fields(tmp_path):
    from mcpdelta.lake import Lake
    from mcpdelta.lake.ingest import rows_from_folder, store

    run_crawl([demo_target("dual", "modern"), stdio_target("exit-early")], tmp_path / "out")
    lake = Lake(str(tmp_path / "lake"))
    store(lake, *rows_from_folder(str(tmp_path / "out")))
    got = lake.connect().execute("SELECT server_id, handshake, capture_ms > 0, install_ms FROM attempts "
                                 "ORDER BY server_id").fetchall()
    assert got == [("fault-exit-early", None, True, 0), ("modern", "discover", True, 0)]
