"""The survey as a static site: ``mcpdelta site --lake LAKE --out DIR``.

    DIR/index.html              every server: registry, downloads, releases, steps, breaks
    DIR/servers/<slug>.html     one server: its releases, each step's changes, from -> to
    DIR/rules/index.html        every rule of the engine's catalog, with how often it fired
    DIR/rules/<rule>.html       one rule: its catalog text, its firings by month, its steps
    DIR/method.html             how the numbers were made
    DIR/figures.html            the study's figures, each beside the SQL that gives it
    DIR/sql/...                 that SQL, as the pages link it
    DIR/assets/                 the one stylesheet and script (no network at view time)
    DIR/data/v1/<table>.parquet the dataset (docs/dataset.md), with ``--data``

Pages come from the Jinja2 templates beside this file, in the one page
shell (``mcpdelta.pages``: autoescape on, and every value a server or
registry chose also through ``mcpdelta.safe.visible``): a hostile name is
text. Every number is a query under ``sql/site/`` (or ``sql/study/``) on
the lake, run once for all servers.
"""

import collections
import hashlib
import json
import pathlib
import re

from mcpdelta import pages
from mcpdelta.engine.catalog import RULES, SEVERITIES
from mcpdelta.resources import SQL_DIR
from mcpdelta.survey import queries

TEMPLATES = pathlib.Path(__file__).resolve().parent / "templates"
STATIC = TEMPLATES.parent / "static"

# a server's page lists about this many changes, shared among its steps and
# severities, and at least CHANGES_LEAST of each severity of a step (the rest
# are counted, and the dataset has them all): its page stays well under 1 MB
CHANGES_BUDGET = 1200
CHANGES_LEAST = 10
# a rule page lists at most this many steps, the most recent first (the most
# common rules fire on most steps of a thousand servers)
STEPS_SHOWN = 400
WITNESS_CHARS = 300
# the study's figures the site shows: (query under sql/study/, title, rows shown)
FIGURES = (
    ("break_share", "Servers that shipped a break", 5),
    ("largest_steps", "The largest steps by proven breaking changes", 10),
    ("honesty", "Semver honesty: the bump declared against the grade earned", 20),
    ("rules", "Rules by how often they fired on counted steps", 25),
    ("witness_gaps", "Breaking changes by evidence, and the reasons a witness is missing", 20),
    ("failure_reasons", "Releases that could not be captured, by reason", 20),
    ("schema_habits", "Schema habits by quarter", 20),
    ("backtest", "The published 66-pair backtest, replayed", 5),
    ("scale", "Scale", 5),
)
# the lake's tables and the two derived views the dataset carries (docs/dataset.md)
DATA_VERSION = "v1"
DATA_TABLES = ("manifests", "tools", "probes", "changes", "pairs", "notes", "attempts", "runs",
               "releases", "release_steps")
# a stable order for each exported table, so an export is the same file every time
DATA_ORDER = {"manifests": "server_id, version_key, captured_at, manifest_digest",
              "tools": "server_id, manifest_digest, name",
              "probes": "server_id, manifest_digest, name",
              "changes": "server_id, old_digest, new_digest, rule, entity, path, message",
              "pairs": "server_id, old_digest, new_digest, diffed_at, batch_id",
              "notes": "server_id, pair_key, rule, entity, path, judge, note_key",
              "attempts": "server_id, version_key, attempted_at, client, source",
              "runs": "started_at, run_id",
              "releases": "server_id, position",
              "release_steps": "server_id, position"}


def slug(text) -> str:
    """A file name for an id a server chose: its safe characters, and a
    short hash of the whole id whenever any were dropped or it was cut
    (so two ids never share a page)."""
    text = str(text)
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", text)[:80].lstrip(".") or "_"
    if safe != text:
        safe += "-" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return safe


def environment():
    env = pages.environment(TEMPLATES)
    env.filters["slug"] = slug
    env.filters["pct"] = lambda v: "" if v is None else f"{100 * v:.1f} %"
    env.filters["day"] = lambda v: "" if v is None else v.strftime("%Y-%m-%d")
    return env


