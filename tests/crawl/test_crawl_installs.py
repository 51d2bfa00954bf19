"""Version sweeps against a PyPI stand-in on 127.0.0.1 (real pip, real venvs,
real interpreters of this machine) and against a package cache: the
interpreter a release needs, a dependency dated after the release,
pre-release-only packages, incremental sweeps."""

import asyncio
import datetime as dt
import json
import sys
from pathlib import Path

import pytest

from mcpdelta.crawl.packages import PackageCache
from mcpdelta.crawl.toolchain import full_version, interpreters
from mcpdelta.crawl.runner import crawl
from mcpdelta.crawl.servers import load

from .conftest import fast_limits
from .servers.local_index import LocalIndex
from .test_crawl_sources import _fake_cached_package, write

OWN = f"{sys.version_info[0]}.{sys.version_info[1]}"
NEWER = [v for v in interpreters() if tuple(map(int, v.split("."))) > sys.version_info[:2]]
# a patch level above the first newer interpreter's: only a later minor meets it
PATCH_ABOVE = None
if len(NEWER) > 1:
    _major, _minor, _patch = full_version(NEWER[0], interpreters()[NEWER[0]]).split(".")
    PATCH_ABOVE = f"{_major}.{_minor}.{int(_patch) + 1}"


@pytest.fixture(scope="module")
def index():
    idx = LocalIndex()
    if NEWER:
        idx.add("mcpdelta-fx-newpy", "1.0.0", "2025-01-01T00:00:00Z", requires_python=f">={NEWER[0]}",
                server=True)
    if PATCH_ABOVE:
        idx.add("mcpdelta-fx-patchpy", "1.0.0", "2025-01-01T00:00:00Z", requires_python=f">={PATCH_ABOVE}",
                server=True)
    idx.add("mcpdelta-fx-late", "1.0.0", "2025-01-01T00:00:00Z", requires=["mcpdelta-fx-dep>=2"], server=True)
    idx.add("mcpdelta-fx-dep", "1.0.0", "2024-12-01T00:00:00Z")
    idx.add("mcpdelta-fx-dep", "2.0.0", "2025-01-03T00:00:00Z")  # dated two days after the release
    idx.start()
    yield idx
    idx.stop()


def sweep(tmp_path, index, entries: str, installer=None, **kw):
    servers = write(tmp_path / "servers.yaml", "servers:\n" + entries)
    targets, _ = load(servers)
    cache = PackageCache(tmp_path / "cache", 300, pypi_url=index.url, python_installer=installer)
    records = asyncio.run(crawl(targets, fast_limits(total_timeout_s=300), tmp_path / "out", cache=cache, **kw))
    return {r.id: r for r in records}, cache


# uv where it is installed (the default), and pip (its fallback): the same behaviour
INSTALLERS = pytest.mark.parametrize("installer", ["uv", "pip"])


@pytest.mark.skipif(not NEWER, reason="needs a Python newer than the one running the tests")
@INSTALLERS
def test_requires_python_picks_a_newer_interpreter(tmp_path, index, installer):
    by, _ = sweep(tmp_path, index, installer=installer, entries=f"""
  - {{id: auto, package: {{registry: pypi, name: mcpdelta-fx-newpy, versions: latest}}}}
  - {{id: forced-old, package: {{registry: pypi, name: mcpdelta-fx-newpy, versions: latest}}, python: "{OWN}"}}
""")
    auto, old = by["auto"], by["forced-old"]
    assert auto.ok, auto.error
    assert not any("pip instead" in w for w in auto.warnings)
    assert auto.python == NEWER[0] and auto.manifest["serverInfo"]["python"] == NEWER[0]
    assert auto.install_ms > 0 and auto.capture_ms > 0 and auto.duration_ms >= auto.install_ms + auto.capture_ms
    # asked for the older interpreter: pip's real cause, not its last line
    assert not old.ok and old.error_kind == "install_failed"
    assert f"Requires-Python >={NEWER[0]}" in old.error and f"Python {OWN}" in old.error


@pytest.mark.skipif(PATCH_ABOVE is None, reason="needs two Pythons newer than the one running the tests")
def test_requires_python_on_a_patch_level_passes_over_an_interpreter_below_it(tmp_path, index):
    # Requires-Python >=3.12.(N+1) where this machine's 3.12 is 3.12.N: the
    # next minor is taken, not the 3.12 that would fail the same way
    by, _ = sweep(tmp_path, index, entries="""
  - {id: patch, package: {registry: pypi, name: mcpdelta-fx-patchpy, versions: latest}}
""")
    assert by["patch"].ok, by["patch"].error
    assert by["patch"].python == NEWER[1]


