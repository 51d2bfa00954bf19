"""A small OpenAI-compatible chat-completions server for the judge tests.

Real HTTP on 127.0.0.1 (``ThreadingHTTPServer``). What it answers is
scripted per model name, so tests sharing one server never see each
other's requests: ``server.script(model, step, step, ...)`` queues steps,
each used for one request, the last one repeated. Every request is logged
(model, path, body, headers) and can be counted per model.

A step is a function ``(request_body) -> (status, headers, body, delay_s)``;
the helpers below build the usual ones.
"""

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DEFAULT_USAGE = {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}


def completion(model, content, usage=DEFAULT_USAGE):
    body = {"id": "chatcmpl-test", "object": "chat.completion", "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}]}
    if usage is not None:
        body["usage"] = usage
    return body


def answer(score=0.9, *, security=False, injected=False, summary="the meaning moved",
           usage=DEFAULT_USAGE, extra=None, delay=0.0):
    """A well-formed judge answer (``extra`` adds keys, such as a severity
    the judge has no business giving)."""
    payload = {"meaning_score": score, "selection_intent_changed": score >= 0.5,
               "side_effects_changed": False, "injected_instruction": injected,
               "security_relevant": security, "summary": summary, **(extra or {})}

    def step(request):
        return 200, {}, completion(request.get("model"), json.dumps(payload), usage), delay
    return step


def content(text, usage=DEFAULT_USAGE):
    """An answer whose message content is exactly ``text`` (malformed or fenced)."""
    def step(request):
        return 200, {}, completion(request.get("model"), text, usage), 0.0
    return step


def raw(status, text, headers=None):
    """A response body that is not JSON at all."""
    def step(request):
        return status, dict(headers or {}), text.encode(), 0.0
    return step


def status(code, retry_after=None, message="scripted error", retry_after_ms=None):
    headers = {}
    if retry_after is not None:
        headers["Retry-After"] = str(retry_after)
    if retry_after_ms is not None:
        headers["retry-after-ms"] = str(retry_after_ms)

    def step(request):
        return code, headers, {"error": {"message": message, "type": "test", "code": code}}, 0.0
    return step


def slow(seconds, then):
    def step(request):
        code, headers, body, _ = then(request)
        return code, headers, body, seconds
    return step


def rejects_response_format(then):
    """Like servers without structured output: a request with
    ``response_format`` gets 400 naming it; one without gets ``then``."""
    def step(request):
        if "response_format" in request:
            return 400, {}, {"error": {"message": "Unrecognized request argument supplied: response_format",
                                       "type": "invalid_request_error", "param": "response_format"}}, 0.0
        return then(request)
    return step


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        server = self.server.owner
        length = int(self.headers.get("Content-Length") or 0)
        data = self.rfile.read(length)
        try:
            request = json.loads(data)
        except ValueError:
            request = {}
        server.record(self.path, {k.lower(): v for k, v in self.headers.items()}, request)
        if not self.path.rstrip("/").endswith("/chat/completions"):
            code, headers, body, delay = 404, {}, {"error": {"message": "no such route"}}, 0.0
        else:
            code, headers, body, delay = server.next_step(request.get("model"))(request)
        if delay:
            time.sleep(delay)
        payload = body if isinstance(body, bytes) else json.dumps(body).encode()
        try:
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass   # the client gave up (a timeout test)


class FakeLLM:
    def __init__(self):
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._httpd.daemon_threads = True
        self._httpd.owner = self
        self.port = self._httpd.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._lock = threading.Lock()
        self._scripts = {}
        self.log = []
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def start(self):
        self._thread.start()
        return self

    def stop(self):
        self._httpd.shutdown()
        self._httpd.server_close()

    def script(self, model, *steps):
        with self._lock:
            self._scripts[model] = list(steps)

    def next_step(self, model):
        with self._lock:
            steps = self._scripts.get(model)
            if not steps:
                return status(404, message=f"model {model!r} not scripted")
            return steps.pop(0) if len(steps) > 1 else steps[0]

    def record(self, path, headers, request):
        with self._lock:
            self.log.append({"path": path, "headers": headers, "body": request, "model": request.get("model"),
                             "at": time.monotonic()})

    def requests(self, model):
        with self._lock:
            return [entry for entry in self.log if entry["model"] == model]

    def count(self, model):
        return len(self.requests(model))
