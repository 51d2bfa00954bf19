"""A hand-written raw JSON-RPC stdio MCP server with selectable misbehaviour.

    python fault_stdio.py MODE

Modes: ok (fidelity: unknown keys, _meta, odd types, 3 honest pages),
noisy (non-JSON lines on stdout), fail-tools (an error answer to tools/list),
fail-prompts (-32603 to prompts/list), no-templates (-32601 to templates),
bare-init (initialize without instructions), home (writes to $HOME and its
cache folder, reports where), set-default (a default built from a set),
node-crash (a Node-style crash report on stderr), leak-long (a long secret
with inner whitespace on stderr, then a crash), setsid-child (a child in its
own session and a double-forked grandchild, both ignoring SIGTERM),
silent-discover (never answers server/discover), die-on-discover (exits on it),
silent-then-die (silent on server/discover, then dies on the next request, as
older Python SDK servers do),
hang, hang-stubborn (ignores SIGTERM and stdin EOF), exit-early,
partial-line, crash-mid-list, garbage, huge, flood, cycle, endless,
reject-prompts, init-error, echo-secret, leak-crash, old-only, echo-client (serverInfo
reports the clientInfo and protocolVersion it was sent), fixed-port (holds
127.0.0.1:$FIXED_PORT while it runs and exits at once when it is taken, as
servers with a fixed side port do).
With PIDFILE set, the server writes its pid and a child's pid there.
"""

import json
import os
import signal
import subprocess
import sys
import time

MODE = sys.argv[1] if __name__ == "__main__" else "ok"


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def answer(msg, result):
    send({"jsonrpc": "2.0", "id": msg["id"], "result": result})


def spawn_child():
    pidfile = os.environ.get("PIDFILE")
    if not pidfile:
        return
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
    with open(pidfile, "w") as fh:
        fh.write(f"{os.getpid()} {child.pid}\n")


TOOL_A = {
    "name": "alpha",
    "description": "First tool.",
    "inputSchema": {"type": "object", "properties": {"q": {"type": "string", "x-weird": [1, 2.5, None, True]}},
                    "additionalProperties": False},
    "annotations": {"readOnlyHint": True, "x-vendorHint": "kept"},
    "_meta": {"io.example/owner": "team-a", "nested": {"deep": [{"k": 1}]}},
    "x-unknown-top": {"keep": "me"},
    "icons": [],
    "title": None,
}
PAGES = {None: ([TOOL_A], "page-2"),
         "page-2": ([{"name": "beta", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "optional"},
                      "outputSchema": {"type": "object", "properties": {"n": {"type": "integer", "maximum": 18446744073709551615}}}}], "page-3"),
         "page-3": ([{"name": "gamma", "inputSchema": {"type": "object"}, "description": "ünïcode ✓ \u2028"}], None)}

CAPS = {"tools": {"listChanged": True}, "prompts": {}, "resources": {"subscribe": True}, "x-experimental": {"a": 1}}

INIT = {"protocolVersion": "2025-06-18", "capabilities": CAPS,
        "serverInfo": {"name": "fault", "version": "9.9.9", "x-build": 42},
        "instructions": "Be careful.", "_meta": {"io.example/init": True}, "x-top-level": [1, {"two": 2}]}


DISCOVERED = []  # silent-then-die: server/discover was asked on this start


