"""servers.yaml, registry server.json, the CLI and offline version sweeps."""

import json
import stat
import sys
from pathlib import Path

import pytest

from mcpdelta.cli import main
from mcpdelta.crawl.package_names import check_selector
from mcpdelta.crawl.packages import PackageCache, select
from mcpdelta.crawl.servers import load

from .conftest import FAULT_STDIO, fast_limits, run_crawl


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_servers_yaml_layout(tmp_path):
    f = write(tmp_path / "servers.yaml", """
servers:
  - id: local
    command: python
    args: ["-m", "notes"]
    env: {TOKEN: "${TOKEN}"}
    cwd: sub
  - id: remote
    url: https://example.invalid/mcp
    headers: {Authorization: "Bearer ${T}"}
  - id: multi
    command: ./bin/server
    args: ["--version", "{version}"]
    versions: ["1.0.0", "2.0.0"]
  - id: memory
    package: {registry: npm, name: "@modelcontextprotocol/server-memory", versions: "last 3"}
limits: {timeout_s: 7, concurrency: 3}
""")
    targets, limits = load(f)
    by = {(t.id, t.version): t for t in targets}
    local = by[("local", None)]
    assert local.cwd == str(tmp_path / "sub") and local.env == {"TOKEN": "${TOKEN}"}  # not expanded yet
    assert by[("remote", None)].transport == "streamable-http"
    assert by[("multi", "2.0.0")].args == ["--version", "2.0.0"]
    assert by[("multi", "1.0.0")].command == str(tmp_path / "bin" / "server")
    assert by[("multi", "1.0.0")].cwd == str(tmp_path)  # the servers file's folder by default
    assert by[("memory", None)].package.versions == "last 3"
    assert limits.request_timeout_s == 7 and limits.start_timeout_s == 7 and limits.concurrency == 3


