"""A PyPI stand-in on 127.0.0.1: hand-built wheels behind the JSON simple API
(PEP 691, with PEP 700 upload times, so pip's --uploaded-prior-to and uv's
--exclude-newer work, and PEP 658 metadata files, as PyPI serves them) and
the ``/pypi/<name>/json`` API the crawler lists versions from.

    index = LocalIndex(); index.add("pkg", "1.0.0", "2025-01-01T00:00:00Z", server=True, ...)
    index.start(); ... index.url ...; index.stop()

A package with ``server=True`` carries a console script of its own name that
runs a minimal raw JSON-RPC MCP server reporting its interpreter version
(and leaving an empty ``server-was-here.log`` in its working folder).
"""

import base64
import hashlib
import io
import json
import re
import zipfile

from tests.crawl.servers.loopback import LoopbackRegistry

SERVER_MODULE = '''
import json, sys

def main():
    open("server-was-here.log", "a").close()  # a file in its working folder, as many servers write
    for line in sys.stdin:
        if not line.strip():
            continue
        msg = json.loads(line)
        if "id" not in msg:
            continue
        if msg["method"] == "initialize":
            result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                      "serverInfo": {"name": NAME, "version": VERSION,
                                     "python": "%d.%d" % sys.version_info[:2]}}
        elif msg["method"] == "tools/list":
            result = {"tools": [{"name": "hello", "inputSchema": {"type": "object"}}]}
        else:
            print(json.dumps({"jsonrpc": "2.0", "id": msg["id"],
                              "error": {"code": -32601, "message": "Method not found"}}), flush=True)
            continue
        print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}), flush=True)
'''


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def build_wheel(name: str, version: str, requires_python=None, requires=(), server=False,
                entry_points_padding: int = 0) -> tuple[str, bytes]:
    dist, mod = normalize(name).replace("-", "_"), normalize(name).replace("-", "_")
    info = f"{dist}-{version}.dist-info"
    meta = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    if requires_python:
        meta += f"Requires-Python: {requires_python}\n"
    meta += "".join(f"Requires-Dist: {r}\n" for r in requires)
    files = {f"{mod}.py": (f"NAME = {name!r}\nVERSION = {version!r}\n" + (SERVER_MODULE if server else "")),
             f"{info}/METADATA": meta,
             f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: mcpdelta-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    if server:
        files[f"{info}/entry_points.txt"] = f"[console_scripts]\n{name} = {mod}:main\n" + "#" * entry_points_padding
    record = []
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for path, text in files.items():
            data = text.encode()
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.append(f"{path},sha256={digest},{len(data)}")
            zf.writestr(path, data)
        record.append(f"{info}/RECORD,,")
        zf.writestr(f"{info}/RECORD", "\n".join(record) + "\n")
    return f"{dist}-{version}-py3-none-any.whl", buf.getvalue()


class LocalIndex(LoopbackRegistry):
    def __init__(self):
        self.packages: dict[str, list[dict]] = {}
        self.blobs: dict[str, bytes] = {}
        self._server = None

    def add(self, name, version, uploaded, requires_python=None, requires=(), server=False,
            entry_points_padding: int = 0) -> None:
        filename, data = build_wheel(name, version, requires_python, requires, server, entry_points_padding)
        self.blobs[filename] = data
        with zipfile.ZipFile(io.BytesIO(data)) as zf:  # PEP 658: the wheel's METADATA beside it
            metadata = zf.read(next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA")))
        self.blobs[filename + ".metadata"] = metadata
        self.packages.setdefault(normalize(name), []).append({
            "name": name, "version": version, "filename": filename, "uploaded": uploaded,
            "requires_python": requires_python, "sha256": hashlib.sha256(data).hexdigest()})

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def answer(self, path: str) -> tuple[int, bytes, str]:
        parts = [p for p in path.split("/") if p]
        if len(parts) == 2 and parts[0] == "simple":
            files = self.packages.get(normalize(parts[1]))
            if files is None:
                return 404, b"{}", "application/json"
            body = {"meta": {"api-version": "1.1"}, "name": normalize(parts[1]),
                    "versions": sorted({f["version"] for f in files}),
                    "files": [{"filename": f["filename"], "url": f"/files/{f['filename']}",
                               "core-metadata": {"sha256": hashlib.sha256(self.blobs[f["filename"] + ".metadata"])
                                                 .hexdigest()},
                               "hashes": {"sha256": f["sha256"]}, "requires-python": f["requires_python"],
                               "upload-time": f["uploaded"]} for f in files]}
            return 200, json.dumps(body).encode(), "application/vnd.pypi.simple.v1+json"
        if len(parts) == 3 and parts[0] == "pypi" and parts[2] == "json":
            files = self.packages.get(normalize(parts[1]))
            if files is None:
                return 404, b"{}", "application/json"
            releases = {}
            for f in files:
                releases.setdefault(f["version"], []).append(
                    {"upload_time_iso_8601": f["uploaded"], "yanked": False,
                     "requires_python": f["requires_python"]})
            return 200, json.dumps({"releases": releases}).encode(), "application/json"
        if len(parts) == 2 and parts[0] == "files" and parts[1] in self.blobs:
            return 200, self.blobs[parts[1]], "application/octet-stream"
        return 404, b"{}", "application/json"
