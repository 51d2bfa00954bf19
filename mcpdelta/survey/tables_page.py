"""The study's tables page (DIR/tables.md): coverage and results per
server, upgrades to the latest release, every rule, habits, behaviour,
description drift, the population's exclusions, the SDK check's
differences and every release with its breaks. The findings page
(``writeup``) draws on them and links them; like it, this module only lays
out what the queries under ``sql/study/`` returned."""

from mcpdelta.survey import cells
from mcpdelta.survey.behaviour_section import behaviour
from mcpdelta.survey.drift_section import drift

# The findings are README.md; the tables they are drawn from, per server and
# per release, are this page beside it.
TABLES = "tables.md"


def tables(rows, page) -> str:
    """Every table the findings are drawn from: coverage and results per
    server, upgrades, every rule, behaviour, description drift and every
    release with its breaks."""
    from mcpdelta.survey import population as pop
    from mcpdelta.survey.recipes_section import tool_set_notes

    total = cells.total(rows["coverage"])
    steps = cells.total(rows["steps_by_server"])
    parts = [f"# How often {page.title} broke their callers: the tables\n\n"
             "The findings drawn from these tables, and how they were measured, are in "
             "[README.md](README.md); every table is the answer of the query under `sql/study/` "
             "named beside it.",
             coverage(rows, total), per_server(rows, steps), upgrades(rows),
             rules_table(rows, top=len(rows["rules"])), habits(rows), behaviour(rows["behaviour"], page.servers_file),
             drift(rows), tool_set_notes(rows)]
    if page.population:
        parts.append(pop.exclusions_section(rows))
    if page.sdk_check:
        parts.append(pop.sdk_differences(rows))
    return cells.sections(parts + [releases(rows)])


def coverage(rows, total) -> str:
    lines = ["## Coverage", "", "`coverage.sql`: per server, the versions the capture passes attempted. "
             "*Empty* (of the failed): every capture listed no tools where tools were expected. "
             "*Schemaless*: most tools' input schemas came out empty; *dated late*: the registry dates "
             "the release after a higher version, so its install resolved dependencies newer than the "
             "release's own (the last column: both). *Unconfirmed*: captured by one pass only.", "",
             "| Server | Attempted | Captured | Failed | Empty | Passes | Confirmed by both | Disagree | "
             "Unconfirmed | Schemaless | Dated late | Both | Published |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    for r in rows["coverage"]:
        name = f"**all {r['servers']}**" if r["server_id"] is None else r["server_id"]
        lines.append(f"| {name} | {r['attempted']} | {r['captured']} | {r['failed']} | {r['empty']} | {r['passes']} | "
                     f"{r['confirmed']} | {r['disagree']} | {r['unconfirmed']} | {r['schemaless']} | "
                     f"{r['dated_late']} | "
                     f"{r['schemaless_dated_late']} | {cells.day(r['first_published'])} to "
                     f"{cells.day(r['last_published'])} |")
    lines += ["", "Failed versions by reason (`failure_reasons.sql`):", ""]
    if rows["failure_reasons"]:
        lines += [f"- `{r['reason']}`: {cells.count(r['versions'], 'version')} of "
                  f"{cells.count(r['servers'], 'server')}" for r in rows["failure_reasons"]]
        lines += ["", "| Server | Version | Published | Reason | Message |", "| --- | --- | --- | --- | --- |"]
        lines += [f"| {r['server_id']} | {r['version']} | {cells.day(r['published_at'])} | `{r['reason']}` | "
                  f"{cells.cell(r['error'])} |" for r in rows["failures"]]
    else:
        lines.append("- none: every version attempted was captured.")
    retries = rows["install_retries"]
    lines += ["", f"Captured only with a later dependency cut-off (`install_retries.sql`): "
              f"{cells.count(len(retries), 'release')}, counted like the others, their dependencies up to a "
              "week newer than their users had, or today's where it says no cut-off" + (":" if retries else "."), ""]
    lines += [f"- {r['server_id']} {r['version']} ({cells.day(r['published_at'])}): {cells.cell(r['retry'])}"
              for r in retries]
    return "\n".join(lines)


def section(title: str, intro: str, head: str, align: str, lines) -> str:
    """A table section: ``## title``, the paragraph naming its query, the
    table's head and alignment rows, then ``lines``, a row each."""
    return "\n".join([f"## {title}", "", intro, "", head, align, *lines])


def server_cell(r) -> str:
    """A row's server, or **all** on the row of every server (no server id)."""
    return "**all**" if r["server_id"] is None else r["server_id"]


def per_server(rows, steps) -> str:
    return section(
        "Results per server",
        "`steps_by_server.sql`: counted release steps and their unsuppressed changes by severity; the "
        "steps that broke a caller with a proven break (and with any), and the breaking changes by "
        "evidence: proven / by rule / unexplained.",
        "| Server | Releases | Steps counted | Changed | Broke a caller: proven | Broke a caller: any | "
        "BREAKING: proven / by rule / unexplained | POTENTIALLY_BREAKING | NON_BREAKING | DOCUMENTATION | "
        "Not counted: schemaless, disagree, recipe changed, not diffed |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        (f"| {server_cell(r)} | {r['releases']} | {r['counted']} | {r['changed']} | "
         f"{cells.share(r['proven_steps'], r['proven_steps_pct'])} | "
         f"{cells.share(r['breaking_steps'], r['breaking_steps_pct'])} | "
         f"{r['proven']} / {r['by_rule']} / {r['unexplained']} | {r['potentially_breaking']} | "
         f"{r['non_breaking']} | {r['documentation']} | "
         f"{r['schemaless']}, {r['unstable']}, {r['recipe_changed']}, {r['not_diffed']} |"
         for r in rows["steps_by_server"]))


