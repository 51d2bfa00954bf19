"""npm releases of a sweep installed over a copy of the previous release's
install (``npm_reuse``), against the npm registry stand-in with real npm
and real node servers: the capture a plain install gives, the crawl's check
of it, and the check turning the reuse off when a capture differs."""

import asyncio
import json

import pytest

from mcpdelta.crawl.packages import PackageCache
from mcpdelta.crawl.runner import crawl
from mcpdelta.crawl.servers import load

from .conftest import fast_limits
from .test_crawl_sources import write

# a server whose tool says which version of itself and of its dependency it runs
SERVER_JS = r"""#!/usr/bin/env node
const own = require('./package.json').version;
const dep = require('mcpdelta-fx-rdep/package.json').version;
require('readline').createInterface({input: process.stdin}).on('line', (line) => {
  if (!line.trim()) return;
  const m = JSON.parse(line);
  if (m.id === undefined) return;
  const send = (r) => process.stdout.write(JSON.stringify({jsonrpc: '2.0', id: m.id, ...r}) + '\n');
  if (m.method === 'initialize') send({result: {protocolVersion: '2025-06-18', capabilities: {tools: {}},
                                                  serverInfo: {name: 'fx-reuse', version: own}}});
  else if (m.method === 'tools/list') send({result: {tools: [{name: 'hello', description: 'dep ' + dep,
                                                               inputSchema: {type: 'object'}}]}});
  else send({error: {code: -32601, message: 'Method not found'}});
});
"""


@pytest.fixture
def registry(monkeypatch, tmp_path):
    import shutil

    from .servers.local_npm import LocalNpm

    if not shutil.which("npm"):
        pytest.skip("npm is not installed")
    reg = LocalNpm()
    reg.serve(monkeypatch, tmp_path)
    yield reg
    reg.stop()


def add_server(reg, name: str, version: str, published: str, dep_range: str = "^1.0.0") -> None:
    reg.add(name, version, published, dependencies={"mcpdelta-fx-rdep": dep_range},
            files={"server.js": SERVER_JS}, bins={name: "server.js"})


def sweep(tmp_path, cache: PackageCache, versions: list[str], out: str = "out", **kw) -> dict:
    servers = write(tmp_path / f"{out}.yaml", f"""servers:
  - {{id: reuse, package: {{registry: npm, name: mcpdelta-fx-reuse, versions: {json.dumps(versions)}}}}}
""")
    targets, _ = load(servers)
    limits = fast_limits(total_timeout_s=300)  # installs 4 at a time, but a package's in the sweep's order
    records = asyncio.run(crawl(targets, limits, tmp_path / out, cache=cache, **kw))
    return {r.version: r for r in records}


def installed(cache: PackageCache, version: str, package: str) -> str:
    folder = next(cache.dir("npm", "mcpdelta-fx-reuse").glob(f"{version}~*"))
    return json.loads((folder / "node_modules" / package / "package.json").read_text())["version"]


