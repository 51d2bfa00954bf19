"""Equivalence walks nest within a bound: inside a recursive schema's
expansion, a check whether two branches are partners runs a walk of its
own, which meets the recursion and asks again. mcp-z-mcp-pdf's
``pdf-layout`` (2.2.1 -> 3.2.1, a recursive content tree respelled from
draft-07 ``definitions`` to 2020-12 ``$defs``) ran out of Python's stack."""

import json

from mcpdelta.engine.manifest import read_manifest
from mcpdelta.engine.result import DiffResult
from tests.conftest import ROOT

PDF = ROOT / "data" / "ecosystem" / "captures" / "mcp-z-mcp-pdf"


def test_a_recursive_schema_respelled_is_a_dialect_change_not_a_stack_overflow():
    result = DiffResult(read_manifest(str(PDF / "2.2.1.json.gz")), read_manifest(str(PDF / "3.2.1.json.gz")))
    layout = [c for c in result.changes if c.entity == "pdf-layout" and "/inputSchema" in c.path]
    assert [c.rule for c in layout] == ["tool.input.dialect.changed"]
    tool = next(t for t in json.loads(json.dumps(result.new["tools"])) if t["name"] == "pdf-layout")
    assert "$defs" in tool["inputSchema"]  # the recursion is there to meet
