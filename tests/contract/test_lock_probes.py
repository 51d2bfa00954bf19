"""The lockfile's probes: pinned by ``lock``, called again by ``verify-lock``.

The weather demo over real stdio (data/demo/weather_server.py's docstring):
get_conditions keeps its schema from 1.1.0 to 1.2.0 while its JSON's
``temperature`` turns from an object into a number beside a new ``unit``;
get_air_quality's structured result breaks its own outputSchema in 1.2.0.
"""

import json
import subprocess

import pytest
import yaml

from tests.conftest import ROOT, _console_script

WEATHER = ROOT / "data" / "demo" / "weather_server.py"
PROBES = [{"tool": "get_conditions", "arguments": {"city": "Paris"}, "name": "conditions"},
          {"tool": "get_air_quality", "arguments": {"city": "Paris"}, "name": "air"}]


def servers(path, version, probes=()):
    entry = {"id": "weather", "command": "{python}", "args": [str(WEATHER), "--version", version]}
    if probes:
        entry["probes"] = list(probes)
    path.write_text(json.dumps({"servers": [entry]}))
    return path


def run(*args, cwd):
    done = subprocess.run([_console_script(), *map(str, args)], cwd=cwd, capture_output=True, text=True,
                          timeout=120)
    assert "Traceback" not in done.stderr, done.stderr
    return done


@pytest.fixture(scope="module")
def weather(tmp_path_factory):
    """1.1.0 and 1.2.0 captured with the probes, and 1.1.0 locked from its capture."""
    base = tmp_path_factory.mktemp("lock-probes")
    for version in ("1.1.0", "1.2.0"):
        done = run("crawl", "--servers", servers(base / f"probed-{version}.yaml", version, PROBES),
                   "--out", base / "out", cwd=base)
        assert done.returncode == 0, done.stderr
        servers(base / f"plain-{version}.yaml", version)  # no probes of its own
    locked = run("lock", base / "out" / "weather" / "1.1.0.json", "-o", base / "lock.yaml", cwd=base)
    assert locked.returncode == 0, locked.stderr
    return base


def captured(base, version):
    return json.loads((base / "out" / "weather" / f"{version}.json").read_text())


def test_lock_pins_each_probe_under_its_tool(weather):
    lock = yaml.safe_load((weather / "lock.yaml").read_text())
    probes = {p["name"]: p for p in captured(weather, "1.1.0")["probes"]}
    for tool, name in (("get_conditions", "conditions"), ("get_air_quality", "air")):
        [pinned] = lock["tools"][tool]["probes"]
        assert (pinned["name"], pinned["arguments"], pinned["outcome"]) == (name, {"city": "Paris"}, "result")
        assert pinned["shape_hash"] == probes[name]["shape_hash"]  # the crawler's own hash of the response
        assert pinned["shape"] == probes[name]["shape"]
    assert "probes" not in lock["tools"]["get_forecast"]  # no probe, no block


def test_verify_lock_makes_the_pinned_calls_and_passes_on_the_same_server(weather):
    # the servers file names no probes: the calls made are the lockfile's
    done = run("verify-lock", "--servers", weather / "plain-1.1.0.yaml", "--server", "weather",
               "--lock", weather / "lock.yaml", "--format", "json", cwd=weather)
    assert done.returncode == 0, done.stdout + done.stderr
    doc = json.loads(done.stdout)
    assert doc["drift"] is False and doc["changed"] == []


def test_a_response_that_changed_shape_is_drift_one_line_per_probe(weather):
    done = run("verify-lock", "--servers", weather / "plain-1.2.0.yaml", "--server", "weather",
               "--lock", weather / "lock.yaml", cwd=weather)
    assert done.returncode == 3, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert [line.split()[:2] for line in lines if line.strip().startswith("probe ")] == \
        [["probe", "air:"], ["probe", "conditions:"]]
    conditions = lines.index(next(line for line in lines if line.strip().startswith("probe conditions:")))
    # its tool's contract did not move: the probe alone makes it changed, and major
    assert lines[conditions - 1].split()[:4] == ["changed", "get_conditions", "grade", "major"]
    assert "response changed, grade major" in lines[conditions]


