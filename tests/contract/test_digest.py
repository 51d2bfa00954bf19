"""Contract digests: the v2 recipe, the legacy v1 recipe, schemes, and the
single owner of the tool -> contract projection.

Expected digests are computed here with hashlib over ``jcs`` (the
canonicaliser test_canonical.py checks against the RFC) and projections
written out by hand, never copied from the code's output.
"""

import ast
import hashlib
import pathlib

import pytest

from mcpdelta import contract as C
from mcpdelta.contract import jcs

from .conftest import manifest, write_json

PACKAGE = pathlib.Path(C.__file__).parent

TOOL = {
    "name": "search",
    "title": "Search",
    "description": "Search the catalog.",
    "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
    "annotations": {"readOnlyHint": True},
    "icons": [{"src": "https://example.com/i.png"}],
    "_meta": {"x": 1},
}
V2_PROJECTION = {
    "name": "search",
    "description": "Search the catalog.",
    "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
    "annotations": {"readOnlyHint": True},
}
V1_PROJECTION = dict(V2_PROJECTION, title="Search")


def v2(projection):
    return "mcp-contract-v2-sha256:" + hashlib.sha256(b"mcp-contract-v2-sha256\x00" + jcs(projection)).hexdigest()


def v1(projection):
    return "sha256:" + hashlib.sha256(jcs(projection)).hexdigest()


def test_v2_digest_is_the_gateway_recipe():
    assert C.tool_digest(TOOL) == v2(V2_PROJECTION)
    assert C._fast(V2_PROJECTION) == V2_PROJECTION  # the stdlib path, pinned to the recipe


def test_v2_digest_with_a_float_and_an_int64_bound():
    tool = dict(TOOL, inputSchema={"type": "number", "minimum": 0.5, "maximum": 9223372036854775807})
    expected = dict(V2_PROJECTION, inputSchema=tool["inputSchema"])
    text = (b'{"annotations":{"readOnlyHint":true},"description":"Search the catalog.",'
            b'"inputSchema":{"maximum":9223372036854776000,"minimum":0.5,"type":"number"},"name":"search"}')
    assert jcs(expected) == text
    assert C.tool_digest(tool) == "mcp-contract-v2-sha256:" + hashlib.sha256(
        b"mcp-contract-v2-sha256\x00" + text).hexdigest()


def test_the_scheme_is_hashed_not_only_prefixed():
    bare = hashlib.sha256(jcs(V2_PROJECTION)).hexdigest()
    assert C.tool_digest(TOOL).split(":")[1] != bare


def test_absent_fields_are_absent_not_null():
    minimal = {"name": "ping"}
    assert C.tool_digest(minimal) == v2({"name": "ping"})
    assert C.tool_digest(minimal) != v2({"name": "ping", "description": None})
    assert C.tool_digest({"name": "ping", "description": None}) == v2({"name": "ping", "description": None})


@pytest.mark.parametrize("field,value", [("title", "Find"), ("icons", []), ("_meta", {"y": 2}),
                                         ("execution", {"taskSupport": "optional"})])
def test_fields_outside_v2_do_not_move_it(field, value):
    assert C.tool_digest(dict(TOOL, **{field: value})) == C.tool_digest(TOOL)


@pytest.mark.parametrize("field,value", [("name", "find"), ("description", "Find things."),
                                         ("inputSchema", {"type": "object"}),
                                         ("outputSchema", {"type": "object"}),
                                         ("annotations", {"readOnlyHint": False})])
def test_every_covered_field_moves_v2(field, value):
    assert C.tool_digest(dict(TOOL, **{field: value})) != C.tool_digest(TOOL)


def test_key_order_does_not_matter():
    shuffled = {k: TOOL[k] for k in reversed(list(TOOL))}
    shuffled["inputSchema"] = {"required": ["q"], "properties": {"q": {"type": "string"}}, "type": "object"}
    assert C.tool_digest(shuffled) == C.tool_digest(TOOL)


def test_v1_legacy_recipe_covers_title_and_hashes_bare_jcs():
    assert C.tool_digest(TOOL, C.SCHEME_V1) == v1(V1_PROJECTION)
    assert C.tool_digest(dict(TOOL, title="Find"), C.SCHEME_V1) != C.tool_digest(TOOL, C.SCHEME_V1)
    assert C.tool_digest(dict(TOOL, _meta={}), C.SCHEME_V1) == C.tool_digest(TOOL, C.SCHEME_V1)


def test_scheme_recognition():
    good = C.tool_digest(TOOL)
    assert C.split_digest(good) == ("mcp-contract-v2-sha256", good.split(":")[1])
    assert C.well_formed(good) and C.well_formed(C.tool_digest(TOOL, C.SCHEME_V1))
    assert C.split_digest("mcp-contract-v9-blake3:abc")[0] == "mcp-contract-v9-blake3"
    assert not C.well_formed("mcp-contract-v9-blake3:" + "0" * 64)   # unknown scheme
    assert not C.well_formed("sha256:" + "0" * 63)                    # short
    assert not C.well_formed("sha256:" + "A" * 64)                    # upper case
    assert C.split_digest("deadbeef") == (None, "deadbeef")
    with pytest.raises(ValueError):
        C.digest_contract({"name": "x"}, "sha512")