def test_a_release_installed_over_the_last_captures_what_a_plain_install_captures(tmp_path, registry):
    registry.add("mcpdelta-fx-rdep", "1.0.0", "2024-12-01T00:00:00.000Z")
    registry.add("mcpdelta-fx-other", "1.0.0", "2025-01-20T00:00:00.000Z")  # needed from 1.1.0 on
    add_server(registry, "mcpdelta-fx-reuse", "1.0.0", "2025-01-01T00:00:00.000Z")
    registry.add("mcpdelta-fx-reuse", "1.1.0", "2025-02-01T00:00:00.000Z", files={"server.js": SERVER_JS},
                 bins={"mcpdelta-fx-reuse": "server.js"},
                 dependencies={"mcpdelta-fx-rdep": "^1.0.0", "mcpdelta-fx-other": "^1.0.0"})
    add_server(registry, "mcpdelta-fx-reuse", "1.2.0", "2025-03-01T00:00:00.000Z")  # drops mcpdelta-fx-other
    fast = PackageCache(tmp_path / "fast", 300, npm_reuse=True, reuse_check_every=0)
    plain = PackageCache(tmp_path / "plain", 300)  # the default: no reuse
    versions = ["1.0.0", "1.1.0", "1.2.0"]
    got = sweep(tmp_path, fast, versions, "fast-out")
    want = sweep(tmp_path, plain, versions, "plain-out")
    assert all(r.ok for r in [*got.values(), *want.values()]), [r.error for r in [*got.values(), *want.values()]]
    assert got["1.0.0"].install_reused is None  # nothing earlier to install over
    assert got["1.1.0"].install_reused == "1.0.0" and got["1.2.0"].install_reused == "1.1.0"
    assert got["1.1.0"].install_check == "equal" and got["1.1.0"].install_check_ms > 0  # the run's first: checked
    assert got["1.2.0"].install_check is None  # then none (0: the first only)
    assert want["1.1.0"].install_reused is None and want["1.1.0"].install_check is None  # the off switch
    for version in versions:
        assert got[version].manifest == want[version].manifest
    dropped = next(fast.dir("npm", "mcpdelta-fx-reuse").glob("1.2.0~*")) / "node_modules" / "mcpdelta-fx-other"
    assert not dropped.exists()  # what the earlier release needed and this one does not is pruned
    assert got["1.1.0"].manifest["serverInfo"]["version"] == "1.1.0"  # the new release replaced the old
    assert installed(fast, "1.1.0", "mcpdelta-fx-other") == "1.0.0"  # and what it added was fetched
    assert not list(fast.dir("npm", "mcpdelta-fx-reuse").glob(".check-*"))  # the check's install is gone
    rows = {r["version"]: r for r in map(json.loads, (tmp_path / "fast-out" / "crawl-log.jsonl").read_text().splitlines())}
    assert rows["1.1.0"]["install_reused"] == "1.0.0" and rows["1.1.0"]["install_check"] == "equal"


def test_a_capture_that_differs_from_a_plain_install_turns_the_reuse_off_for_the_run(tmp_path, registry):
    """Over 1.0.0's copy, 1.1.0 keeps the dependency 1.0.0 had (it still
    satisfies ^1.0.0); a plain install takes 1.1.0 of it, published in
    between, and the tool says so: the check keeps the plain capture and
    install, and no later release of the run is installed over another."""
    registry.add("mcpdelta-fx-rdep", "1.0.0", "2024-12-01T00:00:00.000Z")
    registry.add("mcpdelta-fx-rdep", "1.1.0", "2025-01-15T00:00:00.000Z")
    for version, published in (("1.0.0", "2025-01-01"), ("1.1.0", "2025-02-01"), ("1.2.0", "2025-03-01")):
        add_server(registry, "mcpdelta-fx-reuse", version, f"{published}T00:00:00.000Z")
    cache = PackageCache(tmp_path / "cache", 300, npm_reuse=True)
    first = sweep(tmp_path, cache, ["1.0.0", "1.1.0"])
    assert first["1.0.0"].ok and first["1.1.0"].ok, (first["1.0.0"].error, first["1.1.0"].error)
    assert first["1.0.0"].manifest["tools"][0]["description"] == "dep 1.0.0"
    checked = first["1.1.0"]
    assert checked.install_check.startswith("differs") and "tools that differ: hello" in checked.install_check
    assert checked.manifest["tools"][0]["description"] == "dep 1.1.0"  # the plain install's capture
    assert installed(cache, "1.1.0", "mcpdelta-fx-rdep") == "1.1.0"  # and its install, for later passes
    assert any("install check" in w and "1.0.0" in w for w in checked.warnings)
    row = json.loads((tmp_path / "out" / "crawl-log.jsonl").read_text().splitlines()[-1])
    assert row["version"] == "1.1.0" and row["install_check"].startswith("differs")
    assert cache.reuse_off and "reuse 1.1.0" in cache.reuse_off
    later = sweep(tmp_path, cache, ["1.2.0"])["1.2.0"]  # the same run (its cache): reuse stays off
    assert later.ok and later.install_reused is None and later.install_check is None