@INSTALLERS
def test_a_dependency_dated_after_the_release_gets_a_second_try(tmp_path, index, installer):
    by, cache = sweep(tmp_path, index, installer=installer, entries="""
  - {id: late, package: {registry: pypi, name: mcpdelta-fx-late, versions: latest}}
""")
    rec = by["late"]
    assert rec.ok, rec.error
    assert rec.published_at == "2025-01-01T00:00:00Z"
    assert rec.install_retry and "cut-off of 2025-01-08T00:00:00Z" in rec.install_retry
    assert {"pip": "No matching distribution found for mcpdelta-fx-dep>=2",
            "uv": "`mcpdelta-fx-dep` was filtered by `exclude-newer`"}[installer] in rec.install_retry
    row = json.loads((tmp_path / "out" / "crawl-log.jsonl").read_text())
    assert row["install_retry"] == rec.install_retry
    # the install is cached under a key of its options; another cut-off is another install
    folder = cache.install_dir("pypi", "mcpdelta-fx-late", "1.0.0", "2025-01-01T00:00:00Z", None)
    assert (folder / "install.json").exists()
    assert cache.install_dir("pypi", "mcpdelta-fx-late", "1.0.0", "2025-01-02T00:00:00Z", None) != folder
    assert cache.install_dir("pypi", "mcpdelta-fx-late", "1.0.0", "2025-01-01T00:00:00Z", None, "3.12") != folder


def _freeze(venv) -> dict[str, str]:
    """{normalized name: version} of a venv, as pip itself lists it."""
    import re
    import subprocess

    out = subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "freeze",
                          "--disable-pip-version-check"], capture_output=True, text=True, check=True).stdout
    return {re.sub(r"[-_.]+", "-", n).lower(): v for n, v in (ln.split("==") for ln in out.split())}


def test_uv_resolves_what_pip_resolves_as_of_the_publish_date(tmp_path, index):
    """The same release, the same cut-off (a minute after its publish time),
    through uv and through pip: the same versions, each dependency's newest
    release published before the cut-off (not the one published after)."""
    index.add("mcpdelta-fx-pair", "1.0.0", "2025-01-01T00:00:00Z", server=True,
              requires=["mcpdelta-fx-base>=1", "mcpdelta-fx-extra<3"])
    index.add("mcpdelta-fx-base", "1.0.0", "2024-11-01T00:00:00Z")
    index.add("mcpdelta-fx-base", "1.5.0", "2024-12-31T23:59:00Z")   # a minute before the release
    index.add("mcpdelta-fx-base", "1.6.0", "2025-01-01T00:02:00Z")   # two minutes after it
    index.add("mcpdelta-fx-extra", "2.0.0", "2024-10-01T00:00:00Z")
    index.add("mcpdelta-fx-extra", "2.1.0", "2025-02-01T00:00:00Z")  # a month after it
    frozen = {}
    for installer in ("uv", "pip"):
        cache = PackageCache(tmp_path / installer, 300, pypi_url=index.url, python_installer=installer)
        info = asyncio.run(cache.install("pypi", "mcpdelta-fx-pair", "1.0.0", "2025-01-01T00:00:00Z", None))
        assert info["installer"] == installer and "retry" not in info
        frozen[installer] = _freeze(Path(info["argv"][0]).parent.parent)
    assert frozen["uv"] == frozen["pip"] == {
        "mcpdelta-fx-pair": "1.0.0", "mcpdelta-fx-base": "1.5.0", "mcpdelta-fx-extra": "2.0.0"}


