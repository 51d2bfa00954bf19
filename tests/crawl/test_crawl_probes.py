"""Probe calls at capture time, against real stdio servers: the weather demo
(whose responses change shape across releases) and a raw server whose
tools hang, flood, die or would write a file."""

import json
import subprocess
import sys

import pytest

from mcpdelta.crawl.model import Target
from mcpdelta.crawl.probes import Probe, parse_probes
from mcpdelta.errors import InputError
from tests.conftest import _console_script
from tests.crawl.conftest import DEMO, SERVERS, fast_limits, only, run_crawl

PROBE_SERVER = str(SERVERS / "probe_server.py")
WEATHER = str(DEMO / "weather_server.py")


def probe_target(tmp_path, probes):
    return Target(id="probe-server", transport="stdio", command=sys.executable,
                  args=[PROBE_SERVER, str(tmp_path / "marker")], probes=probes)


def by_name(manifest):
    return {p["name"]: p for p in manifest["probes"]}


def test_misbehaving_probes_leave_a_good_capture_with_their_errors(tmp_path):
    probes = [Probe("ok", {}, "ok"), Probe("absent", {}, "absent"), Probe("hang", {}, "hang"),
              Probe("huge", {}, "huge"), Probe("die", {}, "die"), Probe("ok", {"after": True}, "after")]
    rec = only(run_crawl([probe_target(tmp_path, probes)], tmp_path / "out",
                         limits=fast_limits(request_timeout_s=2)))
    assert rec.ok, rec.error
    assert {t["name"] for t in rec.manifest["tools"]} >= {"ok", "hang", "wipe"}
    got = by_name(rec.manifest)
    assert got["ok"]["outcome"] == "result"
    assert json.loads(got["ok"]["result"]["content"][0]["text"]) == {"tool": "ok", "arguments": {}}
    assert got["absent"]["outcome"] == "unavailable" and "no tool named 'absent'" in got["absent"]["error"]
    assert got["hang"]["outcome"] == "timeout"
    assert got["huge"]["outcome"] == "protocol_error" and "result" not in got["huge"]
    assert got["die"]["outcome"] == "protocol_error"
    assert got["after"]["outcome"] == "protocol_error" and got["after"]["error"].startswith("not run")
    assert any("probe hang: timeout" in w for w in rec.warnings)
    assert len(json.dumps(rec.manifest)) < 1024 * 1024  # the flood was not stored


def test_auto_probes_call_only_tools_declared_read_only(tmp_path):
    rec = only(run_crawl([Target(id="probe-server", transport="stdio", command=sys.executable,
                                 args=[PROBE_SERVER, str(tmp_path / "marker")], probes="auto")],
                         tmp_path / "out", limits=fast_limits(request_timeout_s=2)))
    assert rec.ok, rec.error
    called = {p["tool"] for p in rec.manifest["probes"]}
    assert "wipe" not in called and not (tmp_path / "marker").exists()
    assert {"ok", "lookup"} <= called
    lookup = next(p for p in rec.manifest["probes"] if p["tool"] == "lookup")
    assert lookup["arguments"] == {"id": 3}  # required properties only, smallest valid value
    assert lookup["outcome"] == "result"


@pytest.mark.parametrize("value, problem", [
    ("sometimes", "list of"), ([{"arguments": {}}], "needs a 'tool'"),
    ([{"tool": "a", "arguments": [1]}], "arguments must be a mapping"),
    ([{"tool": "a"}, {"tool": "a"}], "two probes are named"), ([{"tool": "a", "when": 1}], "unknown key 'when'"),
])
def test_bad_probe_lists_are_one_line_errors(value, problem):
    with pytest.raises(InputError, match=problem):
        parse_probes(value, "servers.yaml: servers[0]")


@pytest.fixture(scope="module")
def weather(tmp_path_factory):
    """The weather demo at three releases, crawled with probes by the CLI."""
    base = tmp_path_factory.mktemp("weather")
    (base / "servers.yaml").write_text(json.dumps({"servers": [{
        "id": "demo-weather", "transport": "stdio", "command": sys.executable,
        "args": [WEATHER, "--version", "{version}"], "versions": ["1.1.0", "1.2.0", "2.0.0"],
        "probes": [{"tool": "get_conditions", "arguments": {"city": "Paris"}, "name": "conditions"},
                   {"tool": "get_air_quality", "arguments": {"city": "Paris"}, "name": "air"}]}]}))
    done = subprocess.run([_console_script(), "crawl", "--servers", "servers.yaml", "--out", "out"],
                          cwd=base, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    return base / "out" / "demo-weather"


def diff(folder, old, new, fmt="json"):
    return subprocess.run([_console_script(), "diff", str(folder / f"{old}.json"), str(folder / f"{new}.json"),
                           "--format", fmt], capture_output=True, text=True, timeout=60)


def test_a_response_that_changed_shape_under_an_unchanged_schema(weather):
    changes = json.loads(diff(weather, "1.1.0", "1.2.0").stdout)["changes"]
    got = {(c["rule"], c["path"]) for c in changes if c["entity"] == "get_conditions"}
    assert got == {  # the weather demo's docstring: temperature {value, unit} -> number, unit beside it
        ("tool.behaviour.type.changed", "/probes/conditions/response/content/text/temperature"),
        ("tool.behaviour.field.added", "/probes/conditions/response/content/text/unit")}
    violated = [c for c in changes if c["rule"] == "tool.behaviour.outputSchema.violated"]
    assert [c["entity"] for c in violated] == ["get_air_quality"] and violated[0]["severity"] == "BREAKING"


def test_the_fixed_release_is_not_reported_as_violating(weather):
    rules = {c["rule"] for c in json.loads(diff(weather, "1.2.0", "2.0.0").stdout)["changes"]}
    assert "tool.behaviour.outputSchema.violated" not in rules


@pytest.mark.parametrize("fmt", ["text", "markdown", "sarif", "github", "junit"])
def test_behavioural_rules_reach_every_format(weather, fmt):
    done = diff(weather, "1.1.0", "1.2.0", fmt)
    assert done.returncode == 1
    assert "tool.behaviour.type.changed" in done.stdout
    assert "tool.behaviour.outputSchema.violated" in done.stdout


def test_probes_land_in_the_lake_keyed_like_tools(weather, tmp_path):
    import duckdb  # noqa: F401 - the lake is queried by DuckDB

    from mcpdelta.lake import Lake

    done = subprocess.run([_console_script(), "ingest", str(weather.parent), "--lake", "lake"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    again = subprocess.run([_console_script(), "ingest", str(weather.parent), "--lake", "lake"], cwd=tmp_path,
                           capture_output=True, text=True, timeout=120)
    assert again.returncode == 0
    con = Lake(str(tmp_path / "lake")).connect()
    rows = con.execute("SELECT m.version, p.name, p.outcome, p.shape_hash FROM probes p JOIN manifests m "
                       "USING (server_id, manifest_digest) ORDER BY m.version, p.name").fetchall()
    assert [(v, n, o) for v, n, o, _ in rows] == [(v, n, "result") for v in ("1.1.0", "1.2.0", "2.0.0")
                                                  for n in ("air", "conditions")]  # once each: no doubling
    conditions = {v: h for v, n, _, h in rows if n == "conditions"}
    assert conditions["1.1.0"] != conditions["1.2.0"] == conditions["2.0.0"]  # the shape moved at 1.2.0
