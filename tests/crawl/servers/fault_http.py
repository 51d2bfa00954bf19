"""A hand-written raw MCP server over HTTP (Streamable HTTP and legacy SSE).

    python fault_http.py      -> prints "PORT <n>" and serves on 127.0.0.1

POST /mcp/json   answers as application/json (session id, protocol header recorded)
POST /mcp/sse    answers as a text/event-stream
POST /mcp/flaky?key=K   HTTP 500 for K's first request, then like /mcp/json
POST /mcp/busy?key=K    HTTP 429 Retry-After: 1 for K's first request, then like /mcp/json
POST /mcp/auth   401 unless "Authorization: Bearer s3cr3t-value-123"
POST /mcp/gone   404
GET  /sse, POST /messages?session=S   the 2024-11-05 HTTP+SSE transport
GET  /stats?key=K   what the server saw for key K (JSON)
"""

import json
import queue
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

TOKEN = "s3cr3t-value-123"
LOCK = threading.Lock()
STATS: dict = {}
SEEN: dict = {}
SSE_QUEUES: dict = {}
COUNTER = [0]

TOOLS = [{"name": "remote_tool", "description": "A remote tool.", "inputSchema": {"type": "object"},
          "_meta": {"io.example/remote": True}, "x-odd": [None, 1.5]}]


def stats(key):
    return STATS.setdefault(key, {"requests": 0, "protocol_headers": [], "deleted": [], "sessions": []})


def mcp_answer(msg, protocol="2025-06-18"):
    method = msg.get("method")
    if "id" not in msg:
        return None
    if method == "initialize":
        result = {"protocolVersion": protocol, "capabilities": {"tools": {}},
                  "serverInfo": {"name": "http-fault", "version": "3.1.4"}}
    elif method == "tools/list":
        result = {"tools": TOOLS}
    else:
        return {"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "no"}}
    return {"jsonrpc": "2.0", "id": msg["id"], "result": result}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _send(self, code, body=b"", ctype="application/json", headers=None):
        self.send_response(code)
        if body or code not in (202, 204):
            self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def _body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return json.loads(self.rfile.read(n))

    def do_GET(self):
        url = urlparse(self.path)
        qs = parse_qs(url.query)
        if url.path == "/stats":
            with LOCK:
                body = json.dumps(stats(qs.get("key", [""])[0])).encode()
            return self._send(200, body)
        if url.path == "/sse":
            with LOCK:
                COUNTER[0] += 1
                sid = f"legacy-{COUNTER[0]}"
                q = SSE_QUEUES[sid] = queue.Queue()
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            self.wfile.write(f": hello\n\nevent: endpoint\ndata: /messages?session={sid}\n\n".encode())
            self.wfile.flush()
            try:
                while True:
                    try:
                        item = q.get(timeout=30)
                    except queue.Empty:
                        return
                    self.wfile.write(f"event: message\ndata: {json.dumps(item)}\n\n".encode())
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                return
        return self._send(404, b"{}")

    def do_DELETE(self):
        url = urlparse(self.path)
        key = parse_qs(url.query).get("key", [""])[0]
        with LOCK:
            stats(key)["deleted"].append(self.headers.get("Mcp-Session-Id"))
        self._send(200, b"")

    def do_POST(self):
        url = urlparse(self.path)
        qs = parse_qs(url.query)
        key = qs.get("key", [""])[0]
        if url.path == "/messages":
            q = SSE_QUEUES.get(qs.get("session", [""])[0])
            if q is None:
                return self._send(404, b"{}")
            reply = mcp_answer(self._body(), protocol="2024-11-05")
            self._send(202, b"")
            if reply:
                q.put(reply)
            return
        msg = self._body()
        with LOCK:
            st = stats(key)
            st["requests"] += 1
            first = SEEN.setdefault((url.path, key), 0) == 0
            SEEN[(url.path, key)] += 1
        if url.path == "/mcp/gone":
            return self._send(404, b'{"error": "not here"}')
        if url.path == "/mcp/flaky" and first:
            return self._send(500, b'{"error": "warming up"}')
        if url.path == "/mcp/busy" and first:
            return self._send(429, b'{"error": "slow down"}', headers={"Retry-After": "1"})
        if url.path == "/mcp/auth" and self.headers.get("Authorization") != f"Bearer {TOKEN}":
            return self._send(401, b'{"error": "unauthorized"}',
                              headers={"WWW-Authenticate": 'Bearer resource_metadata="http://x/.well-known"'})
        headers = {}
        if msg.get("method") == "initialize":
            with LOCK:
                COUNTER[0] += 1
                sid = f"sess-{COUNTER[0]}"
                st["sessions"].append(sid)
            headers["Mcp-Session-Id"] = sid
        else:
            with LOCK:
                if self.headers.get("Mcp-Session-Id") not in st["sessions"]:
                    return self._send(400, b'{"error": "no session"}')
                st["protocol_headers"].append(self.headers.get("MCP-Protocol-Version"))
        reply = mcp_answer(msg)
        if reply is None:
            return self._send(202, b"", headers=headers)
        if url.path == "/mcp/sse":
            note = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x"}}
            body = (f"event: message\ndata: {json.dumps(note)}\n\n"
                    f"id: 1\nevent: message\ndata: {json.dumps(reply)}\n\n").encode()
            return self._send(200, body, ctype="text/event-stream", headers=headers)
        self._send(200, json.dumps(reply).encode(), headers=headers)


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
