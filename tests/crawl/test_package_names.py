"""Package names and versions are data: a servers file's hostile name or
version is refused at its load, naming the entry; a name from elsewhere
never reaches a registry's URL or an installer's command line; every
installer call puts ``--`` before its positional arguments (real uv and
real npm, recorded by a wrapper that runs them, against loopback
registries)."""

import asyncio
import json
import os
import shlex
import stat
import sys
from pathlib import Path

import pytest

from mcpdelta.crawl.lookups import Lookups, pypi_url
from mcpdelta.crawl.package_names import name_problem, version_problem
from mcpdelta.crawl.packages import PackageCache
from mcpdelta.crawl.errors import CrawlError
from mcpdelta.crawl.runner import crawl
from mcpdelta.crawl.servers import load, parse
from mcpdelta.errors import InputError

from .conftest import REPO, fast_limits
from .servers.local_index import LocalIndex

HOSTILE_NAMES = ["-r/path/reqfile", "--index-url=http://127.0.0.1:9/evil", "../../../../../etc/x"]
HOSTILE_VERSIONS = ["--index-url=http://127.0.0.1:9/evil", "-r/path/reqfile", "1.0.0 --pre", "../1.0.0"]


def _servers(tmp_path, package: str) -> Path:
    path = tmp_path / "servers.yaml"
    path.write_text(f"servers:\n  - {{id: evil, package: {package}}}\n")
    return path


def test_every_package_of_the_committed_servers_files_passes():
    """The checks refuse no name or version the project's own servers files hold."""
    packages = []
    for path in sorted((REPO / "data" / "servers").glob("*.yaml")):
        targets, _ = load(path)
        packages += [t.package for t in targets if t.package]
    assert len({(p.registry, p.name) for p in packages}) > 200
    assert {p.registry for p in packages} == {"npm", "pypi"}
    named = [(p.registry, v) for p in packages if isinstance(p.versions, list) for v in p.versions]
    assert len(named) > 200 and all(version_problem(r, v) is None for r, v in named if v[:1].isdigit())


@pytest.mark.parametrize("registry", ["pypi", "npm"])
@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_a_hostile_package_name_is_refused_at_load_naming_the_entry(tmp_path, registry, name):
    path = _servers(tmp_path, json.dumps({"registry": registry, "name": name, "versions": ["1.0.0"]}))
    with pytest.raises(InputError) as caught:
        load(path)
    message = str(caught.value)
    assert "servers[0] (evil)" in message and repr(name) in message and "\n" not in message
    assert ("PyPI project name" if registry == "pypi" else "npm package name") in message


@pytest.mark.parametrize("registry", ["pypi", "npm"])
@pytest.mark.parametrize("version", HOSTILE_VERSIONS)
def test_a_hostile_version_is_refused_at_load_naming_the_entry(tmp_path, registry, version):
    path = _servers(tmp_path, json.dumps({"registry": registry, "name": "pkg", "versions": [version]}))
    with pytest.raises(InputError) as caught:
        load(path)
    assert "servers[0] (evil)" in str(caught.value) and repr(version) in str(caught.value)


def test_names_and_versions_each_registry_allows():
    for registry, name in [("pypi", "mcp-server-fetch"), ("pypi", "Zope.Interface_2"), ("pypi", "a"),
                           ("npm", "@modelcontextprotocol/server-memory"), ("npm", "JSONStream"),
                           ("npm", "lodash.merge"), ("npm", "@a/b")]:
        assert name_problem(registry, name) is None, (registry, name)
    for registry, name in [("pypi", "-x"), ("pypi", "x-"), ("pypi", "a/b"), ("pypi", "a b"), ("npm", ".x"),
                           ("npm", "_x"), ("npm", "-x"), ("npm", "@a/b/c"), ("npm", "a b"), ("npm", "x" * 215),
                           ("npm", "node_modules"), ("pypi", ""), ("npm", None)]:
        assert name_problem(registry, name), (registry, name)
    for registry, version in [("pypi", "1.0"), ("pypi", "2.0.0rc1"), ("pypi", "1!2.0.post1.dev3+local.7"),
                              ("npm", "1.2.3"), ("npm", "1.2.3-beta.1+build.5"), ("npm", "2025.4.25")]:
        assert version_problem(registry, version) is None, (registry, version)
    for registry, version in [("pypi", "1.0 ; os_name"), ("pypi", "*"), ("npm", "1.2"), ("npm", "01.2.3"),
                              ("npm", "1.2.3 || 2"), ("npm", "")]:
        assert version_problem(registry, version), (registry, version)


def test_a_registry_server_json_entry_with_a_hostile_name_is_a_problem_not_an_install(tmp_path):
    """A registry answer's entries: the hostile one fails alone, before anything runs."""
    doc = {"servers": [{"server": {"name": "io.x/evil", "packages": [
        {"registryType": "pypi", "identifier": "-r/path/reqfile", "version": "1.0.0"}]}},
        {"server": {"name": "io.x/fine", "packages": [
            {"registryType": "npm", "identifier": "@x/fine", "version": "--before=1"}]}},
        {"server": {"name": "io.x/good", "packages": [
            {"registryType": "npm", "identifier": "@x/good", "version": "1.0.0"}]}}]}
    targets, _ = parse(doc, "registry.json", tmp_path)
    by = {t.id: t for t in targets}
    assert by["io.x__evil"].package is None and "PyPI project name" in by["io.x__evil"].problem
    assert by["io.x__fine"].package is None and "semver" in by["io.x__fine"].problem
    assert by["io.x__good"].problem is None and by["io.x__good"].package.name == "@x/good"