def handle(msg):
    method = msg.get("method")
    if "id" not in msg:
        return
    if method == "server/discover" and MODE == "silent-discover":
        return  # as some older servers do with a request before initialize
    if MODE == "silent-then-die" and method == "server/discover":
        DISCOVERED.append(True)
        return
    if MODE == "silent-then-die" and DISCOVERED:
        sys.stderr.write("pydantic_core._pydantic_core.ValidationError: 24 validation errors for ClientRequest\n")
        sys.stderr.flush()
        os._exit(1)
    if method == "server/discover" and MODE == "die-on-discover":
        sys.stderr.write("TypeError: unknown method server/discover\n")
        sys.stderr.flush()
        os._exit(1)
    if method == "tools/list" and MODE == "fail-tools":
        send({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32603, "message": "Internal error: no db"}})
        return
    if method == "initialize":
        if MODE == "old-only" and msg["params"]["protocolVersion"] != "2025-03-26":
            send({"jsonrpc": "2.0", "id": msg["id"], "error": {
                "code": -32602, "message": "Unsupported protocol version",
                "data": {"supported": ["2024-11-05", "2025-03-26"], "requested": msg["params"]["protocolVersion"]}}})
            return
        if MODE == "init-error":
            send({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32602, "message": "Unsupported protocol version"}})
            return
        if MODE == "leak-crash":
            sys.stderr.write(f"auth failed with token={os.environ.get('FAULT_TOKEN')}\n")
            sys.stderr.flush()
            os._exit(2)
        if MODE == "noisy":  # banners and log lines on stdout, as popular servers print
            sys.stdout.write("Transport: stdio\nLoading configuration from .env file...\n")
            sys.stdout.flush()
        if MODE == "garbage":  # past the crawler's bound of skipped lines
            sys.stdout.write("Server starting... hello there\n" * 1500)
            sys.stdout.flush()
            return
        if MODE in ("hang", "hang-stubborn"):
            time.sleep(3600)
        if MODE == "node-crash":
            sys.stderr.write(NODE_CRASH)
            sys.stderr.flush()
            os._exit(1)
        if MODE == "leak-long":
            token = os.environ.get("FAULT_TOKEN", "")
            sys.stderr.write("x" * 150 + f" auth failed: token={token}\n" + "y" * int(os.environ.get("FILL", "0")) + "\n")
            sys.stderr.flush()
            os._exit(2)
        result = dict(INIT)
        if MODE == "bare-init":
            result.pop("instructions")
        if MODE == "home":
            home = os.path.expanduser("~")
            os.makedirs(os.path.join(home, ".fault"), exist_ok=True)
            with open(os.path.join(home, ".fault", "state"), "w") as fh:
                fh.write("written by the server")
            cache = os.environ.get("XDG_CACHE_HOME", os.path.join(home, ".cache"))
            os.makedirs(os.path.join(cache, "fault"), exist_ok=True)
            result["serverInfo"] = {"name": "fault", "version": "1.0.0", "home": home, "cache": cache}
        if MODE == "echo-secret":
            token = os.environ.get("FAULT_TOKEN", "")
            result["serverInfo"] = {"name": "fault", "version": "1.0.0", "token": token,
                                    "tokenOk": token == "s3cr3t-value-123"}
            sys.stderr.write(f"using token {token}\n")
            sys.stderr.flush()
        if MODE == "echo-client":
            result["protocolVersion"] = msg["params"]["protocolVersion"]
            result["serverInfo"] = {"name": "fault", "version": "1.0.0",
                                    "seenClientInfo": msg["params"].get("clientInfo"),
                                    "seenProtocolVersion": msg["params"]["protocolVersion"]}
        if MODE == "flood":
            answer(msg, result)
            line = json.dumps({"jsonrpc": "2.0", "method": "notifications/message",
                               "params": {"level": "info", "data": "x" * 1000}}) + "\n"
            while True:
                sys.stdout.write(line)
        answer(msg, result)
        return
    if method == "tools/list":
        cursor = (msg.get("params") or {}).get("cursor")
        if MODE == "noisy":
            sys.stdout.write("Successfully initialized Chroma client\n42\n")
            sys.stdout.flush()
        if MODE == "ok":
            # a log notification and a server->client ping before the answer
            send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "hi"}})
            sys.stdout.write("\n")
            send({"jsonrpc": "2.0", "id": "srv-1", "method": "ping"})
            tools, nxt = PAGES[cursor]
            result = {"tools": tools, "_meta": {"page": cursor}}
            if nxt:
                result["nextCursor"] = nxt
            answer(msg, result)
        elif MODE == "set-default":
            order = list({"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"})
            answer(msg, {"tools": [{"name": "pick", "inputSchema": {"type": "object", "properties": {
                "fields": {"type": "array", "default": order}}}}]})
        elif MODE == "crash-mid-list":
            if cursor is None:
                answer(msg, {"tools": [TOOL_A], "nextCursor": "2"})
            else:
                sys.stderr.write("fatal: out of cheese\n")
                sys.stderr.flush()
                os._exit(3)
        elif MODE == "huge":
            answer(msg, {"tools": [{"name": "big", "description": "d" * (10 * 1024 * 1024),
                                    "inputSchema": {"type": "object"}}]})
        elif MODE == "cycle":
            nxt = {None: "a", "a": "b", "b": "a"}[cursor]
            answer(msg, {"tools": [{"name": f"t-{cursor}", "inputSchema": {"type": "object"}}], "nextCursor": nxt})
        elif MODE == "endless":
            n = int(cursor or 0)
            answer(msg, {"tools": [{"name": f"t{n}", "inputSchema": {"type": "object"}}], "nextCursor": str(n + 1)})
        else:
            answer(msg, {"tools": [TOOL_A]})
        return
    if method == "prompts/list":
        if MODE == "reject-prompts":
            send({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "Method not found"}})
        elif MODE == "fail-prompts":
            send({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32603, "message": "Internal error"}})
        else:
            answer(msg, {"prompts": [{"name": "p1", "arguments": [{"name": "a", "required": True, "x-extra": 1}]}]})
        return
    if method == "resources/list":
        answer(msg, {"resources": [{"uri": "file:///x", "name": "x", "_meta": {"size": 3}}]})
        return
    if method == "resources/templates/list":
        if MODE == "no-templates":
            send({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "Method not found"}})
            return
        answer(msg, {"resourceTemplates": [{"uriTemplate": "file:///{p}", "name": "tpl"}]})
        return
    send({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "Method not found"}})