def settle(con):
    """The lake's derived views (``empty_captures``, ``attempts``,
    ``ledger``, ``releases``, ``release_steps``: mcpdelta.lake) made tables,
    each from the same SQL, in the order they read each other: every page
    query reads them, and a view is computed again by each query (and each
    view) that names it, which made five in six of the build's time."""
    from mcpdelta.lake import ATTEMPTS_READ

    con.execute("SET enable_progress_bar = false")
    for view in ("release_steps", "releases", "ledger", "attempts", "empty_captures"):  # dependants first
        con.execute(f"DROP VIEW {view}")
    con.execute("CREATE TABLE empty_captures AS " + (SQL_DIR / "empty_captures.sql").read_text())
    view, table = "CREATE VIEW attempts AS", "CREATE TABLE attempts AS"
    assert ATTEMPTS_READ.startswith(view)
    con.execute(table + ATTEMPTS_READ[len(view):])
    for name in ("ledger", "releases", "release_steps"):
        con.execute(f"CREATE TABLE {name} AS " + (SQL_DIR / f"{name}.sql").read_text())
    return con


def _grouped(rows, *keys) -> dict:
    groups = collections.defaultdict(list)
    for row in rows:
        groups[tuple(row[k] for k in keys) if len(keys) > 1 else row[keys[0]]].append(row)
    return groups


def _witness(text):
    """A witness as one compact line: its kind and the value, cut."""
    if not text:
        return None
    try:
        witness = json.loads(text)
        value = json.dumps(witness.get("value"), sort_keys=True, ensure_ascii=False)
        line = f"{witness.get('kind')}: {value}"
    except (ValueError, AttributeError):
        line = text
    return line if len(line) <= WITNESS_CHARS else line[:WITNESS_CHARS - 1] + "…"


def _timeline(releases) -> tuple:
    """Each release's place (0..1) on its server's time line, by publish
    date (capture date where the registry gave none), and the line's first
    and last dates (a release dated late is not the first in version order)."""
    dates = [(r["published_at"] or r["captured_at"]) for r in releases]
    if not dates:
        return [], None
    low, high = min(dates), max(dates)
    span = (high - low).total_seconds() or 1.0
    return [(d - low).total_seconds() / span for d in dates], (low, high)


def _step_view(step, changes) -> dict:
    """A step with its changes by severity: the ones shown, and how many more
    the step counts (sql/site/step_changes.sql shares CHANGES_BUDGET among them)."""
    by_severity = []
    for severity in SEVERITIES:
        count = step[severity.lower()]
        if count:
            shown = [{**c, "witness": _witness(c["witness_json"])} for c in changes
                     if c["severity"] == severity]
            by_severity.append({"severity": severity, "count": count, "changes": shown,
                                "hidden": count - len(shown)})
    reasons = [text for flag, text in (("unstable", "two captures of a side disagree"),
                                       ("schemaless", "a side's input schemas came out empty"),
                                       ("recipe_changed", "the two releases ran under different recipes"))
               if step[flag]]
    if not step["diffed"]:
        reasons.append("the pair was not diffed" + (f": {step['error']}" if step["error"] else ""))
    return {**step, "groups": by_severity, "not_counted": reasons}


def _pairs_view(pair_rows) -> dict:
    """The from -> to matrix of one server: every two releases, older first."""
    cells = {}
    for (old, new), rows in _grouped(pair_rows, "old_position", "new_position").items():
        rules = [r for r in rows if r["rule"] is not None]
        total = {k: sum(r[k] for r in rules) for k in
                 ("breaking", "proven", "potentially_breaking", "non_breaking", "documentation")}
        cells[(old, new)] = {"old": old, "new": new, "diffed": rows[0]["diffed"],
                             "grade": rows[0]["grade"], "rules": rules, **total}
    missing = sum(1 for c in cells.values() if not c["diffed"])
    return {"cells": cells, "missing": missing, "pairs": len(cells)}


