"""The lake's tables: versioned Arrow schemas, one folder each.

    LAKE/manifests/v1/server_id=<id>/part-<batch>.parquet   one row per capture
    LAKE/tools/v1/server_id=<id>/part-<batch>.parquet       one row per tool of a stored contract
    LAKE/changes/v1/part-<batch>.parquet                    one row per change
    LAKE/pairs/v1/part-<batch>.parquet                      one row per diffed pair (the ledger)
    LAKE/runs/v1/part-<run>.parquet                         one row per survey run
    LAKE/notes/v1/server_id=<id>/part-<batch>.parquet       one row per judge note on a prose change
    LAKE/attempts/v1/server_id=<id>/part-<batch>.parquet    one row per capture attempt, every pass

A diff batch writes one ``changes`` and one ``pairs`` file whatever servers
it spans (a file per server and table was most of the stage's write cost);
lakes written before also hold them as ``server_id=<id>/part-<batch>.parquet``,
read as they are. A schema change bumps the folder's version; readers name
the version they understand, so an old lake is never misread.
"""

import pyarrow as pa

VERSION = "v1"

_TS = pa.timestamp("us", tz="UTC")

MANIFESTS = pa.schema([
    ("server_id", pa.string()),
    ("version", pa.string()),
    ("version_key", pa.string()),       # sorts as semver where it parses, else by name
    ("captured_at", _TS),
    ("source", pa.string()),            # crawl | ingest:<path>
    ("transport", pa.string()),
    ("ok", pa.bool_()),
    ("error_kind", pa.string()),
    ("error", pa.string()),
    ("manifest_digest", pa.string()),
    ("tool_digests", pa.string()),      # JSON {name: mcp-contract-v2 digest}
    ("tool_hashes", pa.string()),       # JSON {name: hash of the whole tool}; null: no tools captured
    ("surface_json", pa.string()),      # the capture without its tools
    ("manifest_json", pa.string()),     # the capture exactly as stored on disk
])

# Each tool of each stored contract once, so a pair loads and walks only the
# tools whose hash moved.
TOOLS = pa.schema([
    ("server_id", pa.string()),
    ("manifest_digest", pa.string()),
    ("name", pa.string()),
    ("tool_hash", pa.string()),
    ("tool_json", pa.string()),
])

# Each probe call of each stored contract once (see mcpdelta/engine/behaviour.py):
# what was called, how it ended, and its response's shape. The raw result
# stays in the manifest's JSON; values are not contract.
PROBES = pa.schema([
    ("server_id", pa.string()),
    ("manifest_digest", pa.string()),
    ("name", pa.string()),
    ("tool", pa.string()),
    ("arguments_json", pa.string()),
    ("outcome", pa.string()),           # result | tool_error | protocol_error | timeout | unavailable
    ("error", pa.string()),
    ("shape_hash", pa.string()),
    ("shape_json", pa.string()),
])

PAIR_COLUMNS = [
    ("pair_key", pa.string()),
    ("server_id", pa.string()),
    ("old_version", pa.string()),
    ("new_version", pa.string()),
    ("old_digest", pa.string()),
    ("new_digest", pa.string()),
    ("engine_version", pa.string()),
    ("policy_hash", pa.string()),
    ("batch_id", pa.string()),
]

CHANGES = pa.schema(PAIR_COLUMNS + [
    ("rule", pa.string()),
    ("severity", pa.string()),
    ("default_severity", pa.string()),
    ("entity", pa.string()),
    ("path", pa.string()),
    ("old_json", pa.string()),
    ("new_json", pa.string()),
    ("message", pa.string()),
    ("note", pa.string()),
    ("suppressed", pa.bool_()),
    ("suppressed_reason", pa.string()),
    ("advisory_json", pa.string()),
    ("witness_json", pa.string()),      # {"kind", "value", "validator"}: a call or result proving it
    ("witness_note", pa.string()),      # why there is none ("accepted but ignored: ...")
])

