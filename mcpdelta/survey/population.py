"""A study's population and its cross-check, as tables its queries read.

``mcpdelta study --population FILE`` names the classification a servers
file was chosen by: one row per candidate package (tab-separated: registry,
package, class, evidence, reason_if_excluded, ...), class ``server`` for
the ones the servers file surveys. ``--sdk-check FILE`` names the result of
``bench/sdk_check.py`` (each server's latest release listed again with the
official SDK client). Both are registered on the study's DuckDB connection
as the tables ``population`` and ``sdk_check``, so the write-up's numbers
about them come from queries under ``sql/study/`` like every other.
"""

import csv
import io

from mcpdelta.errors import InputError
from mcpdelta.inputs import read_text
from mcpdelta.survey import cells

POPULATION_COLUMNS = ("registry", "package", "class", "evidence", "reason_if_excluded")
CLASSES = ("server", "not-a-server", "excluded")
SDK_COLUMNS = ("server_id", "version", "crawler_tools", "sdk_tools", "names_match", "schemas_match",
               "sdk_protocol", "difference")
LIMIT = 16 * 1024 * 1024


def _rows(path, columns, what, optional=()) -> list:
    text = read_text(path, LIMIT, what)
    reader = csv.DictReader(io.StringIO(text), delimiter="\t")
    missing = [c for c in columns if c not in (reader.fieldnames or ())]
    if missing:
        raise InputError(str(path), f"not a {what}: no column {missing[0]!r} in its header")
    rows = []
    for number, row in enumerate(reader, start=2):
        if None in row or any(row.get(c) is None for c in columns):
            raise InputError(str(path), f"line {number}: expected {len(reader.fieldnames)} tab-separated fields")
        rows.append({c: row.get(c) or None if c in optional else row[c] for c in columns + tuple(optional)})
    return rows


def load_population(path, servers_file) -> list:
    """The classification's rows, each with the ``server_id`` the servers
    file gives its package (None when the file does not survey it)."""
    from mcpdelta.crawl.servers import load

    rows = _rows(path, POPULATION_COLUMNS, "population file", optional=("server_id",))
    for number, row in enumerate(rows, start=2):
        if row["class"] not in CLASSES:
            raise InputError(str(path), f"line {number}: class {row['class']!r} is not one of {', '.join(CLASSES)}")
    targets, _ = load(servers_file)
    ids = {(t.package.registry, t.package.name): t.id for t in targets if t.package is not None}
    surveyed = {t.id for t in targets}
    for row in rows:
        named = row["server_id"]
        row["server_id"] = named if named in surveyed else ids.get((row["registry"], row["package"]))
    return rows


def load_sdk_check(path) -> list:
    rows = _rows(path, SDK_COLUMNS, "SDK check result")
    for row in rows:
        for column in ("crawler_tools", "sdk_tools"):
            row[column] = int(row[column]) if row[column].isdigit() else None
        for column in ("names_match", "schemas_match"):
            row[column] = {"true": True, "false": False}.get(row[column])
    return rows


def register(con, population=None, sdk_check=None):
    """``con`` with the tables ``population`` and ``sdk_check`` (empty when not given)."""
    import pyarrow as pa

    string, boolean, integer = pa.string(), pa.bool_(), pa.int64()
    schemas = {
        "population": pa.schema([(c, string) for c in POPULATION_COLUMNS + ("server_id",)]),
        "sdk_check": pa.schema([("server_id", string), ("version", string), ("crawler_tools", integer),
                                ("sdk_tools", integer), ("names_match", boolean), ("schemas_match", boolean),
                                ("sdk_protocol", string), ("difference", string)]),
    }
    for name, rows in (("population", population), ("sdk_check", sdk_check)):
        table = pa.Table.from_pylist(list(rows or []), schema=schemas[name])
        con.register(f"_{name}_rows", table)
        con.execute(f"CREATE OR REPLACE TABLE {name} AS SELECT * FROM _{name}_rows")
        con.unregister(f"_{name}_rows")
    return con


# --- the page's sections (mcpdelta.survey.writeup lays them out) ------------

