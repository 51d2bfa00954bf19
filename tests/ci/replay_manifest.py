"""A raw MCP server over stdio that serves one stored manifest whole.

    python replay_manifest.py MANIFEST.json

Answers ``initialize`` (protocol version, capabilities, server info and
instructions from the manifest) and the four lists, each in one page; any
other request gets -32601.
"""

import json
import sys

LISTS = {"tools/list": "tools", "prompts/list": "prompts", "resources/list": "resources",
         "resources/templates/list": "resourceTemplates"}


def main(path: str) -> int:
    with open(path, encoding="utf-8") as handle:
        manifest = json.load(handle)
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message:
            continue  # notifications
        method = message.get("method")
        if method == "initialize":
            result = {key: manifest[key] for key in ("protocolVersion", "capabilities", "serverInfo",
                                                     "instructions") if key in manifest}
        elif method in LISTS and LISTS[method] in manifest:
            result = {LISTS[method]: manifest[LISTS[method]]}
        else:
            print(json.dumps({"jsonrpc": "2.0", "id": message["id"],
                              "error": {"code": -32601, "message": "method not found"}}), flush=True)
            continue
        print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
