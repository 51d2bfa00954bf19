"""Nightly, incremental: a survey's version sweep installs and captures only
the releases its lake holds no capture of, against a PyPI stand-in on
127.0.0.1 (real pip, real venvs, the real survey command). A release
published since the last run is captured, one the lake holds is neither
installed nor captured again, a failed one is tried again next run, a live
server is captured every run, and ``--recapture`` captures everything."""

import json
import sys

import pytest

from mcpdelta.cli import main
from mcpdelta.lake import Lake
from tests.crawl.servers.local_index import LocalIndex
from tests.conftest import ROOT

FAULT_STDIO = ROOT / "tests" / "crawl" / "servers" / "fault_stdio.py"
NAME = "mcpdelta-fx-nightly"
PINNED = "mcpdelta-fx-pinned"


class ServingIndex(LocalIndex):
    """The PyPI stand-in, recording each package file it serves (an install
    downloads one; a skipped release downloads none) and each version
    look-up, and refusing the files named in ``withheld`` (a release whose
    install fails)."""

    def __init__(self):
        super().__init__()
        self.served: list[str] = []
        self.lookups: list[str] = []
        self.withheld: set[str] = set()

    def answer(self, path):
        name = path.rsplit("/", 1)[-1]
        if path.startswith("/pypi/"):
            self.lookups.append(path.split("/")[2])
        if path.startswith("/files/") and name.endswith(".whl"):  # a package file, not its metadata
            if name in self.withheld:
                return 404, b"{}", "application/json"
            self.served.append(name)
        return super().answer(path)


def wheel(version, name=NAME):
    return f"{name.replace('-', '_')}-{version}-py3-none-any.whl"


@pytest.fixture
def index():
    idx = ServingIndex()
    idx.add(NAME, "1.0.0", "2025-01-01T00:00:00Z", server=True)
    idx.add(PINNED, "1.0.0", "2025-01-01T00:00:00Z", server=True)
    idx.start()
    yield idx
    idx.stop()


def test_a_nightly_sweep_captures_only_new_releases(tmp_path, index, monkeypatch, capsys):
    servers = tmp_path / "servers.yaml"
    servers.write_text(f"""servers:
  - {{id: fx, package: {{registry: pypi, name: {NAME}, versions: all}}}}
  - {{id: pinned, package: {{registry: pypi, name: {PINNED}, versions: [1.0.0]}}}}
  - {{id: live, command: {json.dumps(sys.executable)}, args: [{json.dumps(str(FAULT_STDIO))}, ok]}}
limits: {{total_timeout_s: 300, concurrency: 2}}
""")
    lake = tmp_path / "lake"
    monkeypatch.setenv("MCPDELTA_PYPI_URL", index.url)

    def survey(run, *extra):
        # a fresh package cache each run: an install would download its wheel again
        monkeypatch.setenv("MCPDELTA_CACHE", str(tmp_path / f"cache-{run}"))
        index.served.clear()
        index.lookups.clear()
        assert main(["survey", "--servers", str(servers), "--lake", str(lake), "--format", "json",
                     "--report", str(tmp_path / "report"), *extra]) == 0
        return json.loads(capsys.readouterr().out)

    def attempts():
        rows = Lake(str(lake)).connect().execute(
            "SELECT server_id, version, ok FROM attempts ORDER BY attempted_at").fetchall()
        out = {}
        for server_id, version, ok in rows:
            key = version if server_id == "fx" else server_id  # one release of the others
            out.setdefault(key, []).append(ok)
        return out

    first = survey(1)
    assert first["skipped"] == 0 and first["errors"] == 0
    assert sorted(index.served) == [wheel("1.0.0"), wheel("1.0.0", PINNED)]
    assert sorted(index.lookups) == [NAME, PINNED]
    assert attempts() == {"1.0.0": [True], "pinned": [True], "live": [True]}

    # two releases published since; the newer one's file cannot be fetched yet
    index.add(NAME, "1.1.0", "2025-02-01T00:00:00Z", server=True)
    index.add(NAME, "1.2.0", "2025-03-01T00:00:00Z", server=True)
    index.withheld.add(wheel("1.2.0"))
    second = survey(2)
    assert second["skipped"] == 2 and second["errors"] == 1
    assert index.served == [wheel("1.1.0")]  # 1.0.0 not installed again, 1.2.0 refused
    # a sweep that lists its versions, all held, cannot gain one: no look-up
    assert index.lookups == [NAME]
    assert attempts() == {"1.0.0": [True], "1.1.0": [True], "1.2.0": [False], "pinned": [True],
                          "live": [True, True]}

    index.withheld.clear()
    third = survey(3)  # the failed release is tried again; the two held ones are not
    assert third["skipped"] == 3 and third["errors"] == 0
    assert index.served == [wheel("1.2.0")]
    assert attempts() == {"1.0.0": [True], "1.1.0": [True], "1.2.0": [False, True], "pinned": [True],
                          "live": [True, True, True]}

    # when each release was first seen: the run that found it, a failed try included
    con = Lake(str(lake)).connect()
    seen = dict(con.execute("SELECT version, first_seen FROM releases WHERE server_id = 'fx'").fetchall())
    firsts = dict(con.execute("SELECT version, min(attempted_at) FROM attempts WHERE server_id = 'fx' "
                              "GROUP BY version").fetchall())
    assert seen == firsts
    assert seen["1.0.0"] < seen["1.1.0"] <= seen["1.2.0"]
    captured_12 = con.execute("SELECT captured_at FROM releases WHERE server_id = 'fx' "
                              "AND version = '1.2.0'").fetchall()[0][0]
    assert seen["1.2.0"] < captured_12  # seen (and failed) a run before it was captured

    again = survey(4, "--recapture")
    assert again["skipped"] == 0 and again["errors"] == 0
    assert sorted(index.served) == [wheel("1.0.0"), wheel("1.1.0"), wheel("1.2.0"), wheel("1.0.0", PINNED)]
    assert attempts() == {"1.0.0": [True, True], "1.1.0": [True, True], "1.2.0": [False, True, True],
                          "pinned": [True, True], "live": [True, True, True, True]}


def test_recapture_without_a_crawl_is_refused(tmp_path, mcpdelta):
    result = mcpdelta("survey", "--lake", tmp_path / "lake", "--no-crawl", "--recapture")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "mcpdelta: error: --recapture: has nothing to capture with --no-crawl"]