@pytest.mark.parametrize("text, words", [
    ("servers: 3", "servers"),
    ("servers:\n  - command: x", "missing 'id'"),
    ("servers:\n  - {id: a, command: x, transport: carrier-pigeon}", "transport"),
    ("servers:\n  - {id: a, transport: sse}", "url"),
    ("servers:\n  - {id: a, command: x}\n  - {id: a, command: y}", "duplicate"),
    ("servers:\n  - {id: a, command: x, colour: red}", "unknown key"),
    ("servers:\n  - {id: a, package: {registry: cargo, name: x}}", "npm or pypi"),
    ("servers:\n  - {id: a, package: {registry: npm, name: x, versions: 'most of them'}}", "cannot read"),
    ("servers: [\n", "not valid YAML"),
    ("servers: []\nlimits: {timeout_s: soon}", "limits.timeout_s"),
    ("servers:\n  - {id: a, command: x, serial: sometimes}", "serial"),
    ("servers:\n  - {id: a, node: '22', package: {registry: pypi, name: x}}", "only an npm"),
    ("servers:\n  - {id: a, node: latest, package: {registry: npm, name: x}}", "major version"),
])
def test_bad_servers_file_is_one_line_exit_2(tmp_path, capsys, text, words):
    f = write(tmp_path / "servers.yaml", text)
    rc = main(["crawl", "--servers", str(f), "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err.strip()
    assert rc == 2
    assert len(err.splitlines()) == 1 and str(f) in err and words in err, err


def test_a_serial_server_has_its_versions_captured_one_at_a_time(tmp_path):
    """Its versions hold one fixed port each while they run: captured side
    by side (concurrency 2), the second would find the port taken and exit."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    f = write(tmp_path / "servers.yaml", f"""
servers:
  - id: side-port
    command: "{{python}}"
    args: ["{FAULT_STDIO}", fixed-port, "{{version}}"]
    env: {{FIXED_PORT: "{port}"}}
    versions: ["1.0.0", "1.1.0", "1.2.0"]
    serial: true
""")
    targets, _ = load(f)
    assert all(t.serial for t in targets)
    records = run_crawl(targets, tmp_path / "out", fast_limits(concurrency=2, retries=0))
    assert [(r.version, r.ok) for r in sorted(records, key=lambda r: r.version)] == \
        [("1.0.0", True), ("1.1.0", True), ("1.2.0", True)], [r.error for r in records]


def test_missing_servers_file_exit_2(tmp_path, capsys):
    rc = main(["crawl", "--servers", str(tmp_path / "nope.yaml"), "--out", str(tmp_path / "out")])
    assert rc == 2 and "nope.yaml" in capsys.readouterr().err


def test_cli_crawl_exits_1_with_failed_servers(tmp_path, capsys):
    f = write(tmp_path / "servers.yaml", f"""
servers:
  - {{id: good, command: "{{python}}", args: ["{FAULT_STDIO}", ok]}}
  - {{id: bad, command: "{{python}}", args: ["{FAULT_STDIO}", garbage]}}
""")
    rc = main(["crawl", "--servers", str(f), "--out", str(tmp_path / "out")])
    captured = capsys.readouterr()
    assert rc == 1  # a failed capture fails the crawl
    assert "1 ok, 1 failed" in captured.out
    assert "bad" in captured.err and "protocol_error" in captured.err
    rows = [json.loads(x) for x in (tmp_path / "out" / "crawl-log.jsonl").read_text().splitlines()]
    assert sorted((r["id"], r["ok"]) for r in rows) == [("bad", False), ("good", True)]
    assert (tmp_path / "out" / "good" / "9.9.9.json").exists()
    assert not list((tmp_path / "out").rglob("*.tmp"))


REGISTRY_DOC = {
    "$schema": "https://static.modelcontextprotocol.io/schemas/2025-10-17/server.schema.json",
    "name": "io.github.example/weather",
    "version": "1.2.0",
    "packages": [
        {"registryType": "npm", "identifier": "@example/weather-mcp", "version": "1.2.0",
         "transport": {"type": "stdio"},
         "packageArguments": [{"type": "positional", "value": "serve"},
                              {"type": "named", "name": "--units", "value": "metric"}],
         "environmentVariables": [{"name": "WEATHER_KEY", "isRequired": True, "isSecret": True},
                                  {"name": "LOG", "default": "info"}]},
        {"registryType": "oci", "identifier": "docker.io/example/weather", "version": "1.2.0",
         "transport": {"type": "stdio"}},
    ],
    "remotes": [{"type": "streamable-http", "url": "https://weather.example/mcp",
                 "headers": [{"name": "X-Api-Key", "isRequired": True, "isSecret": True}]}],
}


def test_registry_server_json_becomes_targets(tmp_path):
    targets, _ = load(write(tmp_path / "server.json", json.dumps(REGISTRY_DOC)))
    npm, oci, remote = targets
    assert npm.package.registry == "npm" and npm.package.name == "@example/weather-mcp"
    assert npm.package.versions == ["1.2.0"] and npm.version == "1.2.0"
    assert npm.args == ["serve", "--units", "metric"]
    assert npm.env == {"WEATHER_KEY": "${WEATHER_KEY}", "LOG": "info"}
    assert oci.problem and "oci" in oci.problem
    assert remote.transport == "streamable-http" and remote.headers == {"X-Api-Key": "${X_API_KEY}"}
    assert len({t.id for t in targets}) == 3 and all(t.id.startswith("io.github.example__weather") for t in targets)


def test_registry_api_answer_is_accepted(tmp_path):
    doc = {"servers": [{"server": REGISTRY_DOC, "_meta": {"io.modelcontextprotocol.registry/official": {}}}]}
    targets, _ = load(write(tmp_path / "servers.json", json.dumps(doc)))
    assert len(targets) == 3


def test_unsupported_registry_package_is_a_row(tmp_path):
    doc = dict(REGISTRY_DOC, packages=REGISTRY_DOC["packages"][1:], remotes=[])
    targets, _ = load(write(tmp_path / "server.json", json.dumps(doc)))
    rec, = run_crawl(targets, tmp_path / "out")
    assert rec.error_kind == "bad_target" and "oci" in rec.error


def test_version_selectors():
    published = ["0.5.0", "0.6.0", "0.6.2", "1.0.0-rc.1", "1.0.0", "2025.4.25", "0.10.0"]
    assert select(published, "last 2") == ["1.0.0", "2025.4.25"]
    assert select(published, ">=0.6") == ["0.6.0", "0.6.2", "0.10.0", "1.0.0", "2025.4.25"]
    assert select(published, ">=0.6, <1") == ["0.6.0", "0.6.2", "0.10.0"]
    assert select(published, "latest") == ["2025.4.25"]
    assert select(published, ["1.0.0-rc.1"]) == ["1.0.0-rc.1"]
    assert select(["1.0", "1.1rc1", "1.1"], "last 5") == ["1.0", "1.1"]
    assert check_selector("whatever") and not check_selector("last 5") and not check_selector(">=0.3.0")


def test_a_version_list_may_end_in_a_selector_for_the_releases_after_it():
    """The ecosystem's servers file names its planned releases, then ">LAST":
    a nightly sweep gains every later release and nothing else."""
    published = ["0.5.0", "0.6.0", "0.6.2", "1.0.0-rc.1", "1.0.0", "2025.4.25", "0.10.0"]
    assert select(published, ["0.5.0", "0.6.2", ">0.6.2"]) == ["0.5.0", "0.6.2", "0.10.0", "1.0.0", "2025.4.25"]
    assert select(["0.5.0", "0.6.2"], ["0.5.0", "0.6.2", ">0.6.2"]) == ["0.5.0", "0.6.2"]  # none newer yet
    assert select(published, ["0.6.0", "latest"]) == ["0.6.0", "2025.4.25"]


def test_a_bad_selector_in_a_version_list_is_one_line(tmp_path):
    f = write(tmp_path / "servers.yaml", "servers:\n  - id: m\n    package: {registry: npm, name: m, "
                                         "versions: ['1.0.0', '>>1']}\n")
    rc = main(["crawl", "--servers", str(f), "--out", str(tmp_path / "out")])
    assert rc == 2


def _fake_cached_package(cache: Path, versions: list[str]) -> None:
    """A cache as a previous online sweep leaves it: versions.json + one install per version."""
    root = cache / "npm" / "fake-mcp"
    root.mkdir(parents=True)
    times = {v: f"2025-01-0{i + 1}T00:00:00Z" for i, v in enumerate(versions)}
    (root / "versions.json").write_text(json.dumps(times))
    for v in versions:
        folder = PackageCache(cache, 60).install_dir("npm", "fake-mcp", v, times[v], None)
        d = folder / "node_modules" / ".bin"
        d.mkdir(parents=True)
        script = d / "fake-mcp"
        script.write_text(f"#!/bin/sh\nexec {sys.executable} {FAULT_STDIO} ok\n")
        script.chmod(script.stat().st_mode | stat.S_IEXEC)
        (folder / "install.json").write_text(json.dumps(
            {"argv": ["node_modules/.bin/fake-mcp"], "published_at": times[v], "version": v}))


def test_offline_sweep_from_the_cache(tmp_path):
    cache = tmp_path / "cache"
    _fake_cached_package(cache, ["1.0.0", "1.1.0", "2.0.0"])
    f = write(tmp_path / "servers.yaml", """
servers:
  - id: fake
    package: {registry: npm, name: fake-mcp, versions: "last 2"}
  - id: missing
    package: {registry: npm, name: fake-mcp, versions: ["9.9.9"]}
""")
    targets, _ = load(f)
    records = run_crawl(targets, tmp_path / "out", cache_dir=cache, offline=True)
    by = {(r.id, r.version): r for r in records}
    assert set(by) == {("fake", "1.1.0"), ("fake", "2.0.0"), ("missing", "9.9.9")}
    assert by[("fake", "2.0.0")].ok and by[("fake", "2.0.0")].published_at == "2025-01-03T00:00:00Z"
    # the package version names the file, not serverInfo.version (9.9.9)
    assert (tmp_path / "out" / "fake" / "2.0.0.json").exists()
    assert by[("missing", "9.9.9")].error_kind == "install_failed"


def test_offline_sweep_without_cache_is_a_row(tmp_path):
    f = write(tmp_path / "servers.yaml",
              "servers:\n  - {id: x, package: {registry: pypi, name: not-cached-pkg, versions: 'last 3'}}\n")
    targets, _ = load(f)
    rec, = run_crawl(targets, tmp_path / "out", cache_dir=tmp_path / "empty", offline=True)
    assert rec.error_kind == "version_lookup" and "not-cached-pkg" in rec.error


@pytest.mark.slow
def test_real_npm_and_pypi_sweeps(tmp_path):
    """Installs published servers from npm and PyPI (network) and crawls them."""
    f = write(tmp_path / "servers.yaml", """
servers:
  - id: server-memory
    package: {registry: npm, name: "@modelcontextprotocol/server-memory", versions: "last 2"}
  - id: server-time
    package: {registry: pypi, name: mcp-server-time, versions: "latest"}
limits: {timeout_s: 60, concurrency: 2}
""")
    targets, limits = load(f)
    records = run_crawl(targets, tmp_path / "out", limits, cache_dir=tmp_path / "cache", offline=False)
    assert len(records) == 3 and all(r.ok for r in records), [(r.id, r.error) for r in records]
    for r in records:
        assert r.published_at and r.manifest["tools"]
    # a second run needs no network: everything is in the cache
    again = run_crawl(targets, tmp_path / "out2", limits, cache_dir=tmp_path / "cache", offline=True)
    assert sorted((r.id, r.version) for r in again) == sorted((r.id, r.version) for r in records)


def test_cli_client_identity_options(tmp_path, capsys):
    """``mcpdelta crawl --client-name/--client-version/--protocol-version``: what the server saw."""
    f = write(tmp_path / "servers.yaml", f"""
servers:
  - {{id: echo, command: "{{python}}", args: ["{FAULT_STDIO}", echo-client]}}
""")
    rc = main(["crawl", "--servers", str(f), "--out", str(tmp_path / "out"), "--client-name", "pass-b",
               "--client-version", "9.8.7", "--protocol-version", "2025-03-26"])
    assert rc == 0, capsys.readouterr().err
    manifest = json.loads((tmp_path / "out" / "echo" / "1.0.0.json").read_text())
    assert manifest["serverInfo"]["seenClientInfo"] == {"name": "pass-b", "version": "9.8.7"}
    assert manifest["serverInfo"]["seenProtocolVersion"] == "2025-03-26"
    assert manifest["protocolVersion"] == "2025-03-26"
    row = json.loads((tmp_path / "out" / "crawl-log.jsonl").read_text())
    assert row["client"] == {"name": "pass-b", "version": "9.8.7"} and row["offered_protocol"] == "2025-03-26"


def test_cli_empty_client_name_is_exit_2(tmp_path, capsys):
    f = write(tmp_path / "servers.yaml", "servers: []\n")
    rc = main(["crawl", "--servers", str(f), "--out", str(tmp_path / "out"), "--client-name", " "])
    assert rc == 2 and "--client-name" in capsys.readouterr().err


def test_npm_install_failure_reason_is_the_error_not_the_log_path():
    from mcpdelta.crawl.toolchain import npm_reason

    err = ("npm error code ETARGET\n"
           "npm error notarget No matching version found for playwright@1.60.0-alpha-1 with a date before 8/21/2026.\n"
           "npm error notarget In most cases you or one of your dependencies are requesting a package version.\n"
           "npm error A complete log of this run can be found in: /root/.npm/_logs/x-debug-0.log\n")
    reason = npm_reason(err)
    assert reason.startswith("ETARGET: ") and "No matching version found for playwright@1.60.0-alpha-1" in reason
    assert "complete log" not in reason
    assert npm_reason("something odd\n") == "something odd"


def test_npm_exiting_with_only_its_log_path_is_explained_by_the_log(tmp_path):
    from mcpdelta.crawl.toolchain import npm_reason

    log = tmp_path / "debug-0.log"  # the shape npm 11 leaves when it exits 1 saying nothing else
    log.write_text("19 silly placeDep ROOT figma-developer-mcp@0.1.0 OK for:  want: 0.1.0\n"
                   "36 silly fetch manifest express@^4.21.2\n"
                   "38 http fetch GET 200 https://registry.npmjs.org/express 35ms (cache updated)\n"
                   "40 verbose cwd /tmp/npmt\n44 verbose exit 1\n")
    err = f"npm error A complete log of this run can be found in: {log}\n"
    assert npm_reason(err) == ("npm exited without an error message; its debug log's last step: "
                               "fetch GET 200 https://registry.npmjs.org/express 35ms (cache updated)")
    log.unlink()
    assert npm_reason(err) == "npm exited without an error message (its debug log is gone)"
