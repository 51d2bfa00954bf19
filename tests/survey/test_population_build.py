"""scripts/ecosystem: the candidates chosen from the package lists and
their classification, on small named inputs."""

import json

import yaml

from scripts.ecosystem import candidates, classify

NPM = """name\tversion\tdownloads_a_month\tsummary
weather-mcp\t1.2.0\t300\tMCP server for weather
quiet-mcp\t0.1.0\t299\tbelow the cut
MCPish\t2.0.0\t9000\tcapital letters
leftpad\t1.0.0\t900000\tnot named for MCP
"""
PYPI = """name\tversion\tmonth\trank_among_15000_most_downloaded\tsummary
ranked-mcp\t0.1.0\t2024-01\t5\ta library, ranked
busy-mcp-server\t0.4.12\t2026-10\t\tAn MCP server with many releases
fresh-mcp-server\t0.1.0\t2026-11\t\tAn MCP server, new
client-mcp\t3.0.0\t2026-10\t\tan MCP client
stale-mcp-server\t9.9.9\t2025-01\t\tAn MCP server, last released long ago
"""


def test_the_candidates_follow_the_lists_and_keep_the_earlier_ones_first(tmp_path):
    (tmp_path / "npm.tsv").write_text(NPM)
    (tmp_path / "pypi.tsv").write_text(PYPI)
    earlier = [{"registry": "npm", "name": "older-server", "latest": "1.0.0", "popularity": "", "summary": ""},
               {"registry": "npm", "name": "weather-mcp", "latest": "1.0.0", "popularity": "", "summary": ""}]
    rows = candidates.choose(str(tmp_path / "npm.tsv"), str(tmp_path / "pypi.tsv"), earlier)
    assert [(r["registry"], r["name"]) for r in rows] == [
        ("npm", "older-server"), ("npm", "weather-mcp"),          # the earlier list, first, once
        ("npm", "MCPish"),                                         # 300+ downloads, most first
        ("pypi", "ranked-mcp"),                                    # ranked: in whatever its summary
        ("pypi", "busy-mcp-server"), ("pypi", "fresh-mcp-server")]  # says server, recent, most releases first
    only_one = candidates.pypi_candidates(str(tmp_path / "pypi.tsv"), extra=1)
    assert [r["name"] for r in only_one] == ["ranked-mcp", "busy-mcp-server"]


def test_a_release_count_is_estimated_from_the_version():
    assert candidates.release_estimate("0.4.12") == 16
    assert candidates.release_estimate("1.0.0") == 1
    assert candidates.release_estimate("2026.3.1") == 50
    assert candidates.release_estimate("dev") == 0


def npm_meta(bins, deps=None):
    times = {"1.0.0": "2026-03-01T00:00:00Z", "1.1.0": "2026-06-01T00:00:00Z"}
    return {"bin": bins, "dependencies": deps or {}, "deprecated": None, "time": times,
            "version_bins": {v: classify.bin_names("x", bins) for v in times}}


def pypi_meta(entry_points, requires=(), wheel="x-1.0-py3-none-any.whl"):
    return {"entry_points": entry_points, "requires_dist": list(requires), "wheel": wheel,
            "requires_python": None, "time": {"0.3.0": "2026-05-01T00:00:00Z"}}


def _population(tmp_path, monkeypatch):
    """A checkout's data folders under ``tmp_path``, where classify reads and writes."""
    data = tmp_path / "data" / "ecosystem"
    data.mkdir(parents=True)
    (tmp_path / "data" / "servers").mkdir()
    monkeypatch.setattr(classify, "ROOT", tmp_path)
    monkeypatch.setattr(classify, "HERE", data)
    return data


