"""Every notebook under notebooks/ executed end to end (nbclient, a real
kernel) against a lake built in the test, its parameters injected after its
`parameters` cell as papermill does: a failing cell fails the test."""

import pathlib

import jupytext
import nbclient
import nbformat
import pytest

from tests.conftest import ROOT

NOTEBOOKS = ROOT / "notebooks"
EXPECTED = ("rule_frequencies", "semver_honesty", "description_drift", "server_timeline")


def execute(path: pathlib.Path, **parameters):
    notebook = jupytext.read(path)
    tagged = [i for i, c in enumerate(notebook.cells) if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1, f"{path.name}: one cell tagged parameters"
    source = "\n".join(f"{name} = {value!r}" for name, value in parameters.items())
    notebook.cells.insert(tagged[0] + 1, nbformat.v4.new_code_cell(
        source, metadata={"tags": ["injected-parameters"]}))
    nbclient.NotebookClient(notebook, kernel_name="python3", timeout=120,
                            resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    return notebook


def outputs(notebook, mime):
    return [o["data"][mime] for c in notebook.cells if c.cell_type == "code"
            for o in c.get("outputs", []) if mime in o.get("data", {})]


def text(notebook):
    parts = []
    for cell in notebook.cells:
        for o in cell.get("outputs", []) if cell.cell_type == "code" else []:
            parts.append(o.get("text", "") + o.get("data", {}).get("text/plain", ""))
    return "\n".join(parts)


def test_the_notebooks_are_paired_plain_text_without_outputs():
    assert {p.stem for p in NOTEBOOKS.glob("*.py")} >= set(EXPECTED)
    for path in NOTEBOOKS.glob("*.py"):
        head = path.read_text()
        assert "formats: ipynb,py:percent" in head and "format_name: percent" in head, path.name
        assert 'tags=["parameters"]' in head, path.name
        # a parameters cell at the top: the lake path and a server filter
        params = head.split('tags=["parameters"]', 1)[1].split("# %%", 1)[0]
        assert "LAKE = " in params and "SERVERS = " in params, path.name
        # the notebooks ask sql/ queries, they do not carry copies of them
        # (every query goes through frame(con, "<sql/ name>"))
        assert not any(raw in head for raw in ("con.sql(", "con.execute(", "read_parquet", "duckdb.")), path.name
        assert "frame(con, " in head, path.name
    # outputs live only in the .ipynb side, which git ignores
    assert "*.ipynb" in (NOTEBOOKS / ".gitignore").read_text().splitlines()


@pytest.mark.parametrize("name", EXPECTED)
def test_notebook_runs_on_the_demo_lake(name, demo_lake):
    notebook = execute(NOTEBOOKS / f"{name}.py", LAKE=str(demo_lake), SERVERS=[])
    assert outputs(notebook, "image/png"), "a figure was drawn"
    out = text(notebook)
    assert "demo-notes" in out and "demo-weather" in out


@pytest.mark.parametrize("name", EXPECTED)
def test_notebook_runs_on_one_server_of_the_fixture_lake(name, fixture_lake):
    # alpha: an identical release (never diffed), no prose drift, no
    # under-bump; the filter keeps beta out of every table
    notebook = execute(NOTEBOOKS / f"{name}.py", LAKE=str(fixture_lake), SERVERS=["alph*"])
    assert outputs(notebook, "image/png")
    out = text(notebook)
    assert "beta" not in out and "forecast" not in out


@pytest.fixture(scope="module")
def undeclared_lake(tmp_path_factory):
    """A lake whose versions declare no bump: a calendar-versioned server
    that removed a tool (2025.1.1 -> 2025.2.1) and one whose version stops
    parsing (1.0.0 -> nightly), beside a semver server that under-bumped."""
    import json

    from mcpdelta.engine.policy import Policy
    from mcpdelta.lake import Lake
    from mcpdelta.lake.ingest import capture_row, store
    from mcpdelta.survey.diffstage import run_diff_stage

    def manifest(*tools):
        return json.dumps({"tools": [{"name": t, "inputSchema": {"type": "object"}} for t in tools]})

    root = tmp_path_factory.mktemp("undeclared") / "lake"
    store(Lake(str(root)), [
        capture_row(server, version, manifest(*tools), source="test", captured_at="2025-01-01T00:00:00Z")
        for server, version, tools in [
            ("dated", "2025.1.1", ("a", "b")), ("dated", "2025.2.1", ("a",)),
            ("named", "1.0.0", ("a", "b")), ("named", "nightly", ("a",)),
            ("plain", "1.0.0", ("a", "b")), ("plain", "1.0.1", ("a",))]])
    run_diff_stage(Lake(str(root)), Policy(), workers=1)
    return root


@pytest.mark.parametrize("name", ("semver_honesty", "server_timeline"))
def test_notebook_shows_versions_that_declare_no_bump(name, undeclared_lake):
    notebook = execute(NOTEBOOKS / f"{name}.py", LAKE=str(undeclared_lake), SERVERS=[])
    assert outputs(notebook, "image/png")
    out = text(notebook)
    assert "calver" in out and "unknown" in out


def test_a_server_filter_matching_nothing_fails_the_notebook(fixture_lake):
    with pytest.raises(nbclient.exceptions.CellExecutionError, match="matches none"):
        execute(NOTEBOOKS / "rule_frequencies.py", LAKE=str(fixture_lake), SERVERS=["nope"])


def test_nbconvert_executes_a_notebook_with_only_mcpdelta_lake_set(demo_lake, tmp_path):
    """As the README runs one: paired to .ipynb, executed by `jupyter
    nbconvert --execute`, nothing injected; the lake comes from the
    environment."""
    import json
    import os
    import subprocess
    import sys

    jupyter = pathlib.Path(sys.executable).with_name("jupyter")
    ipynb = tmp_path / "rule_frequencies.ipynb"
    jupytext.write(jupytext.read(NOTEBOOKS / "rule_frequencies.py"), ipynb)
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "MCPDELTA_LAKE": str(demo_lake)}
    done = subprocess.run([str(jupyter), "nbconvert", "--to", "notebook", "--execute", "--output",
                           "executed.ipynb", str(ipynb)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    executed = nbformat.reads((tmp_path / "executed.ipynb").read_text(), as_version=4)
    assert outputs(executed, "image/png")
    assert "demo-notes" in text(executed) and "injected-parameters" not in json.dumps(executed)


def test_a_notebook_without_a_lake_stops_with_the_clis_error(tmp_path):
    with pytest.raises(nbclient.exceptions.CellExecutionError, match="no such lake folder"):
        execute(NOTEBOOKS / "rule_frequencies.py", LAKE=str(tmp_path / "absent"), SERVERS=[])


def test_each_notebook_reads_the_lake_its_text_names_and_the_survey_writes():
    """The default is `../lake` from notebooks/: the folder `mcpdelta survey`
    writes by default when run at the repository's top."""
    import argparse
    import re

    from mcpdelta.commands import survey

    parser = argparse.ArgumentParser()
    survey.add_arguments(parser)
    written = ROOT / parser.parse_args([]).lake
    for path in NOTEBOOKS.glob("*.py"):
        source = path.read_text()
        default = re.search(r'LAKE = os\.environ\.get\("MCPDELTA_LAKE", "([^"]+)"\)', source).group(1)
        assert (NOTEBOOKS / default).resolve() == written.resolve(), path.name
        assert f"`{default}`" in source, f"{path.name}: its text names the default"


def test_the_notebooks_extra_brings_what_the_notebooks_import():
    """Every module a notebook imports (and the modules the report functions
    they call import) comes with `pip install 'mcpdelta[notebooks]'`."""
    import ast
    import importlib.metadata as md
    import re
    import sys
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]

    def closure(extra, seen=None):
        seen = seen if seen is not None else set()
        for req in extras[extra]:
            name = re.split(r"[<>=\[ ;]", req, maxsplit=1)[0].lower()
            if name == "mcpdelta":
                for inner in re.search(r"\[(.*)\]", req).group(1).split(","):
                    closure(inner.strip(), seen)
            else:
                seen.add(name.replace("_", "-"))
        return seen

    brought = closure("notebooks")
    assert {"jupytext", "ipykernel", "nbconvert"} <= brought
    pending = list(brought)
    while pending:  # what those bring in turn (numpy with matplotlib)
        try:
            requires = md.requires(pending.pop()) or []
        except md.PackageNotFoundError:  # a requirement for another platform
            continue
        for req in requires:
            if "extra ==" in req:
                continue
            name = re.split(r"[<>=!~\[ ;(]", req, maxsplit=1)[0].lower().replace("_", "-")
            if name not in brought:
                brought.add(name)
                pending.append(name)
    assert "notebooks" in {x.strip() for x in re.search(r"\[(.*)\]", extras["all"][0]).group(1).split(",")}
    providers = md.packages_distributions()
    imported = set()
    for path in [*NOTEBOOKS.glob("*.py"), *(ROOT / "mcpdelta" / "survey" / f for f in ("report.py", "queries.py"))]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                imported |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                imported.add(node.module.split(".")[0])
    third_party = {m for m in imported if m not in sys.stdlib_module_names and m != "mcpdelta"}
    assert third_party, "the notebooks import something"
    for module in sorted(third_party):
        dists = {d.lower() for d in providers.get(module, [])}
        assert dists & brought, f"{module} ({dists}) is not in the notebooks extra"
