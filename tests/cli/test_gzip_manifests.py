"""Every command that reads a manifest reads a ``.json.gz`` capture as
``ingest`` does: decompressed whole under the manifest's byte bound, a
gzip bomb refused in one line without holding what it expands to."""

import gzip
import json
import subprocess
import sys
import zlib

from tests.conftest import ROOT

CAPTURES = ROOT / "data" / "ecosystem" / "captures" / "pagerduty-mcp"
OLD, NEW = CAPTURES / "0.14.0.json.gz", CAPTURES / "1.0.0.json.gz"


def _plain(tmp_path, path):
    """The capture decompressed by the standard library, as a plain .json file."""
    target = tmp_path / path.name.removesuffix(".gz")
    target.write_bytes(gzip.decompress(path.read_bytes()))
    return target


def test_diff_reads_two_committed_json_gz_captures(tmp_path, mcpdelta):
    got = mcpdelta("diff", OLD, NEW, "--format", "json")
    want = mcpdelta("diff", _plain(tmp_path, OLD), _plain(tmp_path, NEW), "--format", "json")
    assert got.returncode == want.returncode and got.returncode in (0, 1), got.stderr
    changes = json.loads(got.stdout)["changes"]
    assert changes and changes == json.loads(want.stdout)["changes"]


def test_digest_and_lock_read_a_json_gz_capture(tmp_path, mcpdelta):
    plain = _plain(tmp_path, NEW)
    for command in (["digest"], ["lock", "-o", "-"]):
        got, want = mcpdelta(*command, NEW), mcpdelta(*command, plain)
        assert got.returncode == 0, got.stderr
        assert got.stdout == want.stdout and got.stdout.strip()


def _bomb(path, expanded: int) -> None:
    """A gzip file of ``expanded`` bytes of a JSON string, about a thousandth of that on disk."""
    pack = zlib.compressobj(9, zlib.DEFLATED, 31)
    chunk = b" " * (1 << 20)
    parts = [pack.compress(b'{"tools": [], "x": "')]
    parts += [pack.compress(chunk) for _ in range(expanded >> 20)]
    parts.append(pack.compress(b'"}') + pack.flush())
    path.write_bytes(b"".join(parts))


# Runs the CLI, then writes the process's peak resident size (VmHWM, in kB) to the
# file named by argv[1]. VmHWM is the exec'd image's own peak; wait4's ru_maxrss is
# not, as Linux carries the forking pytest worker's peak across exec.
# mcpdelta's main, then this process's peak memory (the console entry would
# end a diff before a finally here could run: mcpdelta.cli.console)
_PEAK = """
import sys
from mcpdelta.cli import main
report = sys.argv.pop(1)
try:
    code = main(sys.argv[1:])
finally:
    status = open("/proc/self/status").read()
    open(report, "w").write(status.split("VmHWM:")[1].split()[0])
sys.exit(code)
"""


def test_a_gzip_bomb_passed_to_diff_is_refused_in_bounded_memory(tmp_path):
    bomb = tmp_path / "bomb.json.gz"
    _bomb(bomb, 512 << 20)
    assert bomb.stat().st_size < 1 << 20
    config = tmp_path / "limits.yml"
    config.write_text("limits: {max_bytes: 4000000}\n")
    peak = tmp_path / "peak-kb"
    proc = subprocess.run([sys.executable, "-c", _PEAK, str(peak), "diff", str(OLD), str(bomb), "--config", str(config)],
                          capture_output=True, cwd=tmp_path)
    line, = proc.stderr.decode().strip().splitlines()
    assert proc.returncode == 2 and not proc.stdout
    assert str(bomb) in line and "decompresses to more than the 4000000-byte limit" in line
    assert int(peak.read_text()) * 1024 < 256 << 20  # the bomb expands to 512 MiB


def test_a_gzip_capture_cut_short_is_one_line(tmp_path, mcpdelta):
    cut = tmp_path / "cut.json.gz"
    cut.write_bytes(NEW.read_bytes()[:-8])
    result = mcpdelta("diff", OLD, cut)
    line, = result.stderr.strip().splitlines()
    assert result.returncode == 2 and "cut short" in line and str(cut) in line