def test_digest_command_prints_v2_digests(cli, tmp_path):
    other = {"name": "add", "inputSchema": {"type": "object"}, "title": "Add"}
    write_json(tmp_path / "m.json", manifest(TOOL, other))
    run = cli("digest", "m.json", "--format", "json")
    assert run.code == 0, run.err
    doc = run.json()
    assert doc["tools"] == {"add": v2({"name": "add", "inputSchema": {"type": "object"}}),
                            "search": v2(V2_PROJECTION)}
    text = cli("digest", "m.json")
    assert text.out.splitlines() == [f"{v2({'name': 'add', 'inputSchema': {'type': 'object'}})}  add",
                                     f"{v2(V2_PROJECTION)}  search"]


def test_digest_command_bad_input_is_one_line(cli, tmp_path):
    (tmp_path / "inf.json").write_text('{"tools": [{"name": "x", "inputSchema": {"maximum": 1e400}}]}')
    run = cli("digest", "inf.json")
    assert run.code == 2 and run.err.count("\n") == 1 and "inf.json" in run.err
    run = cli("digest", "missing.json")
    assert run.code == 2 and "missing.json" in run.err


# --- one projection, one owner ------------------------------------------------------

V2_FIELDS = {"name", "description", "inputSchema", "outputSchema", "annotations"}


def _names_in(node):
    """String constants a literal collection holds."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return {e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    return set()


def projections(source: str) -> list:
    """Places that build a contract from a tool: a dict comprehension over a
    literal collection naming three or more contract fields (or over the
    FIELDS / CONTRACT_FIELDS tables), or a dict display with three or more
    contract fields as keys. Three, because no honest use elsewhere needs
    more than two (the engine reads the two schemas together)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.DictComp):
            for gen in node.generators:
                names = _names_in(gen.iter)
                refs = {n.id for n in ast.walk(gen.iter) if isinstance(n, ast.Name)} | \
                       {n.attr for n in ast.walk(gen.iter) if isinstance(n, ast.Attribute)}
                if len(names & V2_FIELDS) >= 3 or refs & {"FIELDS", "CONTRACT_FIELDS"}:
                    found.append(node.lineno)
        elif isinstance(node, ast.Dict):
            keys = {k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
            if len(keys & V2_FIELDS) >= 3:
                found.append(node.lineno)
    return found


def test_the_detector_finds_a_hand_rolled_projection():
    assert projections("def f(t):\n    return {k: t[k] for k in ('name', 'description', 'inputSchema') if k in t}")
    assert projections("def f(t):\n    return {'name': t['name'], 'inputSchema': t.get('inputSchema'),"
                       " 'annotations': t.get('annotations')}")
    assert projections("from mcpdelta.contract import CONTRACT_FIELDS\n"
                       "def f(t):\n    return {k: t[k] for k in CONTRACT_FIELDS}")
    assert not projections("def f(t):\n    return {k: t[k] for k in ('inputSchema', 'outputSchema')}")


def test_contract_of_is_the_only_projection():
    owners = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        lines = projections(path.read_text(encoding="utf-8"))
        if lines:
            owners[str(path.relative_to(PACKAGE.parent))] = lines
    assert list(owners) == ["mcpdelta/contract.py"], owners
    tree = ast.parse((PACKAGE / "contract.py").read_text(encoding="utf-8"))
    holders = [f.name for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)
               and any(isinstance(n, (ast.DictComp, ast.Dict)) and projections(ast.unparse(n)) for n in ast.walk(f))]
    assert holders == ["contract_of"]


def _imports_and_strings(tree):
    """Imported module names, and string constants other than docstrings."""
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef)) and n.body
            and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    imports, strings = set(), []
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            imports |= {a.name for a in n.names}
        elif isinstance(n, ast.ImportFrom) and n.module:
            imports.add(n.module)
        elif isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs:
            strings.append(n.value)
    return imports, strings


def test_only_contract_py_canonicalises_or_names_the_scheme():
    seen = 0
    for path in sorted(PACKAGE.rglob("*.py")):
        imports, strings = _imports_and_strings(ast.parse(path.read_text(encoding="utf-8")))
        owner = path == PACKAGE / "contract.py"
        seen += owner and "rfc8785" in imports and any("mcp-contract-v2-sha256" in s for s in strings)
        if not owner:
            assert "rfc8785" not in imports, f"{path}: canonicalise through mcpdelta.contract.jcs"
            assert not any("mcp-contract-v2-sha256" in s for s in strings), \
                f"{path}: take the scheme from mcpdelta.contract"
    assert seen == 1  # the owner itself is found, so the scan can see what it looks for
