"""A minimal raw JSON-RPC stdio MCP server for the crawl benchmark: starts in
tens of milliseconds, answers initialize and one page of ten tools."""

import json
import sys

TOOLS = [{"name": f"tool_{i}", "description": f"Demo tool number {i}.",
          "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}}
         for i in range(10)]

for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    if msg["method"] == "initialize":
        result = {"protocolVersion": msg["params"]["protocolVersion"],
                  "capabilities": {"tools": {}}, "serverInfo": {"name": "raw-demo", "version": "1.0.0"}}
    elif msg["method"] == "tools/list":
        result = {"tools": TOOLS}
    else:
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"],
                                     "error": {"code": -32601, "message": "not found"}}) + "\n")
        sys.stdout.flush()
        continue
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}) + "\n")
    sys.stdout.flush()
