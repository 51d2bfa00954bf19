"""A raw MCP server over stdio whose tools depend on its configuration.

    python configured_server.py VERSION

It always advertises the tools capability. Without ``SERVICE_URL`` in its
environment it lists no tools and says why on stderr (a server started
without the configuration it lists its tools for). With it, it lists
``search`` and ``fetch`` (from 1.1.0 ``search`` takes an optional
``limit``); with ``ADMIN_TOOLS=1`` too it also lists ``export`` and
``purge``.
"""

import json
import os
import sys


def tools(version: str) -> list:
    if not os.environ.get("SERVICE_URL"):
        return []
    search = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
    if version != "1.0.0":
        search["properties"]["limit"] = {"type": "integer"}
    listed = [{"name": "search", "description": "Search the service.", "inputSchema": search},
              {"name": "fetch", "description": "Fetch one item.",
               "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}}]
    if os.environ.get("ADMIN_TOOLS") == "1":
        listed += [{"name": name, "description": f"{name.capitalize()} everything.",
                    "inputSchema": {"type": "object", "properties": {}}} for name in ("export", "purge")]
    return listed


def main(version: str) -> int:
    if not os.environ.get("SERVICE_URL"):
        print("configured_server: SERVICE_URL is not set, so no service is configured and no tool is listed",
              file=sys.stderr, flush=True)
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message:
            continue  # notifications
        if message.get("method") == "initialize":
            result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                      "serverInfo": {"name": "configured", "version": version}}
        elif message.get("method") == "tools/list":
            result = {"tools": tools(version)}
        else:
            print(json.dumps({"jsonrpc": "2.0", "id": message["id"],
                              "error": {"code": -32601, "message": "method not found"}}), flush=True)
            continue
        print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