def _load_servers_file(path) -> dict:
    """{server id: (registry, package)} from a servers file, when given."""
    if not path:
        return {}
    from mcpdelta.crawl.servers import load

    targets, _ = load(path)
    return {t.id: (t.package.registry, t.package.name) for t in targets if t.package is not None}


def _load_downloads(path) -> dict:
    """{(registry, package): (text, as shown, downloads a month or None)} from a
    tab-separated file with columns registry, package (or name) and
    downloads (or popularity): "N downloads/month", a rank, ..."""
    if not path:
        return {}
    import csv
    import io

    from mcpdelta.errors import InputError
    from mcpdelta.inputs import read_text

    reader = csv.DictReader(io.StringIO(read_text(path, 64 * 1024 * 1024, "downloads file")),
                            delimiter="\t")
    fields = reader.fieldnames or ()
    name = next((f for f in ("package", "name") if f in fields), None)
    value = next((f for f in ("downloads", "popularity") if f in fields), None)
    if "registry" not in fields or name is None or value is None:
        raise InputError(str(path), "not a downloads file: its header needs registry, package "
                                    "(or name) and downloads (or popularity)")
    table = {}
    for row in reader:
        text = (row.get(value) or "").strip()
        if text:
            table[(row.get("registry"), row.get(name))] = (text, *_popularity(text))
    return table


def _popularity(text: str) -> tuple:
    """(what the index shows, downloads a month or None) of a popularity
    text: "86513438 downloads/month" shows as "86,513,438/month", "rank 6174
    of the 15,000 most downloaded" as "rank 6,174" (the whole text is the
    cell's title)."""
    count = re.fullmatch(r"([\d,]+)(?: downloads/month)?", text)
    if count:
        n = int(count.group(1).replace(",", ""))
        return f"{n:,}/month", n
    rank = re.fullmatch(r"rank ([\d,]+) of the [\d,]+ most downloaded", text)
    if rank:
        return f"rank {int(rank.group(1).replace(',', '')):,}", None
    return text, None