def test_uv_asks_the_index_once_about_a_page_and_again_for_a_cut_off_younger_than_it(tmp_path):
    """An index that says nothing of its pages' freshness (a mirror; the
    stand-in says ``no-cache``): a page uv fetched is read from its cache for
    ten minutes, as pypi.org's own pages say, so a second release sharing a
    dependency does not ask about it again. A release published since the
    page was fetched, needing a dependency newer than the page lists, still
    resolves as of its publish date: its cut-off is younger than ten minutes,
    and its install asks again."""
    idx = LocalIndex()
    idx.add("mcpdelta-fx-one", "1.0.0", "2025-01-01T00:00:00Z", requires=["mcpdelta-fx-shared>=1"], server=True)
    idx.add("mcpdelta-fx-two", "1.0.0", "2025-02-01T00:00:00Z", requires=["mcpdelta-fx-shared>=1"], server=True)
    idx.add("mcpdelta-fx-shared", "1.0.0", "2024-12-01T00:00:00Z")
    idx.start()
    try:
        cache = PackageCache(tmp_path / "cache", 300, pypi_url=idx.url, python_installer="uv")
        for name, published in (("mcpdelta-fx-one", "2025-01-01T00:00:00Z"), ("mcpdelta-fx-two", "2025-02-01T00:00:00Z")):
            assert "retry" not in asyncio.run(cache.install("pypi", name, "1.0.0", published, None))
        asked = [path for path, _ in idx.requests if path.startswith("/simple/")]
        assert asked == ["/simple/mcpdelta-fx-one/", "/simple/mcpdelta-fx-shared/", "/simple/mcpdelta-fx-two/"]

        now = dt.datetime.now(dt.timezone.utc)
        stamp = (now - dt.timedelta(seconds=30)).strftime("%Y-%m-%dT%H:%M:%SZ")
        idx.add("mcpdelta-fx-shared", "2.0.0", stamp)
        idx.add("mcpdelta-fx-new", "1.0.0", stamp, requires=["mcpdelta-fx-shared>=2"], server=True)
        info = asyncio.run(cache.install("pypi", "mcpdelta-fx-new", "1.0.0", stamp, None))
        assert "retry" not in info
        assert _freeze(Path(info["argv"][0]).parent.parent)["mcpdelta-fx-shared"] == "2.0.0"
    finally:
        idx.stop()


def test_without_uv_pip_installs_and_the_record_says_so(tmp_path, index, monkeypatch):
    monkeypatch.setenv("MCPDELTA_UV", str(tmp_path / "no-such-uv"))
    by, cache = sweep(tmp_path, index, """
  - {id: late, package: {registry: pypi, name: mcpdelta-fx-late, versions: latest}}
""")
    rec = by["late"]
    assert rec.ok, rec.error
    assert "No matching distribution found" in rec.install_retry  # pip's words: pip installed it
    warned = [w for w in rec.warnings if "installed with pip instead" in w]
    assert len(warned) == 1 and "no-such-uv" in warned[0]
    folder = cache.install_dir("pypi", "mcpdelta-fx-late", "1.0.0", "2025-01-01T00:00:00Z", None)
    assert json.loads((folder / "install.json").read_text())["installer"] == "pip"
    # the cached install is reused without a word: the warning belongs to the install that met it
    again, _ = sweep(tmp_path, index, """
  - {id: late, package: {registry: pypi, name: mcpdelta-fx-late, versions: latest}}
""", recapture=True)
    assert again["late"].ok and not any("pip instead" in w for w in again["late"].warnings)


def test_a_uv_too_old_for_the_index_settings_is_passed_over_for_pip_and_said(tmp_path, monkeypatch):
    """A uv older than 0.8 cannot read the index's cache-control setting
    every uv install passes it: pip installs instead, and the warning says
    which uv was found and why it was passed over."""
    old = tmp_path / "uv"
    old.write_text("#!/bin/sh\necho 'uv 0.7.3 (0000000 2025-05-01)'\n")
    old.chmod(0o755)
    monkeypatch.setenv("MCPDELTA_UV", str(old))
    kind, uv, warning = PackageCache(tmp_path / "cache", 60).python_installer()
    assert (kind, uv) == ("pip", None)
    assert f"{old} is uv 0.7.3, older than the 0.8.0 needed" in warning and "installed with pip instead" in warning
    old.write_text("#!/bin/sh\necho 'uv 0.13.9'\n")
    assert PackageCache(tmp_path / "cache", 60).python_installer() == ("uv", str(old), None)


def test_release_installs_frees_the_disk(tmp_path, index):
    by, cache = sweep(tmp_path, index, """
  - {id: late, package: {registry: pypi, name: mcpdelta-fx-late, versions: latest}}
""", release_installs=True)
    assert by["late"].ok
    assert not list(cache.dir("pypi", "mcpdelta-fx-late").glob("1.0.0~*"))


def test_download_cache_is_pruned_under_its_bound(tmp_path):
    cache = PackageCache(tmp_path / "cache", 60, download_cache_bytes=10_000)
    pip = cache.downloads("pip")
    pip.mkdir(parents=True)
    for i in range(10):
        (pip / f"blob{i}").write_bytes(b"x" * 3000)
    cache.prune_downloads()
    left = sum(p.stat().st_size for p in pip.iterdir())
    assert 0 < left <= 8_000