def test_an_install_released_after_its_capture_seeds_the_next_release(tmp_path, registry):
    registry.add("mcpdelta-fx-rdep", "1.0.0", "2024-12-01T00:00:00.000Z")
    add_server(registry, "mcpdelta-fx-reuse", "1.0.0", "2025-01-01T00:00:00.000Z")
    add_server(registry, "mcpdelta-fx-reuse", "1.1.0", "2025-02-01T00:00:00.000Z")
    cache = PackageCache(tmp_path / "cache", 300, npm_reuse=True, reuse_check_every=0)
    first = sweep(tmp_path, cache, ["1.0.0"], release_installs=True)["1.0.0"]
    assert first.ok and not list(cache.dir("npm", "mcpdelta-fx-reuse").glob("1.0.0~*"))
    second = sweep(tmp_path, cache, ["1.1.0"], release_installs=True)["1.1.0"]
    assert second.ok and second.install_reused == "1.0.0"
    assert second.manifest["serverInfo"]["version"] == "1.1.0"
    seed = json.loads((cache.dir("npm", "mcpdelta-fx-reuse") / ".seed" / "install.json").read_text())
    assert seed["version"] == "1.1.0"  # the later release is the seed now


def test_a_negative_check_rate_is_a_one_line_error(mcpdelta, tmp_path):
    servers = write(tmp_path / "servers.yaml", "servers:\n  - {id: x, command: python3, args: [-c, 'pass']}\n")
    done = mcpdelta("crawl", "--servers", servers, "--out", tmp_path / "out", "--reuse-check-every", "-1")
    assert done.returncode == 2 and not (tmp_path / "out" / "crawl-log.jsonl").exists()
    assert done.stderr.strip().count("\n") == 0 and "--reuse-check-every: must be 0 or more" in done.stderr


def test_the_check_sample_is_one_in_n_and_the_same_on_every_run():
    from mcpdelta.crawl.npm_reuse import sampled

    versions = [f"1.{i}.0" for i in range(2000)]
    picked = [v for v in versions if sampled("some-server", v, 10)]
    assert 140 <= len(picked) <= 260  # about 1 in 10 (200 expected)
    assert picked == [v for v in versions if sampled("some-server", v, 10)]
    assert all(sampled("some-server", v, 1) for v in versions[:50])
    assert not any(sampled("some-server", v, 0) for v in versions[:50])


def test_releases_install_in_the_order_they_were_published_each_over_the_one_before(tmp_path, registry):
    """Version order is not publish order (a fix to an old line, a registry
    that dated its copies anew): each release is installed over the latest
    one published before it, never over a later one (its dependencies may
    be dated after this release's cut-off)."""
    registry.add("mcpdelta-fx-rdep", "1.0.0", "2024-12-01T00:00:00.000Z")
    for version, published in (("1.0.0", "2025-03-01"), ("1.1.0", "2025-01-01"), ("1.2.0", "2025-02-01")):
        add_server(registry, "mcpdelta-fx-reuse", version, f"{published}T00:00:00.000Z")
    cache = PackageCache(tmp_path / "cache", 300, npm_reuse=True, reuse_check_every=0)
    got = sweep(tmp_path, cache, ["1.0.0", "1.1.0", "1.2.0"])
    assert all(r.ok for r in got.values()), [r.error for r in got.values()]
    assert {v: r.install_reused for v, r in got.items()} == {"1.1.0": None, "1.2.0": "1.1.0", "1.0.0": "1.2.0"}
    assert {v: r.manifest["serverInfo"]["version"] for v, r in got.items()} == {v: v for v in got}


def test_the_crawl_command_reuses_only_when_asked(mcpdelta, tmp_path, registry):
    registry.add("mcpdelta-fx-rdep", "1.0.0", "2024-12-01T00:00:00.000Z")
    add_server(registry, "mcpdelta-fx-reuse", "1.0.0", "2025-01-01T00:00:00.000Z")
    add_server(registry, "mcpdelta-fx-reuse", "1.1.0", "2025-02-01T00:00:00.000Z")
    servers = write(tmp_path / "servers.yaml", """servers:
  - {id: reuse, package: {registry: npm, name: mcpdelta-fx-reuse, versions: all}}
""")
    for tag, extra in (("plain", ()), ("reuse", ("--npm-reuse",))):
        done = mcpdelta("crawl", "--servers", servers, "--out", tmp_path / tag, "--cache", tmp_path / f"cache-{tag}",
                        *extra)
        assert done.returncode == 0, done.stderr
        rows = {r["version"]: r for r in map(json.loads, (tmp_path / tag / "crawl-log.jsonl").read_text().splitlines())}
        assert rows["1.1.0"]["install_reused"] == ("1.0.0" if extra else None)
