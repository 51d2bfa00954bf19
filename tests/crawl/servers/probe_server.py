"""A raw MCP server over stdio whose tools misbehave when called.

    python probe_server.py MARKER_FILE

Tools: ``ok`` (read-only, answers), ``hang`` (read-only, never answers),
``huge`` (read-only, answers 10 MB), ``die`` (read-only, exits mid-call),
``lookup`` (read-only, requires ``id``), ``wipe`` (destructive: writes
MARKER_FILE when called, so a test can prove it never was).
"""

import json
import sys

RO = {"readOnlyHint": True}
TOOLS = [  # the well-behaved first: a server that dies takes later probes with it
    {"name": "ok", "inputSchema": {"type": "object"}, "annotations": RO},
    {"name": "lookup", "inputSchema": {"type": "object", "properties": {"id": {"type": "integer", "minimum": 3},
                                                                         "verbose": {"type": "boolean"}},
                                       "required": ["id"]}, "annotations": RO},
    {"name": "wipe", "inputSchema": {"type": "object"}, "annotations": {"destructiveHint": True}},
    {"name": "hang", "inputSchema": {"type": "object"}, "annotations": RO},
    {"name": "huge", "inputSchema": {"type": "object"}, "annotations": RO},
    {"name": "die", "inputSchema": {"type": "object"}, "annotations": RO},
]


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main(marker: str) -> int:
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message:
            continue
        method, rid = message.get("method"), message["id"]
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": rid, "result": {
                "protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                "serverInfo": {"name": "probe-server", "version": "1.0.0"}}})
        elif method == "tools/list":
            send({"jsonrpc": "2.0", "id": rid, "result": {"tools": TOOLS}})
        elif method == "tools/call":
            name = message["params"]["name"]
            arguments = message["params"].get("arguments", {})
            if name == "hang":
                continue
            if name == "die":
                return 3
            if name == "wipe":
                with open(marker, "w") as handle:
                    handle.write("called")
            text = "x" * (10 * 1024 * 1024) if name == "huge" else json.dumps({"tool": name, "arguments": arguments})
            send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": text}]}})
        else:
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "method not found"}})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