PAIRS = pa.schema(PAIR_COLUMNS + [
    ("changes", pa.int32()),
    ("breaking", pa.int32()),
    ("grade", pa.string()),
    ("witnessed", pa.int32()),          # BREAKING changes proved by a witness
    ("error", pa.string()),             # set when the pair could not be diffed
    ("diffed_at", _TS),
])

RUNS = pa.schema([
    ("run_id", pa.string()),
    ("started_at", _TS),
    ("finished_at", _TS),
    ("user", pa.string()),
    ("host", pa.string()),
    ("command", pa.string()),
    ("servers", pa.int64()),
    ("captures", pa.int64()),
    ("pairs", pa.int64()),
    ("pairs_diffed", pa.int64()),
    ("pairs_cached", pa.int64()),
    ("errors", pa.int64()),
    ("summary_json", pa.string()),      # the survey's JSON summary, timings included
])

# Advisory judge notes on prose changes (mcpdelta/judge/lakestage.py), and
# the survey's judge cache: a question whose note_key already has an answer
# here is never asked again. Notes are about content, not about an engine or
# a policy, and never carry a severity.
NOTES = pa.schema([
    ("note_key", pa.string()),          # content hash of the question: model, endpoint, prompt
                                        # version, rule, entity, path, old and new text (the jury:
                                        # a hash of its judges' keys)
    ("server_id", pa.string()),
    ("pair_key", pa.string()),
    ("rule", pa.string()),
    ("entity", pa.string()),
    ("path", pa.string()),
    ("old_json", pa.string()),          # as in changes.old_json, so a note joins its change
    ("new_json", pa.string()),
    ("judge", pa.string()),             # the judge's name, or "jury"
    ("model", pa.string()),             # null for the jury
    ("endpoint", pa.string()),          # base URL; null for the jury
    ("prompt_version", pa.string()),
    ("verdict", pa.string()),           # mcpdelta.judge.note.VERDICTS
    ("security_relevant", pa.bool_()),
    ("confidence", pa.float64()),
    ("summary", pa.string()),
    ("answer_json", pa.string()),       # the judge's parsed answer (the cached value); null for
                                        # judge_error, budget_exhausted and the jury
    ("judged_at", _TS),
    ("batch_id", pa.string()),
])

# Every capture attempt, as the crawl log records it: failures with their
# reason, and the passes a contract is checked by. ``manifests`` keeps each
# contract once; this table keeps who captured it, when, and with what
# outcome, so a version two passes disagree on can be told apart and a
# version that never started is still counted.
ATTEMPTS = pa.schema([
    ("server_id", pa.string()),
    ("version", pa.string()),
    ("version_key", pa.string()),
    ("attempted_at", _TS),
    ("source", pa.string()),            # crawl | ingest:<folder>
    ("client", pa.string()),            # the clientInfo sent: "name/version"
    ("offered_protocol", pa.string()),
    ("protocol", pa.string()),          # the revision the server answered
    ("transport", pa.string()),
    ("published_at", _TS),              # package versions: the date the install was pinned to
    ("ok", pa.bool_()),
    ("error_kind", pa.string()),
    ("error", pa.string()),
    ("manifest_digest", pa.string()),   # null unless ok
    ("duration_ms", pa.int64()),
    # added later (an attempts file without them is refused, named, like any
    # file of another schema): which handshake answered (discover |
    # initialize), the install / capture split of duration_ms, why an install
    # needed a later cut-off, and the interpreter of a PyPI server
    ("handshake", pa.string()),
    ("install_ms", pa.int64()),
    ("capture_ms", pa.int64()),
    ("install_retry", pa.string()),
    ("python", pa.string()),
    # and later still: the recipe the server ran under (mcpdelta/crawl/recipe.py:
    # arguments, the names of the variables it set, fixtures) and its hash
    ("recipe_hash", pa.string()),
    ("recipe_json", pa.string()),
])

TABLES = {"manifests": MANIFESTS, "tools": TOOLS, "probes": PROBES, "changes": CHANGES, "pairs": PAIRS,
          "runs": RUNS, "notes": NOTES, "attempts": ATTEMPTS}
# written one folder per server (a worker reads only its servers' manifests and tools)
PARTITIONED = ("manifests", "tools", "probes", "notes", "attempts")
