"""A judge endpoint that echoes the bearer key in its 401: the key never
reaches the lake, the report folder or any output."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pyarrow.parquet as pq
import pytest
import yaml

from mcpdelta.redact import MASK, redact
from tests.judge_survey.conftest import CAPTURES

# two spaces and a tab (a collapse of whitespace first would let it through),
# after 150 characters of message (a cut at the note's 200 would halve it)
CANARY = "sk-CANARY-7f3a  b9\tc41d0e2f9a8b7c6d5e4f3a2b1c0d9e8f"
ENV = "MCPDELTA_TEST_CANARY_KEY"


class _Echo(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        message = ("x" * 150 + " Incorrect API key provided: " + self.headers.get("Authorization", "")
                   + ". You can find your API key at https://example.invalid/keys.")
        body = json.dumps({"error": {"message": message, "type": "invalid_request_error",
                                     "code": "invalid_api_key"}}).encode()
        self.send_response(401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def echo():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def leaks(folder) -> list:
    """Every file under ``folder`` whose bytes, or whose Parquet cells, hold
    any piece of the canary."""
    found = []
    pieces = [p.encode() for p in ("CANARY", "7f3a", "c41d0e2f9a8b")]
    for path in sorted(folder.rglob("*")):
        if not path.is_file():
            continue
        data = path.read_bytes()
        if path.suffix == ".parquet":
            data = json.dumps(pq.read_table(path).to_pylist(), default=str).encode()
        if any(p in data for p in pieces):
            found.append(str(path))
    return found


def test_the_redact_helper_masks_every_spelling_and_keeps_types():
    text = f"a {CANARY} b {json.dumps(CANARY)} c {CANARY!r}"
    out = redact(text, [CANARY])
    assert "CANARY" not in out and out.count(MASK) == 3
    assert redact(text.encode(), [CANARY]) == out.encode()
    assert redact("short ab", ["ab"]) == "short ab"  # too short to be a secret
    assert redact(None, [CANARY]) is None


def test_a_key_echoed_in_a_401_reaches_no_file_and_no_output(echo, tmp_path, mcpdelta):
    config = tmp_path / "cfg.yml"
    config.write_text(yaml.safe_dump({"judges": [{"endpoint": echo, "api_key_env": ENV,
                                                  "model": "echo", "timeout": "5s"}]}))
    env = {ENV: CANARY}
    lake, report = tmp_path / "lake", tmp_path / "lake-report"
    outputs = []
    assert mcpdelta("ingest", CAPTURES, "--lake", lake).returncode == 0
    survey = mcpdelta("survey", "--lake", lake, "--no-crawl", "--config", config, "--workers", "1",
                      "--format", "json", env=env)
    assert survey.returncode == 0, survey.stderr
    assert json.loads(survey.stdout)["judges"]["errors"] > 0  # the endpoint refused every question
    outputs.append(survey)
    drift = mcpdelta("drift", "--lake", lake, "--format", "json", "--config", config, env=env)
    assert drift.returncode == 0, drift.stderr
    assert "HTTP 401" in drift.stdout and MASK in drift.stdout  # the error is kept, the key is not
    outputs.append(drift)
    diff = mcpdelta("diff", CAPTURES / "shop" / "1.0.0.json", CAPTURES / "shop" / "1.1.0.json",
                    "--semantic", "--format", "json", "--config", config, "--fail-on", "never", env=env)
    assert diff.returncode == 0, diff.stderr
    advisory = [n for c in json.loads(diff.stdout)["changes"] for n in c["advisory"]]
    assert advisory and all("HTTP 401" in n["summary"] for n in advisory)
    outputs.append(diff)
    for result in outputs:
        assert "CANARY" not in result.stdout + result.stderr
    assert (lake / "notes").is_dir() and report.is_dir()
    assert leaks(lake) == [] and leaks(report) == []