NODE_CRASH = """node:internal/modules/esm/resolve:873
  throw new ERR_MODULE_NOT_FOUND(packageName, fileURLToPath(base), null);
        ^

Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'pkce-challenge' imported from /srv/node_modules/sdk/dist/auth.js
    at packageResolve (node:internal/modules/esm/resolve:873:9)
    at moduleResolve (node:internal/modules/esm/resolve:946:18) {
  code: 'ERR_MODULE_NOT_FOUND'
}

Node.js v20.20.2
+-----------------------------------------+
"""


def escape_children():
    """A child in its own session and a double-forked grandchild (both ignore SIGTERM)."""
    pidfile = os.environ["PIDFILE"]
    code = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(300)"
    child = subprocess.Popen([sys.executable, "-c", code], start_new_session=True,
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    read, write = os.pipe()
    first = os.fork()
    if first == 0:  # double fork: the grandchild is nobody's child but init's
        os.setsid()
        pid = os.fork()
        if pid:
            os.write(write, str(pid).encode())
            os._exit(0)
        os.execv(sys.executable, [sys.executable, "-c", code])
    os.close(write)
    grandchild = int(os.read(read, 32).decode())
    os.waitpid(first, 0)
    with open(pidfile, "w") as fh:
        fh.write(f"{os.getpid()} {child.pid} {grandchild}\n")


def main():
    if MODE == "setsid-child" or os.environ.get("ESCAPE"):
        escape_children()
    else:
        spawn_child()
    if MODE == "hang-stubborn":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if MODE == "fixed-port":
        import socket

        held = socket.socket()
        try:
            held.bind(("127.0.0.1", int(os.environ["FIXED_PORT"])))
        except OSError as exc:
            sys.stderr.write(f"Error: listen EADDRINUSE ({exc})\n")
            sys.exit(1)
        held.listen()
        time.sleep(0.5)  # long enough for a second capture started beside it to collide
    if MODE == "exit-early":
        sys.stderr.write("cannot find config\n")
        sys.exit(1)
    if MODE == "partial-line":
        sys.stdin.readline()
        sys.stdout.write('{"jsonrpc": "2.0", "id": 1, "resu')
        sys.stdout.flush()
        os._exit(0)
    for line in sys.stdin:
        if line.strip():
            handle(json.loads(line))
    if MODE == "hang-stubborn":
        time.sleep(3600)


if __name__ == "__main__":
    main()
