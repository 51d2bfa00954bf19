"""Shared command line of the demo servers (not an MCP server itself).

Every demo server is started as ``python <script> --version X`` (stdio) or
``python <script> --version X --transport streamable-http --port N``.
The version picks which "published release" of the server is served.
``--era legacy`` serves the ``initialize`` handshake only (``server/discover``
unknown, as before the 2026-07-28 revision); the default serves both.
"""

import argparse

try:  # mcp 2.x
    from mcp.server.mcpserver import MCPServer
except ImportError:  # pragma: no cover - mcp 1.x
    from mcp.server.fastmcp import FastMCP as MCPServer  # type: ignore[no-redef]


def parse_args(versions):
    parser = argparse.ArgumentParser()
    parser.add_argument("--version", required=True, choices=versions)
    parser.add_argument("--transport", default="stdio", choices=["stdio", "streamable-http", "sse"])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--era", default="dual", choices=["dual", "legacy"])
    return parser.parse_args()


def vt(version: str) -> tuple:
    return tuple(int(p) for p in version.split("."))


def serve(server, args) -> None:
    if getattr(args, "era", "dual") == "legacy":
        # as a server from before 2026-07-28: every connection opens in the
        # handshake era and server/discover is an unknown method
        try:
            import mcp.server.runner as runner

            runner._has_modern_envelope = lambda params: False
        except (ImportError, AttributeError):  # pragma: no cover - mcp 1.x has no such era
            pass
        lowlevel = getattr(server, "_lowlevel_server", None) or getattr(server, "_mcp_server", None)
        getattr(lowlevel, "_request_handlers", {}).pop("server/discover", None)
    if args.transport == "stdio":
        server.run("stdio")
    else:
        server.run(args.transport, host=args.host, port=args.port)
