"""``sql/study/behaviour.sql`` and the *Behaviour* section, on a small lake.

Server ``s``, three releases, each probed (worked out by hand):

1.0.0  ``status`` answers JSON text {state, count}; ``air`` (outputSchema
       {aqi: integer}) answers structuredContent {aqi: 1}.
1.1.0  ``status``'s schemas unchanged, its answer lost ``count``
       (tool.behaviour.field.removed, BREAKING): shape changed, schemas not.
1.2.0  ``status`` gains an input property (a schema change) and ``count``
       comes back: not counted as shape-only. ``air`` is unchanged (so the
       diff stage must bring it into the pair for its probe) and answers
       {aqi: "bad"} against its own schema: violated (and its type changed,
       schemas not).

Server ``plain``: two releases, no probes: not in the section.
"""

import datetime as dt
import json

from mcpdelta.engine.policy import Policy
from mcpdelta.lake import Lake
from mcpdelta.lake.ingest import attempt_row, capture_row, store
from mcpdelta.resources import SQL_DIR as SQL
from mcpdelta.survey.behaviour_section import behaviour
from mcpdelta.survey.diffstage import engine_version, policy_hash, run_diff_stage
from mcpdelta.survey.writeup import study_connection

AIR_SCHEMA = {"type": "object", "properties": {"aqi": {"type": "integer"}}, "required": ["aqi"]}


def status_tool(extra=False):
    properties = {"verbose": {"type": "boolean"}} if extra else {}
    return {"name": "status", "inputSchema": {"type": "object", "properties": properties}}


def probe(name, tool, result):
    return {"name": name, "tool": tool, "arguments": {}, "outcome": "result", "result": result}


def text(doc):
    return {"content": [{"type": "text", "text": json.dumps(doc)}]}


def structured(doc):
    return {"content": [{"type": "text", "text": "air"}], "structuredContent": doc}


RELEASES = {
    "s": {
        "1.0.0": ([status_tool()], [probe("status", "status", text({"state": "ok", "count": 1})),
                                    probe("air", "air", structured({"aqi": 1}))]),
        "1.1.0": ([status_tool()], [probe("status", "status", text({"state": "ok"})),
                                    probe("air", "air", structured({"aqi": 2}))]),
        "1.2.0": ([status_tool(extra=True)], [probe("status", "status", text({"state": "ok", "count": 3})),
                                              probe("air", "air", structured({"aqi": "bad"}))]),
    },
    "plain": {"1.0.0": ([status_tool()], None), "2.0.0": ([status_tool(extra=True)], None)},
}


def lake_of(tmp_path):
    lake = Lake(str(tmp_path / "lake"))
    day = dt.datetime(2025, 1, 1, tzinfo=dt.timezone.utc)
    rows, attempts = [], []
    for server, releases in RELEASES.items():
        for version, (tools, probes) in releases.items():
            air = {"name": "air", "description": "Air quality.", "inputSchema": {"type": "object"},
                   "outputSchema": AIR_SCHEMA}
            tools = tools + ([air] if server == "s" else [])
            manifest = {"tools": tools, **({"probes": probes} if probes is not None else {})}
            row = capture_row(server, version, json.dumps(manifest), source="test", captured_at=day)
            rows.append(row)
            attempts.append(attempt_row({"id": server, "version": version, "ok": True,
                                         "captured_at": day.isoformat(), "client": {"name": "c", "version": "1"}},
                                        row["manifest_digest"], "test"))
    store(lake, rows, attempts)
    run_diff_stage(lake, Policy(), workers=1)
    return study_connection(lake.connect(engine_version(), policy_hash(Policy())))


def rows_of(con):
    cursor = con.execute((SQL / "study" / "behaviour.sql").read_text())
    columns = [d[0] for d in cursor.description]
    return [dict(zip(columns, r)) for r in cursor.fetchall()]


def test_steps_whose_responses_moved_under_unchanged_schemas_and_violations(tmp_path):
    rows = rows_of(lake_of(tmp_path))
    steps = [(r["server_id"], r["new_version"], r["tool"], r["shape_only"], r["violated"], r["rules"], r["breaking"],
              r["first_path"]) for r in rows if r["level"] == "step"]
    assert steps == [
        ("s", "1.1.0", "status", True, False, "tool.behaviour.field.removed", 1,
         "/probes/status/response/content/text/count"),
        ("s", "1.2.0", "air", True, True, "tool.behaviour.outputSchema.violated, tool.behaviour.type.changed", 2,
         "/probes/air/response/structuredContent"),
    ]  # status at 1.2.0: its input schema moved too, so not counted as shape-only
    servers = [(r["server_id"], r["probed_releases"], r["shape_steps"], r["violation_steps"])
               for r in rows if r["level"] == "server"]
    assert servers == [("s", 3, 2, 1), (None, 3, 2, 1)]  # plain has no probes: no row


def test_the_section_lays_out_the_rows(tmp_path):
    text = behaviour(rows_of(lake_of(tmp_path)), "servers.yaml")
    assert text.startswith("## Behaviour\n") and "`probes:` in `servers.yaml`" in text
    assert "| s | 3 | 2 | 1 |" in text and "| all | 3 | 2 | 1 |" in text
    assert ("| s | 1.1.0 -> 1.2.0 | `air` | response changed, schemas not and outputSchema violated | "
            "tool.behaviour.outputSchema.violated, tool.behaviour.type.changed | 2 | "
            "`/probes/air/response/structuredContent` |") in text
    assert "plain" not in text


def test_a_study_without_probes_says_so():
    assert behaviour([{"level": "server", "server_id": None, "probed_releases": None, "shape_steps": None,
                       "violation_steps": None}], "servers.yaml").endswith("No release was captured with probes.")