def build(con, out, *, servers_file=None, downloads=None, data=False, on_stage=None) -> dict:
    """Write the site for the lake ``con`` shows (``mcpdelta.survey.queries.open_lake``)
    into the folder ``out``; return counts: pages, bytes, the largest page."""
    out = pathlib.Path(out)
    stage = on_stage or (lambda name, what: None)
    packages = _load_servers_file(servers_file)
    popularity = _load_downloads(downloads)
    stage("query", "the lake")
    settle(con)
    engine, policy = queries.scope_of(con)
    servers = queries.query(con, "site/servers")
    releases = _grouped(queries.rows(con, "SELECT r.*, (SELECT count(*) FROM tools t WHERE t.server_id = "
                                          "r.server_id AND t.manifest_digest = r.digest) AS tools FROM releases r "
                                          "ORDER BY server_id, position"), "server_id")
    steps = _grouped(queries.rows(con, "SELECT * FROM release_steps ORDER BY server_id, position"), "server_id")
    changes = _grouped(queries.query(con, "site/step_changes", {"budget": CHANGES_BUDGET, "least": CHANGES_LEAST}),
                       "server_id", "position")
    pairs = _grouped(queries.query(con, "site/pair_rules"), "server_id")
    firings = _grouped(queries.query(con, "site/rule_firings"), "rule")

    for row in servers:
        registry, package = packages.get(row["server_id"], (None, None))
        text, shown, count = popularity.get((registry, package), (None, None, None))
        row.update(slug=slug(row["server_id"]), registry=registry, package=package,
                   downloads=text, downloads_shown=shown, downloads_n=count)

    env = environment()
    written = {}

    def page(path, template, **values):
        text = env.get_template(template).render(root="../" * path.count("/"), engine=engine,
                                                 policy=policy, **values)
        # a plain write: the site is rebuilt from the lake, never the only copy of anything
        _mkdir(out / path).write_text(text, encoding="utf-8")
        written[path] = len(text.encode("utf-8"))

    stage("pages", f"{len(servers)} servers")
    fired = {rule: sum(r["changes"] for r in rows) for rule, rows in firings.items()}
    page("index.html", "index.html", servers=servers,
         totals={k: sum(r[k] or 0 for r in servers) for k in ("releases", "counted", "proven_breaks")})
    for row in servers:
        sid = row["server_id"]
        mine = releases.get(sid, [])
        place, span = _timeline(mine)
        step_views = [_step_view(s, changes.get((sid, s["position"]), [])) for s in steps.get(sid, [])]
        page(f"servers/{row['slug']}.html", "server.html", server=row,
             releases=[{**r, "x": x} for r, x in zip(mine, place)], span=span, steps=step_views,
             matrix=_pairs_view(pairs.get(sid, [])))
    rules = [{"rule": r.as_json(), "fired": fired.get(rid, 0),
              "steps": len(firings.get(rid, ()))} for rid, r in RULES.items()]
    page("rules/index.html", "rules.html", rules=rules)
    by_id = {row["server_id"]: row for row in servers}
    for rid, rule in RULES.items():
        rows = firings.get(rid, [])
        months = collections.Counter()
        for r in rows:
            months[r["month"]] += r["changes"]
        shown = sorted(rows, key=lambda r: r["month"], reverse=True)[:STEPS_SHOWN]
        page(f"rules/{slug(rid)}.html", "rule.html", rule=rule.as_json(), message=rule.message,
             steps=[{**r, "slug": by_id[r["server_id"]]["slug"] if r["server_id"] in by_id else slug(r["server_id"])}
                    for r in shown], hidden=len(rows) - len(shown),
             months=sorted(months.items()), peak=max(months.values(), default=0))
    stage("figures", f"{len(FIGURES)} queries")
    from mcpdelta.survey import recount
    from mcpdelta.survey.population import register
    from mcpdelta.survey.writeup import study_connection

    study_connection(con)
    register(con, None, None)
    recount.register(con, None)
    figures = []
    for name, title, shown in FIGURES:
        rows = queries.query(con, f"study/{name}")
        figures.append({"name": name, "title": title, "columns": list(rows[0]) if rows else [],
                        "rows": rows[:shown], "hidden": max(0, len(rows) - shown)})
    sql_files = sorted({f"study/{n}.sql" for n, _, _ in FIGURES} | {
        "site/servers.sql", "site/step_changes.sql", "site/pair_rules.sql", "site/rule_firings.sql",
        "site/broke_most.sql", "release_steps.sql", "releases.sql", "ledger.sql"})
    page("figures.html", "figures.html", figures=figures)
    page("method.html", "method.html", sql_files=sql_files, data=data, data_version=DATA_VERSION,
         tables=DATA_TABLES)
    for name in sql_files:
        _mkdir(out / "sql" / name).write_text((SQL_DIR / name).read_text(), encoding="utf-8")
    for asset, source in (("site.css", pages.STYLE), ("site.js", STATIC / "site.js")):
        _mkdir(out / "assets" / asset).write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    exported = export(con, out / "data" / DATA_VERSION) if data else []
    largest = max(written, key=written.get)
    return {"pages": len(written), "bytes": sum(written.values()), "largest": largest,
            "largest_bytes": written[largest], "servers": len(servers), "data": exported}


def _mkdir(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def export(con, folder) -> list:
    """The dataset: each table as one Parquet file in a stable order."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for table in DATA_TABLES:
        target = folder / f"{table}.parquet"
        path = str(target).replace("'", "''")
        con.execute(f"COPY (SELECT * FROM {table} ORDER BY {DATA_ORDER[table]}) TO '{path}' "
                    "(FORMAT parquet, COMPRESSION zstd)")
        written.append(str(target))
    return written
