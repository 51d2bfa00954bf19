"""The one adapter to the engine: what ``mcpdelta diff --format json`` runs
(``mcpdelta.commands.diff``: manifests validated, DiffResult under the default
policy, witnesses attached), in-process, on two one-tool manifests."""

from mcpdelta.engine.manifest import validate_manifest
from mcpdelta.engine.policy import Policy
from mcpdelta.engine.result import DiffResult
from mcpdelta.witness import attach_witnesses
from mcpdelta.witness.evidence import NAMED_REASONS  # noqa: F401 (the runner reads it from here)

TOOL = "fuzzed_tool"
WITNESS_CANDIDATES = 200  # the diff command's default --witness-candidates


def manifest(side: str, schema) -> dict:
    tool = {"name": TOOL, "inputSchema": schema if side == "input" else {"type": "object"}}
    if side == "output":
        tool["outputSchema"] = schema
    return {"tools": [tool]}


def run_diff(side: str, old_schema, new_schema) -> dict:
    """The diff's JSON for old -> new on ``side``: {"changes": [...], "grade": ...}.
    Raises mcpdelta.errors.InputError when a manifest is refused."""
    old = validate_manifest(manifest(side, old_schema), "old")
    new = validate_manifest(manifest(side, new_schema), "new")
    policy = Policy()
    result = DiffResult(old, new, policy, old_source="old", new_source="new")
    if policy.witness != "never":
        attach_witnesses(result, min_severity=policy.witness, max_candidates=WITNESS_CANDIDATES)
    return {"changes": [c.as_json() for c in result.changes], "grade": result.grade}