def test_the_automatic_rules_and_the_earlier_population(tmp_path, monkeypatch):
    data = _population(tmp_path, monkeypatch)
    (data / "judgements.tsv").write_text("registry\tpackage\tclass\treason\tnote\n"
                                         "npm\tcli-mcp\tnot-a-server\tclient or developer tool\t\n")
    (data / "recipes.yaml").write_text("recipes:\n  npm:kept-mcp: {env: {TOKEN: x}}\n")
    # the earlier population: kept-mcp planned at 0.9.0 and 1.0.0 (the registry now says otherwise)
    (data / "classification.tsv").write_text(
        "registry\tpackage\tclass\tevidence\treason_if_excluded\trecipe_notes\n"
        "npm\tkept-mcp\tserver\tbin: kept-mcp; no MCP server SDK dep\t\t2 releases planned\n")
    (tmp_path / "data" / "servers" / "ecosystem.yaml").write_text(yaml.safe_dump({"servers": [
        {"id": "kept-old-id", "package": {"registry": "npm", "name": "kept-mcp", "versions": ["0.9.0", "1.0.0", ">1.0.0"]}}]}))
    metas = {("npm", "kept-mcp"): npm_meta({"kept-mcp": "x.js"}),
             ("npm", "bin-mcp"): npm_meta("cli.js"),                                   # a bare bin path: an executable
             ("npm", "lib-mcp"): npm_meta(None, {"@modelcontextprotocol/sdk": "^1"}),  # an SDK but no executable
             ("npm", "cli-mcp"): npm_meta({"cli-mcp": "x.js"}),                        # judged by hand
             ("pypi", "bin-mcp"): pypi_meta("[console_scripts]\nbin-mcp = bin_mcp:main\n", ["mcp>=1.2"]),
             ("pypi", "nowheel-mcp"): pypi_meta(None, wheel=None)}
    meta = tmp_path / "meta"
    for (reg, name), body in metas.items():
        path = classify.meta_file(meta, reg, name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(body))
    cands = tmp_path / "candidates.tsv"
    cands.write_text("registry\tname\tlatest\tpopularity\tsummary\n"
                     + "".join(f"{reg}\t{name}\t\t\t\n" for reg, name in metas))
    assert classify.main(["build", "--meta", str(meta), "--candidates", str(cands)]) == 0
    rows = classify.read_tsv(data / "classification.tsv")
    assert {k: r["class"] for k, r in rows.items()} == {
        ("npm", "kept-mcp"): "server", ("npm", "bin-mcp"): "server", ("npm", "lib-mcp"): "not-a-server",
        ("npm", "cli-mcp"): "not-a-server", ("pypi", "bin-mcp"): "server", ("pypi", "nowheel-mcp"): "not-a-server"}
    assert rows[("npm", "kept-mcp")]["recipe_notes"] == "2 releases planned"   # the earlier row, as it was
    assert rows[("npm", "lib-mcp")]["evidence"] == "no bin; server SDK dep: @modelcontextprotocol/sdk"
    assert rows[("npm", "cli-mcp")]["reason_if_excluded"] == "client or developer tool"
    assert rows[("pypi", "bin-mcp")]["evidence"] == "console_scripts: bin-mcp; server SDK dep: mcp"
    assert rows[("pypi", "nowheel-mcp")]["evidence"].startswith("no wheel on PyPI")
    servers = yaml.safe_load((tmp_path / "data" / "servers" / "ecosystem.yaml").read_text())["servers"]
    assert [(s["id"], s["package"]["versions"]) for s in servers] == [
        ("kept-old-id", ["0.9.0", "1.0.0", ">1.0.0"]),           # its id and releases kept, its recipe applied
        ("bin-mcp", ["1.0.0", "1.1.0", ">1.1.0"]),
        ("bin-mcp-pypi", ["0.3.0", ">0.3.0"])]                    # the later of two equal ids named for its registry
    assert servers[0]["env"] == {"TOKEN": "x"}


def test_a_rebuild_without_metadata_applies_new_judgements_to_the_earlier_population(tmp_path, monkeypatch):
    # every candidate classified before: no registry metadata is needed, and a
    # judgement or an exclude written since takes a server out of the plan
    data = _population(tmp_path, monkeypatch)
    (data / "judgements.tsv").write_text("registry\tpackage\tclass\treason\tnote\n"
                                         "pypi\tchat-mcp\tnot-a-server\tclient or developer tool\t\n")
    (data / "recipes.yaml").write_text("recipes:\n"
                                       "  npm:kept-mcp: {args: [stdio]}\n"
                                       "  npm:remote-mcp: {exclude: needs a remote service (its API at start)}\n")
    evidence = "bin: x; no MCP server SDK dep"
    (data / "classification.tsv").write_text(
        "registry\tpackage\tclass\tevidence\treason_if_excluded\trecipe_notes\n"
        f"npm\tkept-mcp\tserver\t{evidence}\t\treleases: 3 without an executable left out; 2 releases planned\n"
        f"npm\tremote-mcp\tserver\t{evidence}\t\t1 releases planned\n"
        f"pypi\tchat-mcp\tserver\t{evidence}\t\t1 releases planned\n")
    (tmp_path / "data" / "servers" / "ecosystem.yaml").write_text(yaml.safe_dump({"servers": [
        {"id": "kept-mcp", "package": {"registry": "npm", "name": "kept-mcp", "versions": ["0.9.0", "1.0.0", ">1.0.0"]}},
        {"id": "remote-mcp", "package": {"registry": "npm", "name": "remote-mcp", "versions": ["2.0.0", ">2.0.0"]}},
        {"id": "chat-mcp", "package": {"registry": "pypi", "name": "chat-mcp", "versions": ["0.1.0", ">0.1.0"]}}]}))
    cands = tmp_path / "candidates.tsv"
    cands.write_text("registry\tname\tlatest\tpopularity\tsummary\n"
                     "npm\tkept-mcp\t\t\t\nnpm\tremote-mcp\t\t\t\npypi\tchat-mcp\t\t\t\n")
    assert classify.main(["build", "--meta", str(tmp_path / "no-meta"), "--candidates", str(cands)]) == 0
    rows = classify.read_tsv(data / "classification.tsv")
    assert {k: (r["class"], r["reason_if_excluded"], r["evidence"]) for k, r in rows.items()} == {
        ("npm", "kept-mcp"): ("server", "", evidence),
        ("npm", "remote-mcp"): ("excluded", "needs a remote service (its API at start)", evidence),
        ("pypi", "chat-mcp"): ("not-a-server", "client or developer tool", evidence)}
    text = (tmp_path / "data" / "servers" / "ecosystem.yaml").read_text()
    assert "release: 3 such releases" in text  # counted from the rows kept, not from metadata
    servers = yaml.safe_load(text)["servers"]
    assert servers == [{"id": "kept-mcp", "package": {"registry": "npm", "name": "kept-mcp",
                                                      "versions": ["0.9.0", "1.0.0", ">1.0.0"]}, "args": ["stdio"]}]
    # a candidate never classified still needs its metadata: nothing is written
    cands.write_text(cands.read_text() + "npm\tnew-mcp\t\t\t\n")
    before = (data / "classification.tsv").read_text()
    assert classify.main(["build", "--meta", str(tmp_path / "no-meta"), "--candidates", str(cands)]) == 2
    assert (data / "classification.tsv").read_text() == before
