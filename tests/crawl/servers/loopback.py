"""A package-registry stand-in on 127.0.0.1: the HTTP plumbing the local
PyPI index and the local npm registry share. A subclass answers
``answer(path) -> (status, body, content type)`` for each GET."""

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class LoopbackRegistry:
    def answer(self, path: str) -> tuple[int, bytes, str]:  # pragma: no cover - each registry's own
        raise NotImplementedError

    @property
    def port(self) -> int:
        return self._server.server_port

    def start(self):
        registry = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self, head=False):
                code, body, ctype = registry.answer(self.path.split("?")[0])
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if not head:
                    self.wfile.write(body)

            def do_HEAD(self):  # uv asks first whether a wheel can be read in ranges
                self.do_GET(head=True)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
