"""A raw MCP server over stdio that replays a stored manifest.

    python replay_server.py SERVER VERSION

Answers ``initialize`` and ``tools/list`` from ``manifests/SERVER/VERSION.json``.
A client that calls itself ``mcpdelta-survey-second-pass`` gets
``VERSION.second-pass.json`` instead when that file exists: output that
changes between two captures of one release. A version with no manifest
exits at once, as a release that cannot start.
"""

import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent / "manifests"


def main(server: str, version: str) -> int:
    path = HERE / server / f"{version}.json"
    if not path.exists():
        print(f"{server} {version}: cannot start (no such release)", file=sys.stderr)
        return 3
    manifest = json.loads(path.read_text())
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message:
            continue  # notifications
        if message.get("method") == "initialize":
            client = message["params"].get("clientInfo", {}).get("name")
            second = HERE / server / f"{version}.second-pass.json"
            if client == "mcpdelta-survey-second-pass" and second.exists():
                manifest = json.loads(second.read_text())
            result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                      "serverInfo": manifest["serverInfo"]}
        elif message.get("method") == "tools/list":
            result = {"tools": manifest["tools"]}
        else:
            answer = {"jsonrpc": "2.0", "id": message["id"],
                      "error": {"code": -32601, "message": "method not found"}}
            print(json.dumps(answer), flush=True)
            continue
        print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