def test_the_drift_is_graded_by_the_engines_behaviour_rules(weather):
    done = run("verify-lock", "--servers", weather / "plain-1.2.0.yaml", "--server", "weather",
               "--lock", weather / "lock.yaml", "--format", "json", cwd=weather)
    tools = {t["tool"]: t for t in json.loads(done.stdout)["tools"]}
    conditions = tools["get_conditions"]
    assert (conditions["status"], conditions["grade"], conditions["changes"]) == ("changed", "major", [])
    [probe] = conditions["probes"]
    assert (probe["probe"], probe["status"]) == ("conditions", "changed")
    assert probe["pinned_hash"] != probe["live_hash"]
    assert {(c["rule"], c["path"]) for c in probe["changes"]} == {
        ("tool.behaviour.type.changed", "/probes/conditions/response/content/text/temperature"),
        ("tool.behaviour.field.added", "/probes/conditions/response/content/text/unit")}
    air = {c["rule"] for c in tools["get_air_quality"]["probes"][0]["changes"]}
    assert "tool.behaviour.outputSchema.violated" in air


def test_a_manifest_file_is_checked_against_its_own_probes(weather):
    done = run("verify-lock", weather / "out" / "weather" / "1.2.0.json", "--lock", weather / "lock.yaml",
               "--format", "json", cwd=weather)
    assert done.returncode == 3
    assert "get_conditions" in json.loads(done.stdout)["changed"]


