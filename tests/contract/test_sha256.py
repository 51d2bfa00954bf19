"""Contract digests hash with the interpreter's built-in SHA-256 until a
process has hashed 512 KB, then with OpenSSL's (hashlib): the same digests
either way, and a single diff never loads OpenSSL."""

import hashlib
import json
import subprocess
import sys

PROBE = r"""
import json, sys
from mcpdelta.contract import SCHEME_V2, jcs, tool_digest
from mcpdelta.sha256 import BUILTIN_BYTES
tool = {"name": "t", "description": "d" * 1000, "inputSchema": {"type": "object"}}
out = {"size": len(SCHEME_V2.encode() + b"\x00" + jcs(tool)), "digests": []}
for _ in range(3):
    out["digests"].append(tool_digest(tool))
out["after_few"] = "hashlib" in sys.modules
while "hashlib" not in sys.modules:
    out["digests"].append(tool_digest(tool))
out["count_at_switch"] = len(out["digests"])
out["digests"].append(tool_digest(tool))
out["limit"] = BUILTIN_BYTES
print(json.dumps(out))
"""


def test_the_same_digest_before_and_after_openssl_takes_over():
    run = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["after_few"] is False  # a few digests: no OpenSSL
    # it took over once the bytes hashed passed the limit, not before
    assert (out["count_at_switch"] - 1) * out["size"] <= out["limit"] < out["count_at_switch"] * out["size"]
    from mcpdelta.contract import SCHEME_V2, jcs

    tool = {"name": "t", "description": "d" * 1000, "inputSchema": {"type": "object"}}
    expected = f"{SCHEME_V2}:" + hashlib.sha256(SCHEME_V2.encode() + b"\x00" + jcs(tool)).hexdigest()
    assert set(out["digests"]) == {expected}


def test_a_diff_never_loads_openssl(tmp_path):
    old = {"tools": [{"name": "a", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}}]}
    new = {"tools": [{"name": "a", "inputSchema": {"type": "object", "properties": {}}}]}
    (tmp_path / "old.json").write_text(json.dumps(old))
    (tmp_path / "new.json").write_text(json.dumps(new))
    probe = ("import sys\nfrom mcpdelta.cli import main\n"
             "try:\n    main(['diff', 'old.json', 'new.json', '--format', 'json'])\n"
             "except SystemExit:\n    pass\n"
             "print('LOADED' if 'hashlib' in sys.modules else 'NOT LOADED', file=sys.stderr)")
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         cwd=tmp_path, timeout=60)
    assert '"digest": "mcp-contract-v2-sha256:' in run.stdout
    assert run.stderr.strip().endswith("NOT LOADED"), run.stderr