def test_the_download_caches_are_measured_once_a_minute_by_every_crawl_sharing_them(tmp_path):
    """Two crawls (two PackageCache objects, as two processes) after an
    install each: the first measures and prunes, the second, within the
    minute, leaves the caches alone; once the stamp is a minute old, the next
    one measures again."""
    import os
    import time

    def fill(folder):
        folder.mkdir(parents=True, exist_ok=True)
        for i in range(10):
            (folder / f"blob{i}").write_bytes(b"x" * 3000)
        return lambda: sum(p.stat().st_size for p in folder.iterdir())

    first = PackageCache(tmp_path / "cache", 60, download_cache_bytes=10_000)
    size = fill(first.downloads("pip"))
    asyncio.run(first.keep_downloads_bounded())
    assert 0 < size() <= 8_000
    fill(first.downloads("pip"))
    second = PackageCache(tmp_path / "cache", 60, download_cache_bytes=10_000)
    asyncio.run(second.keep_downloads_bounded())
    assert size() == 30_000  # measured less than a minute ago, by the first
    stamp = tmp_path / "cache" / "downloads" / ".measured"
    os.utime(stamp, (time.time() - 61, time.time() - 61))
    asyncio.run(second.keep_downloads_bounded())
    assert 0 < size() <= 8_000