def test_a_manifest_without_probes_is_noted_not_failed(weather, tmp_path):
    bare = captured(weather, "1.1.0")
    del bare["probes"]
    (tmp_path / "bare.json").write_text(json.dumps(bare))
    done = run("verify-lock", tmp_path / "bare.json", "--lock", weather / "lock.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stdout
    assert "2 pinned probe(s) not checked: the manifest was captured without probes" in done.stdout


def test_a_lockfile_without_probes_is_checked_as_before(weather, tmp_path):
    lock = yaml.safe_load((weather / "lock.yaml").read_text())
    for entry in lock["tools"].values():
        entry.pop("probes", None)
    (tmp_path / "old.lock.yaml").write_text(yaml.safe_dump(lock))
    done = run("verify-lock", "--servers", weather / "probed-1.2.0.yaml", "--server", "weather",
               "--lock", tmp_path / "old.lock.yaml", "--format", "json", cwd=tmp_path)
    assert done.returncode == 3  # the contract drift of 1.2.0, and nothing of the responses
    doc = json.loads(done.stdout)
    assert sorted(doc["changed"]) == ["get_air_quality", "get_alerts", "get_forecast"]
    assert all("probes" not in t for t in doc["tools"])


def test_a_lockfile_of_digests_only_still_sees_the_shape_move(weather, tmp_path):
    done = run("lock", weather / "out" / "weather" / "1.1.0.json", "-o", tmp_path / "lock.yaml",
               "--no-contract", cwd=tmp_path)
    assert done.returncode == 0
    lock = yaml.safe_load((tmp_path / "lock.yaml").read_text())
    assert "shape" not in lock["tools"]["get_conditions"]["probes"][0]
    done = run("verify-lock", weather / "out" / "weather" / "1.2.0.json", "--lock", tmp_path / "lock.yaml",
               "--format", "json", cwd=tmp_path)
    conditions = next(t for t in json.loads(done.stdout)["tools"] if t["tool"] == "get_conditions")
    assert (conditions["grade"], conditions["probes"][0]["note"]) == \
        ("patch", "no shape embedded in the lockfile: the grade is a floor")


def test_a_probe_that_did_not_answer_is_not_pinned(tmp_path):
    doc = {"tools": [{"name": "slow", "inputSchema": {"type": "object"}}],
           "probes": [{"name": "slow-1", "tool": "slow", "arguments": {}, "outcome": "timeout", "error": "x"}]}
    (tmp_path / "m.json").write_text(json.dumps(doc))
    done = run("lock", tmp_path / "m.json", "-o", tmp_path / "lock.yaml", cwd=tmp_path)
    assert done.returncode == 0
    assert "probe 'slow-1' not pinned: its call ended in timeout" in done.stderr
    assert "probes" not in yaml.safe_load((tmp_path / "lock.yaml").read_text())["tools"]["slow"]


BAD = [
    ("probes: {name: x}", "tools.get_conditions.probes must be a list"),
    ("probes: [{arguments: {}}]", "tools.get_conditions.probes[0].name is missing"),
    ("probes: [{name: c, arguments: [1], outcome: result, shape_hash: 'sha256:%s'}]" % ("0" * 64),
     "tools.get_conditions.probes[0].arguments must be a mapping"),
    ("probes: [{name: c, outcome: timeout, shape_hash: 'sha256:%s'}]" % ("0" * 64),
     "tools.get_conditions.probes[0].outcome 'timeout' is not one of result, tool_error"),
    ("probes: [{name: c, outcome: result, shape_hash: abc}]",
     "tools.get_conditions.probes[0].shape_hash 'abc' is not sha256:<64 hex>"),
    ("probes: [{name: c, outcome: result, shape_hash: 'sha256:%s', shape: {content: {}, isError: false}}]"
     % ("0" * 64), "tools.get_conditions.probes[0].shape does not hash to its shape_hash"),
]


@pytest.mark.parametrize("block, problem", BAD)
def test_a_malformed_probes_block_is_refused_naming_the_entry(weather, block, problem):
    from mcpdelta.errors import InputError
    from mcpdelta.gate.lockfile import parse_lockfile

    lock = yaml.safe_load((weather / "lock.yaml").read_text())
    lock["tools"]["get_conditions"]["probes"] = yaml.safe_load(block)["probes"]
    with pytest.raises(InputError) as caught:
        parse_lockfile(lock, "bad.lock.yaml")
    assert problem in str(caught.value) and "\n" not in str(caught.value)


def test_two_tools_cannot_pin_one_probe_name(weather):
    from mcpdelta.errors import InputError
    from mcpdelta.gate.lockfile import parse_lockfile

    lock = yaml.safe_load((weather / "lock.yaml").read_text())
    lock["tools"]["get_forecast"]["probes"] = lock["tools"]["get_conditions"]["probes"]
    with pytest.raises(InputError, match="two probes are named 'conditions'"):
        parse_lockfile(lock, "bad.lock.yaml")


def test_a_malformed_probes_block_is_a_one_line_error_from_the_cli(weather, tmp_path):
    lock = yaml.safe_load((weather / "lock.yaml").read_text())
    lock["tools"]["get_conditions"]["probes"][0]["shape_hash"] = "sha256:" + "0" * 64
    (tmp_path / "bad.lock.yaml").write_text(yaml.safe_dump(lock))
    problem = "tools.get_conditions.probes[0].shape does not hash to its shape_hash (edited by hand?)"
    manifest = weather / "out" / "weather" / "1.1.0.json"
    verify = run("verify-lock", manifest, "--lock", tmp_path / "bad.lock.yaml", cwd=tmp_path)
    assert verify.returncode == 2  # unreadable input; verify-lock's drift is 3
    assert verify.stderr.count("\n") == 1 and problem in verify.stderr and "bad.lock.yaml" in verify.stderr
    relock = run("lock", manifest, "-o", tmp_path / "new.lock.yaml", "--lock", tmp_path / "bad.lock.yaml",
                 cwd=tmp_path)
    assert relock.returncode == 2
    assert relock.stderr.count("\n") == 1 and problem in relock.stderr
    assert not (tmp_path / "new.lock.yaml").exists()


def test_ci_with_a_lockfile_baseline_makes_its_pinned_calls(weather, tmp_path):
    def rules(sarif):
        doc = json.loads(sarif.read_text())
        return {r["ruleId"] for one in doc["runs"] for r in one["results"]}

    # the servers files name no probes: the calls made are the lockfile's
    same = run("ci", "--servers", weather / "plain-1.1.0.yaml", "--baseline", weather / "lock.yaml",
               "--sarif", tmp_path / "same.sarif", cwd=tmp_path)
    assert same.returncode == 0, same.stdout + same.stderr
    assert rules(tmp_path / "same.sarif") == set()
    moved = run("ci", "--servers", weather / "plain-1.2.0.yaml", "--baseline", weather / "lock.yaml",
                "--sarif", tmp_path / "moved.sarif", cwd=tmp_path)
    assert moved.returncode == 1, moved.stdout + moved.stderr
    found = rules(tmp_path / "moved.sarif")
    assert {"tool.behaviour.type.changed", "tool.behaviour.field.added",
            "tool.behaviour.outputSchema.violated"} <= found