def upgrades(rows) -> str:
    return section(
        "Upgrading to the latest release",
        "`to_latest_summary.sql`: each earlier release diffed against its server's latest "
        "(`to_latest.sql` per release, in *Every release*): what a caller written against that "
        "release meets when it upgrades straight to today's server.",
        "| Server | Earlier releases counted | Upgrade breaks a caller: proven / any | Not counted | "
        "Breaking changes, first release to latest: proven / any (servers whose first release counts) |",
        "| --- | ---: | ---: | ---: | ---: |",
        map(upgrade_row, rows["to_latest_summary"]))


def upgrade_row(r) -> str:
    first = "" if r["breaking_from_first"] is None else f"{r['proven_from_first']} / {r['breaking_from_first']}"
    if first and r["server_id"] is None:
        first += f" ({cells.count(r['first_counted'], 'server')})"
    return (f"| {server_cell(r)} | {r['releases']} | {r['proven_upgrades']} / {r['breaking_upgrades']} | "
            f"{r['not_counted']} | {first} |")


def rules_table(rows, top=25) -> str:
    return section(
        "Which rules fired",
        f"`rules.sql`: unsuppressed changes per rule over counted steps (the {top} most frequent; "
        "`rule_frequencies.png` draws them).",
        "| Rule | Severity | Changes | Steps | Servers | BREAKING: proven / by rule / unexplained | "
        "Servers with a proven one |", "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
        (f"| `{r['rule']}` | {r['severity']} | {r['changes']} | {r['steps']} | {r['servers']} | "
         + (f"{r['proven']} / {r['by_rule']} / {r['unexplained']} | {r['proven_servers']}"
            if r["severity"] == "BREAKING" else " | ") + " |"
         for r in rows["rules"][:top]))


