"""A registry stand-in on 127.0.0.1 for look-up benchmarks: N synthetic
packages, half npm (``GET /<name>``: a packument's ``time``) and half PyPI
(``GET /pypi/<name>/json``), each with VERSIONS releases, answered as the
public registries answer: an ``ETag`` and ``Last-Modified`` on every 200,
304 Not Modified to a request that names the current ETag. HTTP/1.1 with
keep-alive, one thread per connection.

    python bench/servers/registry_standin.py N VERSIONS PORTFILE

writes its port to PORTFILE once it listens and serves until killed; the
names are ``bench-npm-<i>`` and ``bench-pypi-<i>``, release ``1.<j>.0``
published on day j of 2024 (``packages(N, VERSIONS)`` lists them).
"""

import hashlib
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LAST_MODIFIED = "Mon, 01 Jan 2024 00:00:00 GMT"


def packages(n: int, versions: int) -> list[tuple[str, str, list[str]]]:
    """[(registry, name, its versions)]: the population the stand-in serves."""
    listed = [f"1.{j}.0" for j in range(versions)]
    return [("npm", f"bench-npm-{i}", listed) for i in range(n // 2)] + \
        [("pypi", f"bench-pypi-{i}", listed) for i in range(n - n // 2)]


def when(j: int) -> str:
    return f"2024-{1 + j // 28:02d}-{1 + j % 28:02d}T00:00:00.000Z"


def bodies(n: int, versions: int) -> dict[str, bytes]:
    out = {}
    for registry, name, listed in packages(n, versions):
        if registry == "npm":
            doc = {"name": name, "dist-tags": {"latest": listed[-1]},
                   "versions": {v: {"name": name, "version": v} for v in listed},
                   "time": {"created": when(0), "modified": when(len(listed) - 1),
                            **{v: when(j) for j, v in enumerate(listed)}}}
            out[f"/{name}"] = json.dumps(doc).encode()
        else:
            doc = {"info": {"name": name}, "releases": {
                v: [{"upload_time_iso_8601": when(j).replace(".000Z", "Z"), "yanked": False}]
                for j, v in enumerate(listed)}}
            out[f"/pypi/{name}/json"] = json.dumps(doc).encode()
    return out


def serve(n: int, versions: int, portfile: str) -> None:
    answers = {path: (body, f'"{hashlib.sha256(body).hexdigest()[:16]}"') for path, body in bodies(n, versions).items()}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_GET(self):
            found = answers.get(self.path.split("?")[0].replace("%2F", "/").replace("%2f", "/"))
            if found is None:
                code, body, etag = 404, b"{}", None
            elif self.headers.get("If-None-Match") == found[1]:
                code, body, etag = 304, b"", found[1]
            else:
                code, (body, etag) = 200, found
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            if etag:
                self.send_header("ETag", etag)
                self.send_header("Last-Modified", LAST_MODIFIED)
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    with open(portfile, "w") as fh:
        fh.write(str(server.server_port))
    server.serve_forever()


if __name__ == "__main__":
    serve(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3])