def population_section(rows) -> str:
    f = rows["funnel"][0] if rows["funnel"] else {}
    lines = ["## Population", "",
             "How the servers were chosen, by a rule and a committed classification. The candidates "
             "are the npm packages whose name or summary mentions MCP with at least 5,000 downloads a "
             "month and the PyPI packages with `mcp` in their name among the 15,000 most downloaded "
             "(popularity as of 2026-11). Each was classified by its evidence (a `bin` entry or console "
             "script, a dependency on an MCP server SDK, what it printed when started) as a server, "
             "not a server, or a server excluded with its reason.", "",
             "`population.sql`: the candidates by class.", "",
             "| Class | Candidates | npm | PyPI | In the servers file |", "| --- | ---: | ---: | ---: | ---: |"]
    for r in rows["population"]:
        name = "**all**" if r["class"] is None else r["class"]
        lines.append(f"| {name} | {r['candidates']} | {r['npm']} | {r['pypi']} | {r['surveyed']} |")
    if rows["exclusions"]:
        lines += ["", f"`exclusions.sql`: why the others are not surveyed, "
                      f"{cells.count(len(rows['exclusions']), 'reason')} (each with examples in tables.md)."]
    if f:
        lines += ["", f"`funnel.sql`: {cells.count(f['candidates'], 'candidate')} -> {f['servers']} classified as "
                      f"servers ({f['servers_not_surveyed']} of them missing from the servers file) -> "
                      f"{f['surveyed']} surveyed -> {f['attempted']} with a release attempted -> "
                      f"{f['started']} whose server started for at least one release -> {f['captured']} "
                      f"with at least one release captured; {f['only_empty']} more started but never listed a "
                      "tool where tools were expected (*empty*, counted as failed)."]
        if f["surveyed"] > f["attempted"]:
            lines.append(f"{cells.count(f['surveyed'] - f['attempted'], 'surveyed server')} not attempted yet: "
                         "the crawl had not reached them when this page was made.")
        lines += ["", f"Releases: {f['releases_captured']} of {f['releases_attempted']} attempted captured "
                      f"({cells.pct(f['releases_captured_pct'])}), {f['releases_empty']} of the others empty; "
                      "per captured server a median of "
                      f"{cells.n(f['median_releases'])} releases (fewest {f['fewest_releases']}, most "
                      f"{f['most_releases']}). Handshakes: {f['answered_discover']} captured releases "
                      f"answered `server/discover`, {f['answered_initialize']} only `initialize`."]
    return "\n".join(lines)


def exclusions_section(rows) -> str:
    """Why each candidate not surveyed is not, with examples (the tables)."""
    lines = ["## Exclusions", "", "`exclusions.sql`: why the candidates that are not surveyed are not.", ""]
    lines += [f"- {r['class']}: {cells.cell(r['reason'])}: {r['candidates']} (for example "
              f"{', '.join(cells.code(e) for e in r['examples'])})" for r in rows["exclusions"]] or ["- none"]
    return "\n".join(lines)


def sdk_differences(rows) -> str:
    """Each server whose SDK listing differs from the crawler's, or where
    nothing was compared (the tables)."""
    differ = [r for r in rows["sdk_check"] if not (r["names_match"] and r["schemas_match"])]
    lines = ["## Checked against the SDK", "", "`sdk_check.sql`: the latest releases where the official "
             "`mcp` Python SDK client's listing differs from the crawler's, or where nothing was compared.", ""]
    lines += [f"- {r['server_id']} {r['version']}: crawler {r['crawler_tools']} tools, SDK "
              f"{'-' if r['sdk_tools'] is None else r['sdk_tools']}"
              + (f"; {cells.cell(r['difference'], 300)}" if r["difference"] else "")
              + ("" if r["checked"] else " (not checked)") for r in differ] or ["- none"]
    return "\n".join(lines)


def sdk_check_item(rows) -> str:
    """The Method section's item on the second capture with the SDK client."""
    s = rows["sdk_check_summary"][0] if rows["sdk_check_summary"] else {"listed": 0}
    item = ("- **Checked against the SDK.** The latest captured release of each server was listed "
            "again with the official `mcp` Python SDK client (`bench/sdk_check.py`, the same recipe "
            "and install) and compared with the crawler's capture: tool names and input schemas "
            f"(`sdk_check.sql`). {cells.count(s['listed'], 'server')} listed again")
    if not s["listed"]:
        return item + "."
    item += (f", {s['checked']} of them checked (both clients listed tools): the names match for "
             f"{s['names_match']}, the input schemas too for {s['schemas_match']}. Not checked: "
             f"{s['sdk_failed']} the SDK client could not list, {s['listed_none']} where a client listed no "
             "tools (an empty list compares nothing: never a match).")
    differ = [r for r in rows["sdk_check"] if not (r["names_match"] and r["schemas_match"])]
    if differ:
        item += f" Where they differ or nothing was compared: {cells.count(len(differ), 'server')} (tables.md)."
    return item


def scale_section(rows) -> str:
    s = rows["scale"][0]
    return f"""## Compared with single-snapshot captures

The largest live capture of MCP tool schemas we know of is one snapshot
at one point in time: {s['snapshot_packages']:,} npm packages, {s['snapshot_reachable']:,} of them reachable,
{s['snapshot_tool_schemas']:,} tool schemas (its figures, quoted in `scale.sql`). Registry trackers
count versions without comparing them. This survey (`scale.sql`):
{cells.count(s['servers'], 'server')} captured over {cells.count(s['releases'], 'release')}; their latest
releases hold {cells.count(s['latest_tools'], 'tool')}, and {s['tool_definitions']:,} distinct tool
definitions (a tool's name, description and schemas) were seen across
all releases. A snapshot counts what exists; only releases compared with
their predecessors say what changed and whom it broke."""
