"""A package-registry stand-in on 127.0.0.1: the HTTP plumbing the local
PyPI index and the local npm registry share. A subclass answers
``answer(path) -> (status, body, content type)`` for each GET.

Every 200 carries an ``ETag`` (a digest of the body) and a fixed
``Last-Modified``; a request whose ``If-None-Match`` names the current ETag
gets 304 Not Modified, as the public registries answer. It answers as an
HTTP proxy too (a request naming a whole URL gets that URL's path). A
package file is immutable, as on the public registries; a document listing
versions is ``no-cache`` (they let a client keep one for minutes): a client
that asks again is seen asking. ``requests`` logs (path, status) of each
GET."""

import hashlib
import threading
from urllib.parse import urlsplit
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LAST_MODIFIED = "Wed, 01 Jan 2025 00:00:00 GMT"


class LoopbackRegistry:
    def answer(self, path: str) -> tuple[int, bytes, str]:  # pragma: no cover - each registry's own
        raise NotImplementedError

    @property
    def port(self) -> int:
        return self._server.server_port

    def start(self):
        registry = self
        self.requests: list[tuple[str, int]] = []

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                path = urlsplit(self.path).path  # a proxy's request names the whole URL
                code, body, ctype = registry.answer(path)
                etag = f'"{hashlib.sha256(body).hexdigest()[:16]}"'
                if code == 200 and self.headers.get("If-None-Match") == etag:
                    code, body = 304, b""
                registry.requests.append((path, code))
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                if code in (200, 304):
                    self.send_header("ETag", etag)
                    self.send_header("Last-Modified", LAST_MODIFIED)
                    # a package file never changes; a document listing versions may
                    immutable = ctype == "application/octet-stream"
                    self.send_header("Cache-Control", "max-age=31536000, immutable" if immutable else "no-cache")
                self.end_headers()
                self.wfile.write(body)

            def do_HEAD(self):
                # uv asks first whether a wheel can be read in ranges: no (it
                # then downloads it whole, one GET, which is what is logged)
                self.send_response(200)
                self.send_header("Content-Type", "application/octet-stream")
                self.end_headers()

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