def test_uv_cache_over_its_bound_is_cleared_and_installs_keep_their_files(tmp_path, index):
    import subprocess

    cache = PackageCache(tmp_path / "cache", 300, pypi_url=index.url, download_cache_bytes=1000)
    info = asyncio.run(cache.install("pypi", "mcpdelta-fx-late", "1.0.0", "2025-01-01T00:00:00Z", None))
    assert info["installer"] == "uv"
    uv_cache = cache.downloads("uv")
    assert sum(p.stat().st_size for p in uv_cache.rglob("*") if p.is_file()) <= 1000
    # the venv's files were hard links into the cache: they outlive it
    done = subprocess.run([info["argv"][0], "-c", "import mcpdelta_fx_late, mcpdelta_fx_dep; "
                           "print(mcpdelta_fx_dep.VERSION)"], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == "2.0.0", done.stderr


def _offline(tmp_path, cache_dir, entries, **kw):
    servers = write(tmp_path / "servers.yaml", "servers:\n" + entries)
    targets, _ = load(servers)
    cache = PackageCache(cache_dir, 60, offline=True)
    return asyncio.run(crawl(targets, fast_limits(), tmp_path / "out", cache=cache, **kw))


def test_prereleases_only_are_taken_and_said(tmp_path):
    cache = tmp_path / "cache"
    _fake_cached_package(cache, ["0.1.0a1", "0.1.0b1", "0.2.0rc1"])
    records = _offline(tmp_path, cache, """
  - {id: fake, package: {registry: npm, name: fake-mcp, versions: "last 2"}}
  - {id: ranged, package: {registry: npm, name: fake-mcp, versions: ">=1"}}
""")
    taken = sorted(r.version for r in records if r.id == "fake")
    assert taken == ["0.1.0b1", "0.2.0rc1"]
    assert all(any("no stable release: took 2 of its 3 pre-release(s)" in w for w in r.warnings)
               for r in records if r.id == "fake")
    ranged, = [r for r in records if r.id == "ranged"]
    assert not ranged.ok and "3 pre-release(s)" in ranged.error


def test_a_sweep_skips_what_it_captured_and_captures_what_is_new(tmp_path):
    cache = tmp_path / "cache"
    _fake_cached_package(cache, ["1.0.0", "1.1.0"])
    entry = "  - {id: fake, package: {registry: npm, name: fake-mcp, versions: all}}\n"
    first = _offline(tmp_path, cache, entry)
    assert sorted(r.version for r in first if r.ok) == ["1.0.0", "1.1.0"]
    # a release published since: the cache (as an online look-up would) now lists it
    versions = json.loads((cache / "npm" / "fake-mcp" / "versions.json").read_text())
    import shutil
    shutil.rmtree(cache / "npm" / "fake-mcp")
    _fake_cached_package(cache, list(versions) + ["1.2.0"])
    skipped = []
    second = _offline(tmp_path, cache, entry, skipped=skipped)
    assert [r.version for r in second] == ["1.2.0"] and second[0].ok
    assert sorted(skipped) == [("fake", "1.0.0"), ("fake", "1.1.0")]
    rows = [json.loads(x) for x in (tmp_path / "out" / "crawl-log.jsonl").read_text().splitlines()]
    assert [r["version"] for r in rows].count("1.0.0") == 1 and len(rows) == 3  # the log is appended to
    again = _offline(tmp_path, cache, entry, recapture=True)
    assert sorted(r.version for r in again) == ["1.0.0", "1.1.0", "1.2.0"]


# -- npm, against a registry stand-in ----------------------------------------------
@pytest.fixture
def npm_registry(monkeypatch, tmp_path):
    import shutil

    from .servers.local_npm import LocalNpm

    if not shutil.which("npm"):
        pytest.skip("npm is not installed")
    reg = LocalNpm()
    reg.add("mcpdelta-fx-npm", "1.0.0", "2025-01-01T00:00:00.000Z",
            dependencies={"mcpdelta-fx-npmdep": "^2.0.0"}, server=True)
    reg.add("mcpdelta-fx-npmdep", "1.0.0", "2024-12-01T00:00:00.000Z")
    reg.add("mcpdelta-fx-npmdep", "2.0.0", "2025-01-03T00:00:00.000Z")  # two days after the release
    reg.serve(monkeypatch, tmp_path)
    yield reg
    reg.stop()


def test_npm_etarget_gets_a_second_try_and_a_failed_lookup_says_why(tmp_path, npm_registry):
    servers = write(tmp_path / "servers.yaml", """servers:
  - {id: npm-late, package: {registry: npm, name: mcpdelta-fx-npm, versions: latest}}
  - {id: npm-missing, package: {registry: npm, name: mcpdelta-fx-no-such, versions: latest}}
""")
    targets, _ = load(servers)
    cache = PackageCache(tmp_path / "cache", 300)
    records = asyncio.run(crawl(targets, fast_limits(total_timeout_s=300), tmp_path / "out", cache=cache))
    by = {r.id: r for r in records}
    late, missing = by["npm-late"], by["npm-missing"]
    assert late.ok, late.error
    assert late.manifest["tools"][0]["name"] == "hello"
    assert late.install_retry and "ETARGET" in late.install_retry and "mcpdelta-fx-npmdep" in late.install_retry
    assert not missing.ok and missing.error_kind == "version_lookup"
    assert "E404" in missing.error and "complete log" not in missing.error


def test_npm_installs_as_users_get_them_or_say_what_the_registry_lacks(tmp_path, npm_registry):
    reg = npm_registry
    # a dependency only published two months after the release: a week is not enough, today's is
    reg.add("mcpdelta-fx-farlate", "1.0.0", "2025-01-01T00:00:00.000Z",
            dependencies={"mcpdelta-fx-farlatedep": "^3.0.0"}, server=True)
    reg.add("mcpdelta-fx-farlatedep", "3.0.0", "2025-03-01T00:00:00.000Z")
    # a pinned dependency the registry never had
    reg.add("mcpdelta-fx-absent", "1.0.0", "2025-01-01T00:00:00.000Z",
            dependencies={"mcpdelta-fx-npmdep": "9.9.9"}, server=True)
    # a scoped bin key: npm links it by its last part
    reg.add("@mcpdelta-fx/scoped", "1.0.0", "2025-01-01T00:00:00.000Z", server=True)
    # a bin naming a file the package does not ship
    reg.add("mcpdelta-fx-nobinfile", "1.0.0", "2025-01-01T00:00:00.000Z", server=True,
            bin_file="dist/missing.js")
    # a lifecycle script that runs a package through npx, as `npx only-allow` does
    reg.add("mcpdelta-fx-helper", "1.0.0", "2024-12-01T00:00:00.000Z", server=True)
    reg.add("mcpdelta-fx-npx", "1.0.0", "2025-01-01T00:00:00.000Z", server=True,
            scripts={"preinstall": "npx mcpdelta-fx-helper --version < /dev/null"})
    servers = write(tmp_path / "servers.yaml", """servers:
  - {id: farlate, package: {registry: npm, name: mcpdelta-fx-farlate, versions: latest}}
  - {id: absent, package: {registry: npm, name: mcpdelta-fx-absent, versions: latest}}
  - {id: scoped, package: {registry: npm, name: "@mcpdelta-fx/scoped", versions: latest}}
  - {id: nobinfile, package: {registry: npm, name: mcpdelta-fx-nobinfile, versions: latest}}
  - {id: npx, package: {registry: npm, name: mcpdelta-fx-npx, versions: latest}}
""")
    targets, _ = load(servers)
    cache = PackageCache(tmp_path / "cache", 300)
    records = asyncio.run(crawl(targets, fast_limits(total_timeout_s=300), tmp_path / "out", cache=cache))
    by = {r.id: r for r in records}
    farlate = by["farlate"]
    assert farlate.ok, farlate.error
    assert farlate.install_retry.startswith("installed with no cut-off")
    assert "mcpdelta-fx-farlatedep" in farlate.install_retry
    absent = by["absent"]
    assert not absent.ok and absent.error_kind == "install_failed"
    assert "mcpdelta-fx-npmdep@9.9.9" in absent.error and "the registry does not hold it" in absent.error
    assert "first, as of its release" in absent.error and "days after the release" in absent.error
    assert by["scoped"].ok, by["scoped"].error
    assert by["scoped"].manifest["tools"][0]["name"] == "hello"
    nobin = by["nobinfile"]
    assert not nobin.ok and nobin.error_kind == "install_failed"
    assert "dist/missing.js" in nobin.error and "lacks" in nobin.error
    assert by["npx"].ok, by["npx"].error


def test_a_dated_npm_install_reads_documents_fetched_after_its_cut_off_from_the_cache(tmp_path, npm_registry):
    """npm's package documents fetched since the cache was started list every
    version published before then: an install dated earlier takes them from
    the cache, one dated later asks the registry again."""
    import datetime as dt

    reg = npm_registry
    reg.add("mcpdelta-fx-dated-a", "1.0.0", "2025-01-01T00:00:00.000Z", dependencies={"mcpdelta-fx-npmdep": "^1.0.0"},
            server=True)
    reg.add("mcpdelta-fx-dated-b", "1.0.0", "2025-01-02T00:00:00.000Z", dependencies={"mcpdelta-fx-npmdep": "^1.0.0"},
            server=True)
    now = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    reg.add("mcpdelta-fx-dated-c", "1.0.0", now, dependencies={"mcpdelta-fx-npmdep": "^1.0.0"}, server=True)
    cache = PackageCache(tmp_path / "cache", 300)

    def asked_for_dependency(name: str, published: str) -> bool:
        seen = len(reg.requests)
        asyncio.run(cache.install("npm", name, "1.0.0", published, None))
        return "/mcpdelta-fx-npmdep" in {path for path, _ in reg.requests[seen:]}

    assert asked_for_dependency("mcpdelta-fx-dated-a", "2025-01-01T00:00:00.000Z")  # an empty cache
    assert not asked_for_dependency("mcpdelta-fx-dated-b", "2025-01-02T00:00:00.000Z")
    assert asked_for_dependency("mcpdelta-fx-dated-c", now)  # published after the cache began


def test_a_server_asking_for_another_node_gets_it_from_the_registry_at_install_and_start(tmp_path, npm_registry):
    """``node: "N"`` for an N the machine lacks: Node.js N comes from the npm
    registry once (the stand-in's is the machine's node, marked), install
    scripts and the server run on it, a second crawl offline reuses it, and
    a major the registry lacks is a clear install failure."""
    import subprocess

    reg = npm_registry
    machine = int(subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
                  .lstrip("v").split(".")[0])
    other = machine + 1
    reg.add_node(other, "2025-01-01T00:00:00.000Z")
    reg.add("mcpdelta-fx-newnode", "1.0.0", "2025-02-01T00:00:00.000Z", server=True, scripts={
        "postinstall": "node -e \"require('fs').writeFileSync('node-at-install', process.env.MCPDELTA_FX_NODE || 'machine')\""})
    servers = write(tmp_path / "servers.yaml", f"""servers:
  - {{id: newnode, node: "{other}", package: {{registry: npm, name: mcpdelta-fx-newnode, versions: latest}}}}
  - {{id: ownnode, node: "{machine}", package: {{registry: npm, name: mcpdelta-fx-npm, versions: latest}}}}
  - {{id: nonode, node: "{other + 1}", package: {{registry: npm, name: mcpdelta-fx-npm, versions: latest}}}}
""")
    targets, _ = load(servers)
    cache = PackageCache(tmp_path / "cache", 300)
    by = {r.id: r for r in asyncio.run(crawl(targets, fast_limits(total_timeout_s=300), tmp_path / "out",
                                               cache=cache))}
    new = by["newnode"]
    assert new.ok, new.error
    assert new.node == f"v{other}.0.0" and new.manifest["serverInfo"]["runtime"] == str(other)
    installed = cache.install_dir("npm", "mcpdelta-fx-newnode", "1.0.0", new.published_at, None, node=str(other))
    assert (installed / "node_modules" / "mcpdelta-fx-newnode" / "node-at-install").read_text() == str(other)
    own = by["ownnode"]  # the machine's node is that major: used as it is
    assert own.ok and own.node.startswith(f"v{machine}.") and "runtime" not in own.manifest["serverInfo"]
    assert not by["nonode"].ok and by["nonode"].error_kind == "install_failed"
    assert f"Node.js {other + 1}" in by["nonode"].error
    assert "at any date" not in by["nonode"].error  # a missing Node.js is not retried as a late dependency
    again = asyncio.run(crawl(targets[:1], fast_limits(), tmp_path / "again",
                              cache=PackageCache(tmp_path / "cache", 300, offline=True)))
    assert again[0].ok and again[0].manifest["serverInfo"]["runtime"] == str(other), again[0].error


def test_an_install_of_the_unkeyed_layout_is_reused_only_with_default_options(tmp_path):
    root = tmp_path / "cache" / "npm" / "fake-mcp"
    (root / "1.0.0").mkdir(parents=True)
    (root / "1.0.0" / "install.json").write_text(json.dumps(
        {"argv": ["node_modules/.bin/fake-mcp"], "published_at": "2025-01-01T00:00:00Z"}))
    cache = PackageCache(tmp_path / "cache", 60, offline=True)
    info = asyncio.run(cache.install("npm", "fake-mcp", "1.0.0", "2025-01-01T00:00:00Z", None))
    assert info["argv"] == [str(root / "1.0.0" / "node_modules/.bin/fake-mcp")]
    for published, bin_name in (("2025-02-01T00:00:00Z", None), ("2025-01-01T00:00:00Z", "other")):
        with pytest.raises(Exception, match="not in the cache"):
            asyncio.run(cache.install("npm", "fake-mcp", "1.0.0", published, bin_name))


# -- look-ups -----------------------------------------------------------------------
def test_a_second_lookup_pass_with_nothing_new_moves_no_lists(tmp_path, npm_registry, index):
    """Look-ups send back the validators of the last answer: a registry with
    nothing new answers 304 and the kept list is used; a package that gained
    a release answers in full; a name npm cannot find is said in npm's words."""
    cache = PackageCache(tmp_path / "cache", 60, pypi_url=index.url)
    packages = [("npm", "mcpdelta-fx-npm"), ("pypi", "mcpdelta-fx-dep"), ("npm", "mcpdelta-fx-no-such")]

    def lookup_pass():
        npm_seen, pypi_seen = len(npm_registry.requests), len(index.requests)
        found = asyncio.run(cache.published_many(packages, concurrency=3))
        asked = npm_registry.requests[npm_seen:] + index.requests[pypi_seen:]
        return found, {path: status for path, status in asked}

    (npm, pypi, missing), asked = lookup_pass()
    assert npm == {"1.0.0": "2025-01-01T00:00:00.000Z"}
    assert pypi == {"1.0.0": "2024-12-01T00:00:00Z", "2.0.0": "2025-01-03T00:00:00Z"}
    assert "E404" in missing.message
    assert asked == {"/mcpdelta-fx-npm": 200, "/pypi/mcpdelta-fx-dep/json": 200, "/mcpdelta-fx-no-such": 404}

    again, asked = lookup_pass()
    assert again[:2] == [npm, pypi] and "E404" in again[2].message
    assert asked == {"/mcpdelta-fx-npm": 304, "/pypi/mcpdelta-fx-dep/json": 304, "/mcpdelta-fx-no-such": 404}

    npm_registry.add("mcpdelta-fx-npm", "1.1.0", "2025-02-01T00:00:00.000Z", server=True)
    (npm, _, _), asked = lookup_pass()
    assert asked["/mcpdelta-fx-npm"] == 200 and npm["1.1.0"] == "2025-02-01T00:00:00.000Z"
    assert json.loads((cache.dir("npm", "mcpdelta-fx-npm") / "versions.json").read_text()) == npm


def test_a_scope_is_looked_up_where_npm_is_told_to_look(tmp_path, npm_registry, monkeypatch):
    npm_registry.add("@mcpdelta-fx/scoped", "1.0.0", "2025-01-01T00:00:00.000Z", server=True)
    (tmp_path / "npmrc").write_text(f"@mcpdelta-fx:registry={npm_registry.url}\n")
    monkeypatch.setenv("npm_config_registry", "http://127.0.0.1:9/")  # nothing listens there
    cache = PackageCache(tmp_path / "cache", 60)
    assert asyncio.run(cache.published("npm", "@mcpdelta-fx/scoped")) == {"1.0.0": "2025-01-01T00:00:00.000Z"}
    assert [status for path, status in npm_registry.requests if path.lower() == "/@mcpdelta-fx%2fscoped"] == [200]


def test_installs_run_ahead_of_captures(tmp_path, npm_registry):
    """One capture at a time, two installs: the second release is installed
    while the first is being captured, not after (servers that take three
    seconds to start make the captures the long part)."""
    from .servers.local_npm import SERVER_JS

    slow = "#!/usr/bin/env node\nsetTimeout(() => require('./server.js'), 3000);\n"
    for name in ("mcpdelta-fx-slow-a", "mcpdelta-fx-slow-b"):
        npm_registry.add(name, "1.0.0", "2025-01-01T00:00:00.000Z", files={"server.js": SERVER_JS, "slow.js": slow},
                         bins={name: "slow.js"})
    servers = write(tmp_path / "servers.yaml", """servers:
  - {id: a, package: {registry: npm, name: mcpdelta-fx-slow-a, versions: latest}}
  - {id: b, package: {registry: npm, name: mcpdelta-fx-slow-b, versions: latest}}
""")
    targets, _ = load(servers)
    cache = PackageCache(tmp_path / "cache", 300)
    records = asyncio.run(crawl(targets, fast_limits(concurrency=1, install_concurrency=2), tmp_path / "out",
                                cache=cache))
    assert all(r.ok for r in records), [r.error for r in records]
    import datetime as dt

    def ended(rec) -> float:
        start = dt.datetime.fromisoformat(rec.captured_at.replace("Z", "+00:00")).timestamp()
        return start + rec.duration_ms / 1000

    installed = [(cache.install_dir("npm", f"mcpdelta-fx-slow-{r.id}", "1.0.0", r.published_at, None)
                  / "install.json").stat().st_mtime for r in records]
    assert max(installed) < min(ended(r) for r in records)
    assert max(r.capture_ms for r in records) >= 3000


def test_a_registry_this_client_cannot_reach_is_asked_through_npm(tmp_path, npm_registry, monkeypatch):
    """npm may reach its registry where a plain client does not (here through
    the proxy its config names): a look-up that cannot connect asks npm."""
    monkeypatch.setenv("npm_config_registry", "http://127.0.0.1:9/")  # nothing listens there ...
    monkeypatch.setenv("npm_config_proxy", npm_registry.url)          # ... but npm's proxy answers for it
    cache = PackageCache(tmp_path / "cache", 60)
    assert asyncio.run(cache.published("npm", "mcpdelta-fx-npm")) == {"1.0.0": "2025-01-01T00:00:00.000Z"}
    assert ("/mcpdelta-fx-npm", 200) in npm_registry.requests


def test_a_relative_cache_folder_serves_a_server_run_from_its_own_folder(tmp_path, index):
    """``mcpdelta crawl --cache cache`` from one folder, a server whose ``cwd``
    is another: the installed command is found (it is run from the server's
    folder, so the cache is taken as an absolute path)."""
    import os
    import subprocess

    (tmp_path / "elsewhere").mkdir()
    write(tmp_path / "servers.yaml", """servers:
  - {id: late, package: {registry: pypi, name: mcpdelta-fx-late, versions: latest}, cwd: elsewhere}
""")
    done = subprocess.run([sys.executable, "-m", "mcpdelta", "crawl", "--servers", "servers.yaml", "--out", "out",
                           "--cache", "cache"], cwd=tmp_path, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "MCPDELTA_PYPI_URL": index.url})
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [json.loads(line) for line in (tmp_path / "out" / "crawl-log.jsonl").read_text().splitlines()]
    assert [(r["id"], r["ok"]) for r in rows] == [("late", True)]
    assert (tmp_path / "cache" / "pypi").is_dir()  # the cache is where it was asked to be


