"""The write-up's *Description drift* section, from ``sql/drift_by_server.sql``,
``drift_largest.sql`` and ``drift_flags.sql`` over the counted steps.

Like the rest of the page, it only lays out what the queries returned:
per server, how much its prose moved release to release and how far in
meaning (the offline judge's semantic distance); the largest shifts with
both texts; and every security flag with its evidence.
"""

import json

from mcpdelta.survey import cells

# rows of the per-server table; the rest are counted in the "all" row
TOP = 25


def drift_rows(con) -> dict:
    """The section's rows from ``con``, a study's lake narrowed to its
    counted steps (``writeup.counted_only``): the general drift queries, over
    the views they read."""
    from mcpdelta.resources import SQL_DIR as SQL
    from mcpdelta.survey.queries import query

    for view in ("description_drift", "drift_scored"):
        con.execute(f"CREATE OR REPLACE VIEW {view} AS\n" + (SQL / f"{view}.sql").read_text())
    return {"drift": query(con, "drift_by_server"), "drift_largest": query(con, "drift_largest"),
            "drift_flags": query(con, "drift_flags")}


def drift(rows) -> str:
    """The section, from the rows of the three drift queries."""
    from mcpdelta.judge.offline import NAME, THRESHOLD

    servers = [r for r in rows["drift"] if r["server_id"] is not None]
    total = next((r for r in rows["drift"] if r["server_id"] is None), None)
    lines = ["## Description drift", "",
             "The prose of each counted release step (tool, argument and property descriptions, "
             "titles, prompts' and resources' descriptions, the server's instructions), scored by "
             f"the offline judge `{NAME}` (`pip install 'mcpdelta[jury]'`, no key, no network): "
             "the *semantic distance* of the two texts (one minus the cosine of their "
             f"static-embedding vectors; it calls the meaning moved from {THRESHOLD}), and its "
             "security rules on what the new text adds. Its notes are advisory: no severity "
             "depends on them. A *rewrite* has text on both sides (a description added or "
             "removed is not one). `drift_by_server.sql`, `drift_largest.sql`, `drift_flags.sql`; "
             "`mcpdelta drift --lake LAKE` is the same reading as a report.", ""]
    if not servers or total is None:
        lines.append("No counted release step changed any prose.")
        return "\n".join(lines)
    if not total["judged"]:
        lines.append(f"No prose change was scored: the offline judge was not installed when "
                     f"the study ran ({cells.n(total['prose_changes'])} prose changes).")
        return "\n".join(lines)
    lines += [f"{cells.n(total['prose_changes'])} prose changes in {cells.n(total['steps'])} counted steps of "
              f"{len(servers)} servers; {cells.n(total['rewrites'])} rewrites, median distance "
              f"{_num(total['median_distance'])}, {cells.n(total['moved'])} with the meaning moved; "
              f"{cells.n(total['security_flags'])} security flags.", "",
              "| Server | Steps | Prose changes | Rewrites | Median distance | Meaning moved | "
              "Largest distance | Security flags |",
              "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    shown = servers[:TOP]
    for r in shown + [dict(total, server_id="all")]:
        lines.append(f"| {r['server_id']} | {cells.n(r['steps'])} | {cells.n(r['prose_changes'])} | "
                     f"{cells.n(r['rewrites'])} | {_num(r['median_distance'])} | {cells.n(r['moved'])} | "
                     f"{_num(r['largest_distance'])} | {cells.n(r['security_flags'])} |")
    if len(servers) > TOP:
        lines.append(f"\nThe {len(servers) - TOP} other servers, with fewer prose changes, are in `drift_by_server.sql`'s "
                     "rows and in the \"all\" row.")
    lines += ["", "### The largest shifts", ""]
    if rows["drift_largest"]:
        lines += ["| Server | Step | Where | Distance | Before | After |",
                  "| --- | --- | --- | ---: | --- | --- |"]
        for r in rows["drift_largest"]:
            lines.append(f"| {r['server_id']} | {r['old_version']} -> {r['new_version']} | "
                         f"{cells.code(r['path'], 80)} | {_num(r['distance'])} | {cells.cell(_text(r['old_text']))} | "
                         f"{cells.cell(_text(r['new_text']))} |")
    else:
        lines.append("No rewrite was scored.")
    lines += ["", "### Security flags", ""]
    if rows["drift_flags"]:
        lines += ["| Server | Step | Where | Evidence | After |", "| --- | --- | --- | --- | --- |"]
        for r in rows["drift_flags"]:
            lines.append(f"| {r['server_id']} | {r['old_version']} -> {r['new_version']} | "
                         f"{cells.code(r['path'], 80)} | {cells.cell(_evidence(r['summary']))} | "
                         f"{cells.cell(_text(r['new_text']))} |")
    else:
        lines.append("None: no prose change of a counted step added an instruction to the model, an "
                     "invisible character, another tool's name, a secret, a file or an address to "
                     "send to, as the rules read them.")
    return "\n".join(lines)


def _num(value) -> str:
    return "–" if value is None else f"{value:.3f}"


def _text(value_json) -> str:
    """A change's text as the page shows it (the lake keeps it as JSON)."""
    try:
        value = json.loads(value_json) if value_json is not None else None
    except ValueError:
        return str(value_json)
    return "(none)" if value is None else value if isinstance(value, str) else json.dumps(value)


def _evidence(summary) -> str:
    """What the security rules matched, from the judge's summary."""
    text = summary or ""
    return text.split("security: ", 1)[1] if "security: " in text else text