def test_the_pypi_lookup_never_requests_a_path_a_name_spells(tmp_path):
    index = LocalIndex()
    index.add("mcpdelta-fx-dep", "1.0.0", "2024-12-01T00:00:00Z")
    index.start()
    try:
        cache = PackageCache(tmp_path / "cache", 60, pypi_url=index.url)

        async def lookup(name):
            async with Lookups(cache, 1) as lookups:
                return await lookups.fetch("pypi", name)

        with pytest.raises(CrawlError, match="not a PyPI project name"):
            asyncio.run(lookup("../../../../../etc/x"))
        assert index.requests == []
        assert asyncio.run(lookup("mcpdelta-fx-dep")) == {"1.0.0": "2024-12-01T00:00:00Z"}
        assert index.requests == [("/pypi/mcpdelta-fx-dep/json", 200)]
        assert not (tmp_path / "etc").exists() and sorted(os.listdir(tmp_path / "cache" / "pypi")) == [
            "mcpdelta-fx-dep"]
    finally:
        index.stop()
    assert pypi_url("http://i", "a/../b c") == "http://i/pypi/a%2F..%2Fb%20c/json"


def test_an_install_refuses_a_version_a_registry_listed(tmp_path):
    """A version from a registry's answer reaches the command line too."""
    cache = PackageCache(tmp_path / "cache", 60)
    for registry, name, version in [("pypi", "pkg", "--index-url=http://127.0.0.1:9/evil"),
                                    ("npm", "pkg", "-r/x"), ("npm", "-r/x", "1.0.0")]:
        with pytest.raises(CrawlError, match="not installed"):
            asyncio.run(cache.install(registry, name, version, None, None))
    assert not (tmp_path / "cache").exists()


def _recording(folder: Path, name: str, real: str, log: Path) -> Path:
    """An executable ``name`` that appends its arguments (one JSON line) to ``log``, then runs ``real``."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    record = "import json, sys; open(sys.argv[1], 'a').write(json.dumps(sys.argv[2:]) + chr(10))"
    path.write_text(f"#!/bin/sh\n{shlex.quote(sys.executable)} -c {shlex.quote(record)} {shlex.quote(str(log))} "
                    f"\"$@\"\nexec {shlex.quote(real)} \"$@\"\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_uv_gets_the_requirement_after_double_dash(tmp_path, monkeypatch):
    from mcpdelta.crawl.toolchain import find_uv

    uv, why = find_uv()
    if not uv:
        pytest.skip(why)
    log = tmp_path / "argv.jsonl"
    monkeypatch.setenv("MCPDELTA_UV", str(_recording(tmp_path / "bin", "uv", uv, log)))
    index = LocalIndex()
    index.add("mcpdelta-fx-named", "1.0.0", "2025-01-01T00:00:00Z", server=True)
    index.start()
    try:
        path = _servers(tmp_path, "{registry: pypi, name: mcpdelta-fx-named, versions: ['1.0.0']}")
        targets, _ = load(path)
        cache = PackageCache(tmp_path / "cache", 300, pypi_url=index.url, python_installer="uv")
        record, = asyncio.run(crawl(targets, fast_limits(total_timeout_s=300), tmp_path / "out", cache=cache))
    finally:
        index.stop()
    assert record.ok, record.error
    installs = [argv for argv in map(json.loads, log.read_text().splitlines()) if argv[:2] == ["pip", "install"]]
    assert installs and all(argv[-2:] == ["--", "mcpdelta-fx-named==1.0.0"] for argv in installs)


def test_npm_gets_the_package_after_double_dash(tmp_path, monkeypatch):
    import shutil

    from .servers.local_npm import LocalNpm

    npm = shutil.which("npm")
    if not npm:
        pytest.skip("npm is not installed")
    log = tmp_path / "argv.jsonl"
    _recording(tmp_path / "bin", "npm", npm, log)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    reg = LocalNpm()
    reg.add("@mcpdelta-fx/named", "1.0.0", "2025-01-01T00:00:00.000Z", server=True)
    reg.serve(monkeypatch, tmp_path)
    try:
        path = _servers(tmp_path, "{registry: npm, name: '@mcpdelta-fx/named', versions: ['1.0.0']}")
        targets, _ = load(path)
        cache = PackageCache(tmp_path / "cache", 300)
        record, = asyncio.run(crawl(targets, fast_limits(total_timeout_s=300), tmp_path / "out", cache=cache))
        # npm's own look-up, as a registry that refuses the client is asked
        from mcpdelta.crawl.lookups import npm_view_times

        assert asyncio.run(npm_view_times("@mcpdelta-fx/named", 60)) == {"1.0.0": "2025-01-01T00:00:00.000Z"}
    finally:
        reg.stop()
    assert record.ok, record.error
    calls = [argv for argv in map(json.loads, log.read_text().splitlines()) if argv[:1] in (["install"], ["view"])]
    assert [argv[0] for argv in calls] == ["install", "view"]
    install, view = calls
    assert install[-2:] == ["--", "@mcpdelta-fx/named@1.0.0"]
    assert view[-3:] == ["--", "@mcpdelta-fx/named", "time"]
