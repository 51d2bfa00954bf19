"""The committed real-world sample (data/samples/reference, see
data/samples/README.md) through ingest and the diff stage.

Every expectation below was written from reading the two manifests of the
pair by hand, not copied from the engine's output; the comment on each says
what the manifests show.
"""

import json

import pytest

from mcpdelta.engine.policy import Policy
from mcpdelta.lake import Lake
from mcpdelta.lake.ingest import rows_from_folder, store
from mcpdelta.survey.diffstage import engine_version, policy_hash, run_diff_stage
from tests.conftest import ROOT

SAMPLE = ROOT / "data" / "samples" / "reference"


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    lake = Lake(str(tmp_path_factory.mktemp("reference") / "lake"))
    counts = store(lake, *rows_from_folder(str(SAMPLE)))
    assert counts["errors"] == 0
    stats = run_diff_stage(lake, Policy(), workers=1)
    assert stats["errors"] == 0
    return lake.connect(engine_version(), policy_hash(Policy()))


def changes(con, server, old, new, severity=None):
    sql = ("SELECT rule, entity, path, severity FROM changes "
           "WHERE server_id = ? AND old_version = ? AND new_version = ?")
    rows = con.execute(sql, [server, old, new]).fetchall()
    return [r for r in rows if severity is None or r[3] == severity]


def breaking(con, server, old, new):
    return {(rule, entity) for rule, entity, _, _ in changes(con, server, old, new, "BREAKING")}


def test_the_whole_sample_is_ingested():
    log = [json.loads(line) for line in (SAMPLE / "crawl-log.jsonl").read_text().splitlines()]
    files = sorted(p.relative_to(SAMPLE).as_posix() for p in SAMPLE.glob("*/*.json"))
    assert files == sorted(r["path"] for r in log if r["ok"])
    assert len(files) == 64


def test_memory_closes_every_input_object(con):
    # 2025.8.4: read_graph's input is {"type": "object", "properties": {}};
    # 2025.9.25 adds "additionalProperties": false (a call with any argument is now rejected).
    rows = changes(con, "server-memory", "2025.8.4", "2025.9.25", "BREAKING")
    assert ("tool.input.constraint.tightened", "read_graph",
            "/tools/read_graph/inputSchema/additionalProperties", "BREAKING") in rows
    # create_entities closes both the top level and the entity objects in its array
    assert ("tool.input.constraint.tightened", "create_entities",
            "/tools/create_entities/inputSchema/properties/entities/items/additionalProperties", "BREAKING") in rows


def test_sequential_thinking_requires_next_thought_needed_again(con):
    # 2026.7.4 required [thought, thoughtNumber, totalThoughts]; 2026.8.31 adds nextThoughtNeeded back.
    assert ("tool.input.required.added", "sequentialthinking") in breaking(
        con, "server-sequential-thinking", "2026.7.4", "2026.8.31")
    # ... and its dropping in 2025.12.18 -> 2026.7.4 was a loosening, not a break
    assert ("tool.input.required.removed", "sequentialthinking", "NON_BREAKING") in {
        (r, e, s) for r, e, _, s in changes(con, "server-sequential-thinking", "2025.12.18", "2026.7.4")}


def test_git_add_refuses_an_empty_file_list(con):
    # files: {"type": "array", "items": {"type": "string"}} gains "minItems": 1 in 2026.10.10
    rows = changes(con, "mcp-server-git", "2026.8.18", "2026.10.10", "BREAKING")
    assert ("tool.input.constraint.tightened", "git_add",
            "/tools/git_add/inputSchema/properties/files/minItems", "BREAKING") in rows


def test_filesystem_empty_input_schemas_become_real_ones(con):
    # 2025.8.18's installed build advertises inputSchema {"$schema": draft-07} only (accepts
    # anything); 2025.8.21 requires "path" (and closes the object).
    found = breaking(con, "server-filesystem", "2025.8.18", "2025.8.21")
    assert ("tool.input.property.addedRequired", "read_file") in found
    assert ("tool.input.property.addedRequired", "write_file") in found


def test_filesystem_read_media_file_may_return_a_resource_block(con):
    # output content items: one object {type in [image, audio, blob], data, mimeType} become
    # anyOf [{type in [image, audio], data, mimeType}, {type: "resource", resource: {...}}]:
    # a result item may now lack data and mimeType.
    rows = changes(con, "server-filesystem", "2026.7.4", "2026.7.10", "BREAKING")
    assert any(rule.startswith("tool.output.") and entity == "read_media_file"
               and path.startswith("/tools/read_media_file/outputSchema/properties/content/items")
               for rule, entity, path, _ in rows)


def test_everything_2_0_drops_the_old_prompts_resources_and_tools(con):
    found = breaking(con, "server-everything", "2025.12.18", "2026.1.14")
    # prompts simple_prompt / complex_prompt / resource_prompt -> simple-prompt, args-prompt, ...
    assert ("prompt.removed", "simple_prompt") in found
    assert ("prompt.removed", "complex_prompt") in found
    # test://static/resource/1..100 -> 7 demo://resource/static/document/* resources
    removed = {e for r, e in found if r == "resource.removed"}
    assert len(removed) == 100 and "test://static/resource/1" in removed
    assert ("resourceTemplate.removed", "test://static/resource/{id}") in found
    # tools add, getTinyImage, printEnv ... are gone (get-sum, get-tiny-image, get-env came instead);
    # the engine may call a pair a rename, either way the old name no longer answers
    gone = {path for rule, _, path, _ in changes(con, "server-everything", "2025.12.18", "2026.1.14", "BREAKING")
            if rule in ("tool.removed", "tool.renamed")}
    assert {"/tools/add", "/tools/getTinyImage", "/tools/printEnv", "/tools/zip"} <= gone


# --- notation the engine must not call breaking ------------------------------------------

def test_fetch_integer_bounds_respelled_are_not_breaking(con):
    # max_length is {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 1000000} in 2026.8.18
    # and {"type": "integer", "minimum": 1, "maximum": 999999} in 2026.10.10: the same integers.
    assert not breaking(con, "mcp-server-fetch", "2026.8.18", "2026.10.10")


def test_an_empty_experimental_capability_dropped_is_not_breaking(con):
    # capabilities.experimental is {} in 2026.10.10 and absent in 2026.10.19: nothing was offered.
    for server in ("mcp-server-time", "mcp-server-fetch", "mcp-server-git"):
        assert ("server.capability.removed", None) not in breaking(con, server, "2026.10.10", "2026.10.19")