def habits(rows) -> str:
    def share(r, n):
        return f"{n} ({cells.pct(100.0 * n / r['tools'])})"

    lines = [f"| {r['quarter']} | {r['servers']} | {r['releases']} | {r['tools']} | "
             f"{share(r, r['with_output_schema'])} | {share(r, r['with_annotations'])} | "
             f"{share(r, r['with_description'])} | {share(r, r['closed_input'])} |"
             for r in rows["schema_habits"]]
    return section(
        "Schema habits over time",
        "`schema_habits.sql`: the tools of the releases published in each quarter (each release "
        "once), and the share that declare an `outputSchema`, annotations, a description, and a "
        "closed input (`additionalProperties: false`).",
        "| Quarter | Servers | Releases | Tools | outputSchema | Annotations | Description | "
        "Closed input |", "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        lines or ["| (no release with a publish date) | | | | | | | |"])


def releases(rows) -> str:
    from mcpdelta.survey.recipes_section import recipe_lines

    lines = ["## Every release", "",
             "Per server: the recipes its captures ran under (`recipes.sql`), `release_table.sql` (each "
             "release against the one before; *published*: the date the install was pinned to; BREAKING "
             "as proven / by rule / unexplained), then `step_breaks.sql` (each breaking change with its "
             "rule, entity, evidence and witness or the note saying why there is none) and "
             "`to_latest.sql` (each release against the latest)."]
    breaks, latest = {}, {}
    for r in rows["step_breaks"]:
        breaks.setdefault(r["server_id"], []).append(r)
    for r in rows["to_latest"]:
        latest.setdefault(r["server_id"], []).append(r)
    by_server = {}
    for r in rows["release_table"]:
        by_server.setdefault(r["server_id"], []).append(r)
    for server, steps in by_server.items():
        lines += ["", f"<details><summary><b>{server}</b></summary>", ""]
        recipes = recipe_lines(rows, server)
        if recipes:
            lines += recipes + [""]
        lines += ["| From | To | Published | Declared | Earned | BREAKING: proven / by rule / unexplained | "
                  "POT. | NON | DOC | Note |",
                  "| --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: | --- |"]
        for s in steps:
            note = ("not counted: captures disagree" if s["unstable"] else
                    "not counted: schemaless" if s["schemaless"] else
                    "not counted: captured under different recipes" if s["recipe_changed"] else
                    f"not diffed: {cells.cell(s['error'])}" if not s["diffed"] else
                    "same contract" if s["identical"] else "")
            if s["spans"]:
                note = f"{note}; " if note else ""
                note += f"across {cells.count(s['spans'], 'version')} not captured"
            lines.append(f"| {s['old_version']} | {s['new_version']} | {cells.day(s['published_at'])} | "
                         f"{s['declared']} | {s['grade'] or ''} | {s['proven']} / {s['by_rule']} / "
                         f"{s['unexplained']} | {s['potentially_breaking']} | {s['non_breaking']} | "
                         f"{s['documentation']} | {note} |")
        if breaks.get(server):
            lines += ["", "| From | To | Rule | Entity | Path | Evidence | Witness, or why there is none |",
                      "| --- | --- | --- | --- | --- | --- | --- |"]
            lines += [f"| {b['old_version']} | {b['new_version']} | `{b['rule']}` | {cells.cell(b['entity'] or '(server)')} | "
                      f"{cells.code(b['path'])} | {b['evidence']} | "
                      f"{cells.witness(b['witness_json']) if b['witness_json'] else cells.cell(b['witness_note'] or '')} |"
                      for b in breaks[server]]
        if latest.get(server):
            lines += ["", "| Release | Against | Changes | BREAKING: proven / any | Note |",
                      "| --- | --- | ---: | ---: | --- |"]
            lines += [f"| {u['version']} | {u['latest']} | {u['changes']} | {u['proven']} / {u['breaking']} | "
                      f"{latest_note(u)} |" for u in latest[server]]
        lines += ["", "</details>"]
    return "\n".join(lines)


def latest_note(u) -> str:
    if u["counted"]:
        return "same contract" if u["identical"] else ""
    return "not counted: captured under different recipes" if u["recipe_changed"] else "not counted"
