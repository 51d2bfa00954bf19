"""The package's layers, read from its syntax trees: no module imports
itself back through others, none reaches into another's private names, and
none imports from a floor above its own (the floors docs/architecture.md
draws).

Every import counts, at module level or inside a function, absolute or
relative: an import deferred into a function still runs, so a circle it
closes is still a circle (docs/architecture.md).
"""

import ast
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent


def module_names(root: pathlib.Path, package: str) -> dict:
    """Module name -> file of every module under ``root/package``; a
    package's ``__init__.py`` is the package's own name."""
    found = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports(root: pathlib.Path, package: str):
    """(importer, imported module, name or None, file, line) of every import
    of one of the package's modules; ``name`` is what ``from X import name``
    takes from X when it is no module of its own."""
    modules = module_names(root, package)
    for importer, path in modules.items():
        here = importer if path.name == "__init__.py" else importer.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in modules:
                        yield importer, alias.name, None, path, node.lineno
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = here.rsplit(".", node.level - 1)[0] if node.level > 1 else here
                    source = f"{base}.{node.module}" if node.module else base
                else:
                    source = node.module
                for alias in node.names:
                    if f"{source}.{alias.name}" in modules:
                        yield importer, f"{source}.{alias.name}", None, path, node.lineno
                    elif source in modules:
                        yield importer, source, alias.name, path, node.lineno


def circles(root: pathlib.Path, package: str) -> list:
    """Each set of modules that import one another round in a circle, as the
    imports inside it (``file:line importer -> imported``)."""
    edges = {}  # importer -> imported -> (file, first line)
    for importer, imported, _, path, line in imports(root, package):
        if importer != imported:
            known = edges.setdefault(importer, {}).get(imported)
            if known is None or line < known[1]:
                edges[importer][imported] = (path.relative_to(root), line)
    out = []
    for group in strongly_connected(edges):
        if len(group) > 1:
            out.append([f"{edges[a][b][0]}:{edges[a][b][1]} {a} -> {b}" for a in sorted(group)
                        for b in sorted(edges.get(a, ())) if b in group])
    return out


def strongly_connected(edges: dict) -> list:
    """Tarjan's strongly connected components of ``edges`` (node -> nodes)."""
    index, low, stack, on_stack, groups = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in edges.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == node:
                    break
            groups.append(group)

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return groups


def private_imports(root: pathlib.Path, package: str) -> list:
    """``file:line importer <- module._name`` for every private name (one
    leading underscore, not a dunder) taken from another of the package's
    modules."""
    return [f"{path.relative_to(root)}:{line} {importer} <- {source}.{name}"
            for importer, source, name, path, line in imports(root, package)
            if name and name.startswith("_") and not name.startswith("__")]


def unit(module: str) -> str:
    """The top-level module or subpackage a module belongs to: ``engine``
    for ``mcpdelta.engine.schema``, ``errors`` for ``mcpdelta.errors``, the
    package's own name for its ``__init__``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def drawn_floors(text: str) -> list:
    """The floors of the first ``text`` block under ``## Floors``, lowest
    first: the drawing lists them top down, one line a floor."""
    section = text.split("\n## Floors", 1)[1]
    drawing = re.search(r"```text\n(.*?)```", section, re.S).group(1)
    return [line.split() for line in reversed(drawing.splitlines()) if line.strip()]


def climbs(root: pathlib.Path, package: str, floors: list) -> list:
    """``file:line importer -> imported`` for every import of a module that
    is not on a lower floor than the importer's (its own package aside), and
    ``unplaced: name`` for every top-level module or subpackage on no floor.
    ``floors`` lists each floor's names, lowest first."""
    height = {name: level for level, names in enumerate(floors) for name in names}
    out = [f"unplaced: {u}" for u in sorted({unit(m) for m in module_names(root, package)} - set(height))]
    for importer, imported, _, path, line in imports(root, package):
        a, b = unit(importer), unit(imported)
        if a != b and a in height and b in height and height[b] >= height[a]:
            out.append(f"{path.relative_to(root)}:{line} {importer} -> {imported}"
                       f" (floor {height[a]} -> floor {height[b]})")
    return out


def test_no_import_circle():
    found = circles(ROOT, "mcpdelta")
    assert not found, "import circles:\n" + "\n\n".join("\n".join(c) for c in found)


def test_no_private_name_imported():
    found = private_imports(ROOT, "mcpdelta")
    assert not found, "private names imported from another module:\n" + "\n".join(found)


def test_no_import_climbs_a_floor():
    floors = drawn_floors((ROOT / "docs" / "architecture.md").read_text(encoding="utf-8"))
    found = climbs(ROOT, "mcpdelta", floors)
    assert not found, "imports of a floor not below the importer's:\n" + "\n".join(found)


def write_tree(root: pathlib.Path, files: dict) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_the_checks_find_what_they_look_for(tmp_path):
    files = {
        "pkg/__init__.py": "",
        "pkg/a.py": "def late():\n    from pkg.b import value\n",
        "pkg/b.py": "from . import a\nvalue = 1\n",
        "pkg/c.py": "from pkg.a import _hidden, __doc__\n",
        "pkg/sub/__init__.py": "from .leaf import LEAF\nSHARED = 1\n",
        "pkg/sub/leaf.py": "from .. import sub\nfrom pkg.sub import SHARED\nLEAF = 2\n",
    }
    write_tree(tmp_path, files)
    found = [sorted(c) for c in circles(tmp_path, "pkg")]
    assert sorted(found) == [
        ["pkg/a.py:2 pkg.a -> pkg.b", "pkg/b.py:1 pkg.b -> pkg.a"],
        ["pkg/sub/__init__.py:1 pkg.sub -> pkg.sub.leaf", "pkg/sub/leaf.py:1 pkg.sub.leaf -> pkg.sub"],
    ]
    assert private_imports(tmp_path, "pkg") == ["pkg/c.py:1 pkg.c <- pkg.a._hidden"]


def test_the_floor_check_finds_climbs(tmp_path):
    files = {
        "pkg/__init__.py": "VERSION = 1\n",
        "pkg/low.py": "from pkg import VERSION\n",
        "pkg/mid/__init__.py": "from pkg.low import VERSION\nfrom . import part\n",
        "pkg/mid/part.py": "def late():\n    from pkg.top import main\n",
        "pkg/side.py": "from pkg.mid import part\n",
        "pkg/top.py": "import pkg.mid.part\ndef main():\n    pass\n",
        "pkg/stray.py": "",
    }
    write_tree(tmp_path, files)
    drawing = "intro\n\n## Floors\n\n```text\ntop\nmid  side\nlow\npkg\n```\n"
    floors = drawn_floors(drawing)
    assert floors == [["pkg"], ["low"], ["mid", "side"], ["top"]]
    assert climbs(tmp_path, "pkg", floors) == [
        "unplaced: stray",
        "pkg/mid/part.py:2 pkg.mid.part -> pkg.top (floor 2 -> floor 3)",
        "pkg/side.py:1 pkg.side -> pkg.mid.part (floor 2 -> floor 2)",
    ]
