"""Committed corpora are stored gzipped: ``ingest`` reads
``<server-id>/<version>.json.gz`` beside plain ``.json``, bounded."""

import gzip
import json
import shutil

from mcpdelta.lake import Lake
from mcpdelta.lake.ingest import rows_from_folder, store
from tests.conftest import ROOT

SAMPLE = ROOT / "data" / "samples" / "reference" / "mcp-server-time"


def test_gzipped_captures_are_the_same_rows_as_plain_ones(tmp_path):
    plain, packed = tmp_path / "plain" / "mcp-server-time", tmp_path / "packed" / "mcp-server-time"
    shutil.copytree(SAMPLE, plain)
    packed.mkdir(parents=True)
    for path in sorted(SAMPLE.glob("*.json")):
        (packed / (path.name + ".gz")).write_bytes(gzip.compress(path.read_bytes(), mtime=0))
    a, _ = rows_from_folder(str(tmp_path / "plain"))
    b, _ = rows_from_folder(str(tmp_path / "packed"))
    key = lambda r: (r["version"], r["manifest_digest"], r["tool_digests"], r["ok"])  # noqa: E731
    assert sorted(map(key, a)) == sorted(map(key, b)) and len(a) == len(list(SAMPLE.glob("*.json")))
    counts = store(Lake(str(tmp_path / "lake")), b)
    assert counts["added"] == len(b) and counts["errors"] == 0


def test_a_gzip_bomb_and_a_broken_gzip_are_error_rows(tmp_path):
    folder = tmp_path / "captures" / "s"
    folder.mkdir(parents=True)
    (folder / "1.0.0.json.gz").write_bytes(gzip.compress(b" " * (65 * 1024 * 1024) + b"{}", mtime=0))
    (folder / "1.1.0.json.gz").write_bytes(b"\x1f\x8b not gzip at all")
    (folder / "1.2.0.json.gz").write_bytes(gzip.compress(json.dumps({"tools": []}).encode(), mtime=0))
    rows, _ = rows_from_folder(str(tmp_path / "captures"))
    by_version = {r["version"]: r for r in rows}
    assert not by_version["1.0.0"]["ok"] and "decompresses to more than" in by_version["1.0.0"]["error"]
    assert not by_version["1.1.0"]["ok"] and "not a valid gzip file" in by_version["1.1.0"]["error"]
    assert by_version["1.2.0"]["ok"]
