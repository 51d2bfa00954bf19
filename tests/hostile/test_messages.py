"""What the one line says, for the hostile inputs where the wording is the
point (``tests/hostile/cases.py`` builds the files)."""

import json
import os

import pytest

from mcpdelta.lake import Lake
from tests.hostile.cases import build


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    d = tmp_path_factory.mktemp("hostile")
    build(d)
    return d


def line_of(result):
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


@pytest.mark.parametrize("argv,words", [
    (["verify-lock", "ok.json", "--lock", "lock-bomb.yaml"], "alias bomb"),
    (["lint-bump", "ok.json", "--lock", "lock-bomb.yaml"], "alias bomb"),
    (["lock", "ok.json", "--lock", "lock-bomb.yaml"], "alias bomb"),
    (["crawl", "--servers", "servers-bomb.yaml", "--out", "out"], "alias bomb"),
    (["diff", "ok.json", "ok.json", "--config", "bomb.yml"], "alias bomb"),
    (["verify-lock", "ok.json", "--lock", "lock-recursive.yaml"], "recursive YAML alias"),
    (["crawl", "--servers", "servers-recursive.yaml", "--out", "out"], "recursive YAML alias"),
    (["diff", "ok.json", "ok.json", "--config", "recursive.yml"], "recursive YAML alias"),
    (["verify-lock", "ok.json", "--lock", "lock-deep.yaml"], "deeper than the limit of 256 levels"),
    (["diff", "ok.json", "ok.json", "--config", "deep.yml"], "deeper than the limit of 256 levels"),
    (["verify-lock", "ok.json", "--lock", "lock-true.yaml"], "unsupported lockfile version True"),
    (["verify-lock", "ok.json", "--lock", "lock-float.yaml"], "a YAML number"),
    (["diff", "ok.json", "duplicate.json"], "duplicate key 'tools'"),
    (["diff", "ok.json", "duplicate-inner.json"], "duplicate key 'name'"),
    (["diff", "ok.json", "deep.json"], "deeper than the limit of 256 levels"),
    (["diff", "ok.json", "ok.json", "--config", "nan-limit.yml"], "positive whole number, got '.nan'"),
    (["diff", "ok.json", "ok.json", "--config", "negative-limit.yml"], "positive whole number, got '-3'"),
    (["diff", "ok.json", "ok.json", "--config", "zero-limit.yml"], "positive whole number, got '0'"),
    (["diff", "ok.json", "ok.json", "--config", "huge-depth-limit.yml"], "at most 256 levels"),
    (["diff", "ok.json", "fifo.json"], "FIFO"),
    (["diff", "ok.json", "zero.json"], "device"),
    (["diff", "ok.json", "loop.json"], "symbolic link loop"),
    (["diff", "ok.json", "ok.json", "--config", "fifo.json"], "FIFO"),
    (["verify-lock", "ok.json", "--lock", "zero.json"], "device"),
    (["crawl", "--servers", "fifo.json", "--out", "out"], "FIFO"),
])
def test_the_line_names_the_file_and_the_problem(folder, mcpdelta, argv, words):
    result = mcpdelta(*argv, cwd=folder)
    assert result.returncode in (2, 3)
    line = line_of(result)
    assert words in line
    named = [a for a in argv if a.endswith((".json", ".yml", ".yaml")) and a != "ok.json"]
    assert any(n in line for n in named)


def test_a_fifo_in_a_capture_folder_is_skipped_not_waited_on(folder, mcpdelta, tmp_path):
    result = mcpdelta("ingest", folder / "captures-links", "--lake", tmp_path / "lake")
    assert result.returncode == 1, result.stderr  # the cut-short fixture capture is an error row
    assert "Traceback" not in result.stderr
    for name, kind in (("7.7.7.json", "FIFO"), ("8.8.8.json", "device"), ("9.9.9.json", "dangling"),
                       ("loop.json", "loop"), ("zero-server", "device"), ("dangling-server", "dangling")):
        assert any(name in line and kind in line for line in result.stderr.splitlines()), (name, result.stderr)
    con = Lake(str(tmp_path / "lake")).connect()
    versions = {v for v, in con.execute("SELECT version FROM manifests WHERE server_id = 'alpha'").fetchall()}
    assert not versions & {"7.7.7", "8.8.8", "9.9.9", "loop"}
    assert versions  # the real captures went in


def test_non_utf8_names_are_skipped_with_a_warning(folder, mcpdelta, tmp_path):
    result = mcpdelta("ingest", folder / "captures-non-utf8-names", "--lake", tmp_path / "lake")
    assert result.returncode == 1, result.stderr  # the cut-short fixture capture is an error row
    assert result.stderr.count("not valid UTF-8") == 2
    servers = Lake(str(tmp_path / "lake")).connect().execute(
        "SELECT DISTINCT server_id FROM manifests").fetchall()
    assert all(s.isascii() for s, in servers)


def test_a_crawl_log_of_wrong_types_is_read_for_what_it_holds(folder, tmp_path):
    from mcpdelta.lake.ingest import rows_from_folder

    warnings = []
    rows, attempts = rows_from_folder(str(folder / "captures-log-wrong-types"), warn=warnings.append)
    alpha = [a for a in attempts if a["server_id"] == "alpha" and a["version"] == "1.0.0"]
    assert alpha and alpha[0]["client"] is None and alpha[0]["duration_ms"] is None
    assert alpha[0]["transport"] is None and alpha[0]["attempted_at"] is None
    assert any("3 line(s) skipped" in w for w in warnings)


def test_lone_surrogates_become_error_rows(folder, mcpdelta, tmp_path):
    result = mcpdelta("ingest", folder / "captures-surrogates", "--lake", tmp_path / "lake")
    assert result.returncode == 1, result.stderr  # its error rows: exit 1
    con = Lake(str(tmp_path / "lake")).connect()
    errors = dict(con.execute("SELECT version, error FROM manifests WHERE NOT ok AND server_id = 'alpha'").fetchall())
    assert "surrogate" in errors["5.0.0"] and "surrogate" in errors["6.0.0"]


@pytest.mark.parametrize("name,warning", [("log-is-a-folder", "is a directory"),
                                          ("log-not-utf8", "line(s) skipped")])
def test_an_unreadable_crawl_log_is_a_warning(folder, name, warning):
    from mcpdelta.lake.ingest import rows_from_folder

    warnings = []
    rows, _ = rows_from_folder(str(folder / f"captures-{name}"), warn=warnings.append)
    assert rows and any(warning in w for w in warnings), warnings


def test_a_bounded_read_never_reads_past_its_limit(tmp_path):
    from mcpdelta.errors import InputError
    from mcpdelta.inputs import read_bytes

    big = tmp_path / "big.json"
    big.write_bytes(b" " * 2000)
    with pytest.raises(InputError, match="larger than the 1000-byte limit"):
        read_bytes(big, 1000)
    assert read_bytes(big, 2000) == b" " * 2000
    os.symlink("/dev/zero", tmp_path / "zero")
    with pytest.raises(InputError, match="device"):
        read_bytes(tmp_path / "zero")
    assert json.loads(read_bytes(big, 2000) + b"1") == 1
