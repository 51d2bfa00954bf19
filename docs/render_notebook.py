"""Execute a notebook on a lake and write it as one HTML page.

    .venv/bin/python docs/render_notebook.py rule_frequencies --lake /tmp/sample-lake \\
        --out docs/sample/rule_frequencies.html

The notebook runs as the tests run it: its parameters are set in a cell
inserted after the one tagged ``parameters``.
"""

import argparse
import pathlib

import jupytext
import nbclient
import nbformat
from nbconvert import HTMLExporter

HERE = pathlib.Path(__file__).resolve().parent.parent / "notebooks"


def render(name: str, lake: str, servers=(), out=None) -> pathlib.Path:
    notebook = jupytext.read(HERE / f"{name}.py")
    tagged = [i for i, c in enumerate(notebook.cells) if "parameters" in c.metadata.get("tags", [])]
    source = f"LAKE = {str(pathlib.Path(lake).resolve())!r}\nSERVERS = {list(servers)!r}"
    notebook.cells.insert(tagged[0] + 1, nbformat.v4.new_code_cell(
        source, metadata={"tags": ["injected-parameters"]}))
    nbclient.NotebookClient(notebook, kernel_name="python3", timeout=300,
                            resources={"metadata": {"path": str(HERE)}}).execute()
    # one offline page: no scripts fetched from a CDN (the figures are images)
    exporter = HTMLExporter(template_name="lab", exclude_input_prompt=True,
                            exclude_output_prompt=True)
    html, _ = exporter.from_notebook_node(notebook)
    html = _without_remote_scripts(html)
    out = pathlib.Path(out or f"{name}.html")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(html, encoding="utf-8")
    return out


def _without_remote_scripts(html: str) -> str:
    import re

    return re.sub(r'<script[^>]*src="https?://[^"]*"[^>]*>\s*</script>', "", html)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", help="a notebook under notebooks/, without .py")
    parser.add_argument("--lake", required=True)
    parser.add_argument("--server", action="append", default=[], help="keep only these servers")
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    print(render(args.name, args.lake, args.server, args.out))


if __name__ == "__main__":
    main()