def test_a_release_without_a_console_script_or_with_a_huge_list_says_so(tmp_path, index):
    index.add("mcpdelta-fx-huge", "1.0.0", "2025-01-01T00:00:00Z", server=True, entry_points_padding=2 << 20)
    by, _ = sweep(tmp_path, index, """
  - {id: library, package: {registry: pypi, name: mcpdelta-fx-dep, versions: ["1.0.0"]}}
  - {id: spelled, package: {registry: pypi, name: MCPDelta_FX.Late, versions: latest}}
  - {id: huge, package: {registry: pypi, name: mcpdelta-fx-huge, versions: latest}}
""")
    assert not by["huge"].ok and by["huge"].error_kind == "install_failed"
    assert "entry_points.txt is 2,097," in by["huge"].error and "over the 1,048,576 read" in by["huge"].error
    assert not by["library"].ok and by["library"].error_kind == "install_failed"
    assert by["library"].error.endswith("mcpdelta-fx-dep==1.0.0 declares no console script")
    assert by["spelled"].ok, by["spelled"].error  # its metadata found under the name as the index spells it


def test_an_installed_package_runs_in_its_captures_own_folder(tmp_path, index):
    """What a package server writes in its working folder stays out of the
    servers file's folder, unless the entry names a ``cwd`` (then there)."""
    (tmp_path / "elsewhere").mkdir()
    records, _ = sweep(tmp_path, index, """
  - {id: late, package: {registry: pypi, name: mcpdelta-fx-late, versions: latest}}
  - {id: placed, package: {registry: pypi, name: mcpdelta-fx-late, versions: latest}, cwd: elsewhere}
""")
    assert records["late"].ok and records["placed"].ok
    assert (tmp_path / "elsewhere" / "server-was-here.log").is_file()  # the server does write
    assert not (tmp_path / "server-was-here.log").exists()

