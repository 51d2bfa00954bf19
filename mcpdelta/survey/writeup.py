"""The study's write-up: DIR/README.md and its figures.

Every number in the text is a value a query under ``sql/study/`` (or
``sql/``) returned on the study's lakes; this module only lays them out.
The prose around them says how they were made and never counts anything
itself, so the test that runs each query on a small slice covers every
figure the page can show.
"""

import dataclasses
import pathlib
import re

from mcpdelta.files import write_file
from mcpdelta.survey import cells
from mcpdelta.survey.documents import gather
from mcpdelta.survey.drift_section import drift_rows
from mcpdelta.survey.honesty_section import honesty
from mcpdelta.survey.passes import INSTALL_SKIPS
from mcpdelta.survey.queries import query
from mcpdelta.survey.report import ALL_PLOTS, PLOTS, render, save_png
from mcpdelta.survey.tables_page import TABLES, rules_table, tables

# queries that later queries read as views, created in this order
VIEWS = ("study/failures", "study/step_changes", "study/step_breaks", "study/to_latest")
PUBLISHED = "the published 66-pair backtest"
DEFAULT_TITLE = "the surveyed MCP servers"


@dataclasses.dataclass
class Page:
    """What the page is about beyond its rows: the servers file, the title
    (\"How often TITLE broke their callers\"), whether a population and an
    SDK check were given, and the capture folders it was made from."""
    servers_file: str
    title: str = DEFAULT_TITLE
    population: bool = False
    sdk_check: bool = False
    captures: list = dataclasses.field(default_factory=list)
    recount: bool = False


def study_connection(con):
    """``con`` with the study's intermediate queries as views."""
    from mcpdelta.resources import SQL_DIR as SQL

    for name in VIEWS:
        view = name.rsplit("/", 1)[-1]
        con.execute(f"CREATE OR REPLACE VIEW {view} AS\n" + (SQL / f"{name}.sql").read_text())
    return con


def counted_only(con):
    """``con`` with ``changes`` and ``pairs`` narrowed to the counted release
    steps, so the figures (drawn by the general queries the notebooks use)
    show what the tables count."""
    con.execute("CREATE TABLE counted_pairs AS "
                "SELECT server_id, old_digest, new_digest FROM release_steps WHERE counted")
    for table in ("changes", "pairs"):
        con.execute(f"ALTER VIEW {table} RENAME TO _uncounted_{table}")
        con.execute(f"CREATE VIEW {table} AS SELECT t.* FROM _uncounted_{table} t SEMI JOIN counted_pairs k "
                    "ON k.server_id = t.server_id AND k.old_digest = t.old_digest "
                    "AND k.new_digest = t.new_digest")
    return con


def gather_study(steps, latest, population=None, sdk_check=None, recount=None) -> dict:
    """Every query's rows: ``steps`` is the consecutive-steps lake, ``latest``
    the each-release-to-latest lake (both DuckDB connections); ``population``
    and ``sdk_check`` the rows of the study's --population and --sdk-check
    files (``mcpdelta.survey.population``), ``recount`` the --recount file
    (``mcpdelta.survey.recount``): tables the queries about them read."""
    from mcpdelta.survey import recount as second_reader
    from mcpdelta.survey.population import register

    study_connection(steps)
    study_connection(latest)
    register(steps, population, sdk_check)
    second_reader.register(steps, recount)
    rows = {name: query(steps, f"study/{name}") for name in (
        "coverage", "failures", "failure_reasons", "steps_by_server", "release_table", "step_breaks",
        "rules", "honesty", "break_examples", "backtest", "notes", "run", "largest_steps",
        "witness_gaps", "schema_habits", "behaviour", "break_share", "scale", "population", "exclusions",
        "funnel", "sdk_check", "sdk_check_summary", "crawl_time", "install_retries", "recipes", "recount",
        "recount_tools")}
    for name in ("to_latest", "to_latest_summary"):
        rows[name] = query(latest, f"study/{name}")
    return {name: [_literal_ids(r) for r in table] for name, table in rows.items()}


# the columns that hold a server's id or a version: a server or a registry chose them
ID_COLUMNS = ("server_id", "version", "old_version", "new_version", "latest")


def _literal_ids(row: dict) -> dict:
    """The row with its ids and versions as literal Markdown text
    (``mcpdelta.safe.md_text``), wherever the page puts them."""
    from mcpdelta.safe import md_text

    return {k: md_text(v) if k in ID_COLUMNS and isinstance(v, str) else v for k, v in row.items()}


def write(steps, latest, out, servers_file, *, population=None, sdk_check=None, title=None,
          captures=None, recount=None) -> dict:
    """README.md and one PNG per figure into ``out``; return the facts.
    ``captures``: the pass folders the study was given (the page then says
    how to regenerate it from them)."""
    out.mkdir(parents=True, exist_ok=True)
    rows = gather_study(steps, latest, population, sdk_check, recount)
    facts = gather(counted_only(steps), ALL_PLOTS)
    rows.update({name: [_literal_ids(r) for r in table] for name, table in drift_rows(steps).items()})
    figures = []
    for name in ALL_PLOTS:
        save_png(render(name, facts), out / f"{name}.png")
        figures.append(name)
    page = Page(servers_file, title or DEFAULT_TITLE, population is not None, sdk_check is not None,
                list(captures or []), recount is not None)
    write_file(out / "README.md", readme(rows, figures, page))
    write_file(out / TABLES, tables(rows, page))
    return {"rows": rows, "readme": out / "README.md", "tables": out / TABLES, "figures": figures}




# --- the page ---------------------------------------------------------------

def readme(rows, figures, page) -> str:
    """The findings: what was found, how sure, how it was measured; the
    tables behind them are in ``tables.md``."""
    from mcpdelta.survey import population as pop
    from mcpdelta.survey.recount import recount_section

    total = cells.total(rows["coverage"])
    steps = cells.total(rows["steps_by_server"])
    run = rows["run"][0] if rows["run"] else {}
    parts = [_header(run, page, rows), _summary(rows, total, steps), recount_section(rows, page.recount),
             _method(rows, total, page)]
    if page.population:
        parts.append(pop.population_section(rows))
    parts += [_failures(rows, total), honesty(rows), _instructive(rows, limit=5), rules_table(rows, top=10)]
    if rows["backtest"] and rows["backtest"][0]["packages"]:
        parts.append(_backtest(rows))
    if page.population:
        parts.append(pop.scale_section(rows))
    parts += [_figures(figures), _confidence(rows, total, steps), _elsewhere()]
    return cells.sections(parts)


def _elsewhere() -> str:
    return f"""## The tables, the site and the dataset

- [{TABLES}]({TABLES}): coverage and results per server, each upgrade to
  the latest release, every rule that fired, schema habits over time,
  behaviour, description drift per server, the recipes' tool-set notes,
  exclusions, the SDK check's differences, and every release with each
  breaking change and its witness.
- `mcpdelta site` (on the study's lake) builds the same study as pages to
  browse: a page per server (its releases, any two of them compared) and
  per rule; the lake's Parquet files are the dataset (`docs/dataset.md`)."""


def _failures(rows, total) -> str:
    """Coverage in short: how many releases were captured, and why the
    others were not (per server and per release in the tables)."""
    lines = ["## Coverage", "",
             f"{cells.count(total['captured'], 'version')} of {cells.n(total['attempted'])} attempted were "
             f"captured; {total['disagree']} disagreed between the two passes, {total['schemaless']} came out "
             f"schemaless and {total['dated_late']} are dated late by their registry (per server and per "
             f"release: *Coverage* in [{TABLES}]({TABLES})). Failed versions by reason "
             "(`failure_reasons.sql`):", ""]
    lines += [f"- `{r['reason']}`: {cells.count(r['versions'], 'version')} of "
              f"{cells.count(r['servers'], 'server')}" for r in rows["failure_reasons"]] \
        or ["- none: every version attempted was captured."]
    return "\n".join(lines)


def _header(run, page, rows) -> str:
    env = _environment(page.servers_file)
    command = run.get("command") or "mcpdelta study"
    timing = ""
    if run:
        timing = (f"The run this page comes from: {run['started_at']:%Y-%m-%d %H:%M} UTC on `{run['host']}`, "
                  f"{cells.n(run['total_s'])} s wall time before the write-up (capture passes "
                  f"{cells.n(run['capture_s'])} s, diffs {cells.n(run['diff_s'])} s, judges {cells.n(run['judge_s'])} s); "
                  f"peak memory {run['peak_rss_mib']} MiB in the study process and "
                  f"{run['child_peak_rss_mib']} MiB in its largest child process (an install, a server or "
                  f"a diff worker). Engine `{run['engine']}`, policy `{run['policy']}`.")
    reuse = ""
    if page.captures:
        passes = "; ".join(f"{r['client'] or 'no client (failed before any server started)'}: "
                           f"{cells.count(r['attempts'], 'attempt')}, {cells.n(r['install_h'])} h "
                           f"installing and {cells.n(r['capture_h'])} h capturing, {cells.day(r['first_attempt'])} "
                           f"to {cells.day(r['last_attempt'])}" for r in rows["crawl_time"])
        reuse = f"""From a fresh clone, reusing the committed captures (nothing is installed;
the run below was made this way):

```sh
python3 -m venv .venv && .venv/bin/pip install -e '.[dev]' && \\
  .venv/bin/{command} --captures {' '.join(page.captures)}
```

The captures themselves (`crawl_time.sql`, summed over attempts that ran
concurrently): {passes or 'no attempt recorded'}.
"""
    return f"""# How often {page.title} broke their callers

Regenerate this whole directory from nothing (a fresh clone, an empty
package cache; the installs need the npm and PyPI registries):

```sh
python3 -m venv .venv && .venv/bin/pip install -e '.[dev]' && \\
  {env}.venv/bin/{command}
```

{reuse}
{timing}

Every number below is the answer of a query under `sql/study/` (named
beside each table) on the study's lakes (kept in the `--work` folder, for
the notebooks under `notebooks/`); `tests/survey/test_study.py` runs the
same command and every query on a two-server, three-version slice. The
figures are drawn by the functions the notebooks use."""


def _environment(servers_file) -> str:
    """Variables the servers file reads (a dummy value: never a real key) and
    the ones that keep browser and GPU runtime downloads out of package installs."""
    try:
        text = pathlib.Path(servers_file).read_text(encoding="utf-8")
    except OSError:
        text = ""
    names = sorted(set(re.findall(r"\$\{([A-Z0-9_]+)\}", text)))
    pairs = [f"{n}=mcpdelta-dummy-not-a-secret" for n in names]
    pairs += [f"{k}={v}" for k, v in INSTALL_SKIPS.items()]
    return " ".join(pairs) + " \\\n  "


def _summary(rows, total, steps) -> str:
    lines = ["## In short", ""]
    empty = (f"; {total['empty']} of them listed no tools where tools were expected (*empty*, "
             "each recorded as a failure and never counted)") if total.get("empty") else ""
    lines.append(f"- {cells.count(total['attempted'], 'published version')} of "
                 f"{cells.count(total['servers'], 'server')} attempted, "
                 f"{total['captured']} captured, {total['failed']} could not be captured "
                 f"(each recorded with its reason){empty}.")
    lines.append(f"- {cells.count(steps['counted'], 'release step')} counted (each captured release against "
                 f"the one before), {steps['changed']} of them changed the contract. "
                 f"{cells.share(steps['proven_steps'], steps['proven_steps_pct'])} broke a caller with a "
                 f"*proven* break: {PROVEN_MEANS}. {cells.count(steps['by_rule_steps'], 'more step')} broke a caller "
                 f"*by rule* only ({BY_RULE_MEANS}), {cells.count(steps['unexplained_steps'], 'more step')} only "
                 f"with *unexplained* breaks ({UNEXPLAINED_MEANS}): "
                 f"{cells.share(steps['breaking_steps'], steps['breaking_steps_pct'])} in all.")
    if steps["breaking"]:
        lines.append(f"- {cells.count(steps['breaking'], 'breaking change')}: {steps['proven']} proven "
                     f"({cells.pct(steps['proven_pct'])}), {steps['by_rule']} by rule, {steps['unexplained']} "
                     "unexplained (`witness_gaps.sql` gives each reason; *How sure we are*).")
    share = rows["break_share"][0] if rows["break_share"] else None
    if share and share["servers_with_steps"]:
        lines.append(f"- {share['servers_broke_proven']} of the {cells.count(share['servers_with_steps'], 'server')} "
                     f"with a counted step ({cells.pct(share['servers_broke_proven_pct'])}) shipped at least one "
                     f"release with a proven break; {share['servers_broke']} "
                     f"({cells.pct(share['servers_broke_pct'])}) counting every break (`break_share.sql`).")
    if rows["largest_steps"]:
        big = rows["largest_steps"][0]
        which = "The largest step by proven breaks" if big["proven"] else "The largest step (none proven)"
        top = (f"{big['top_rule_proven']} of the proven ones `{big['top_rule']}`" if big["top_rule_proven"]
               else f"{big['top_rule_changes']} of them `{big['top_rule']}`")
        lines.append(f"- {which}, {big['server_id']} {big['old_version']} -> {big['new_version']}, brought "
                     f"{cells.count(big['proven'], 'proven breaking change')} ({big['by_rule']} more by rule, "
                     f"{big['unexplained']} unexplained), {top} (*Every release* in tables.md lists each step).")
    if steps["schemaless"]:
        lines.append(f"- {cells.count(steps['schemaless'], 'step')} not counted because a side's input schemas "
                     f"came out empty: {cells.count(total['schemaless'], 'release')} did, "
                     f"{total['schemaless_dated_late']} of them dated by the registry after a later "
                     "release and so installed with newer dependencies than their own (*Coverage*): "
                     "the flaw the published backtest had, detected rather than counted.")
    if steps["unstable"]:
        lines.append(f"- {cells.count(steps['unstable'], 'step')} not counted because two captures of one of "
                     "its releases disagreed.")
    if steps["recipe_changed"]:
        lines.append(f"- {cells.count(steps['recipe_changed'], 'step')} not counted because its two releases "
                     "were captured under different recipes (*Method*).")
    honesty = {(r["scheme"], r["declared"]): r for r in rows["honesty"]}
    everything = honesty.get((None, None))
    if everything and everything["steps"]:
        line = (f"- Version numbers: {cells.count(everything['proven_breaking_dishonest'], 'counted step')} broke a "
                "caller with a proven break under a bump that, by its scheme's rules, promised compatibility "
                f"({everything['breaking_dishonest']} counting every break)")
        if everything["semver_steps"]:
            line += (f"; read literally, {everything['proven_quiet_breaks']} of {everything['semver_steps']} "
                     f"semver-numbered steps ({cells.pct(everything['proven_quiet_breaks_pct'])}) shipped a proven "
                     f"break while only the minor or patch number moved ({everything['quiet_breaks']} counting "
                     "every break" + (f", 1 in {cells.n(everything['quiet_one_in'])}" if everything["quiet_one_in"]
                                      else "") + "; *Semver honesty*).")
        else:
            line += "; no counted step is semver-numbered (*Semver honesty*)."
        lines.append(line)
    upgrade = cells.total(rows["to_latest_summary"])
    if upgrade and upgrade["releases"]:
        lines.append(f"- Upgrading straight to the latest release breaks a caller with a proven break from "
                     f"{upgrade['proven_upgrades']} of {upgrade['releases']} earlier releases "
                     f"({upgrade['breaking_upgrades']} counting every break).")
    return "\n".join(lines)


# what each kind of evidence means, said once (mcpdelta/witness/evidence.py reads the notes)
PROVEN_MEANS = ("a breaking change proved by a witness, an arguments object the new advertised input schema "
                "rejects or a result the new output schema allows and the old one did not, confirmed by a "
                "JSON Schema validator (no tool is called)")
BY_RULE_MEANS = ("no witness, for a named reason: a tool or resource removed, an input property removed but "
                 "still accepted and ignored, ...; the rule asserts the break")
UNEXPLAINED_MEANS = "no witness and no named reason: the engine reports the break and cannot prove or explain it"


def _method(rows, total, page) -> str:
    from mcpdelta.survey import population as pop

    if total.get("passes", 0) >= 2:
        passes = f"""- **Two passes.** Pass B starts every installed version again, offline
  from pass A's package folders, under a second client identity
  (`{_second_pass()}`): it shows a server's output is stable, not that
  its install is reproducible. A version whose two captures differ is
  *unstable*: its steps are listed, flagged, and never counted."""
    else:
        passes = """- **One pass.** These captures were made once (the study was given a
  single capture folder), so flaky output is not told apart from a release
  change; *Coverage* shows no version confirmed."""
    if page.population:
        versions = """was generated from the population's
  classification (*Population*): every candidate classified as a server,
  each with a start recipe (arguments, dummy environment values, fixture
  files) that lets it list its tools offline. For each, its releases of the
  last 18 months, at most 12 per package: all of them when fewer,
  otherwise the first, the latest and evenly spaced ones between, every
  major boundary included; pre-releases only when a package has nothing
  else."""
    else:
        versions = """names each
  server as an npm or PyPI package and asks for every stable version the
  registry serves."""
    from mcpdelta.survey.recipes_section import recipes_item

    crosscheck = ("\n" + pop.sdk_check_item(rows)) if page.sdk_check else ""
    return f"""## Method

- **Which servers, which versions.** The servers file
  (`{page.servers_file}`) {versions}
- **Installs as published.** Each version is installed into its own folder
  *as it resolved on its publish date* (npm `--before`, pip
  `--uploaded-prior-to`, both set a minute after the publish time the
  registry gives), so a release runs with the dependencies its users got,
  not with today's; a PyPI server gets the interpreter its
  `Requires-Python` asks for. When a dependency the release needs is dated
  after it (a sibling package published minutes later, a re-uploaded
  file), the install is tried again with a cut-off a week later, then
  with none (today's dependencies), and the release is listed apart
  (*Coverage*); when no date helps, the failure says the registry does not
  hold what it needs. The date each install was
  pinned to is in *Every release* (tables.md). The registry's date can be wrong
  (a re-upload dates an old release after its successors); such releases
  are marked *dated late*, and those whose input schemas came out empty
  (*schemaless*) are shown but never counted.
- **Capture.** The crawler starts each version over stdio in a fresh home
  folder (`PYTHONHASHSEED=0` for Python servers), asks `server/discover`
  (the 2026-07-28 revision) and falls back to `initialize` for servers
  that predate it, and lists tools, prompts, resources and resource
  templates, following every page (a server that lies about pagination is
  caught). Servers that refuse to start without a key get a dummy value
  from the environment, never a real secret. A capture that lists no tools
  while the server advertises the tools capability, or while another
  release of it lists tools, is *empty*: a server started without the
  configuration it lists its tools for. It is recorded as a failure of its
  own kind (`empty`, with the likeliest cause from the server's stderr)
  and never counted as a release (`sql/empty_captures.sql`).
{recipes_item(rows)}{crosscheck}
{passes}
- **Steps.** Releases are ordered as semver where they parse. Each counted
  step is one captured release against the captured release before it (a
  step across a version that could not be captured says so in *Every
  release*, tables.md); a step whose two contracts are the same contract (equal
  canonical digests) counts with no change; a step whose two releases
  were captured under different recipes is flagged and not counted.
  Separately, each release is compared with the server's latest.
- **Classification.** `mcpdelta`'s engine classifies every change with a
  rule and a severity: input schemas contravariant, output schemas
  covariant, prose classified, anything unmodelled reported as BREAKING.
  Notation (`$schema`, `definitions` vs `$defs`, boolean vs numeric
  exclusive bounds, inlined `$ref`) is normalised first and reported once,
  as `*.dialect.changed`, never as a break. Each BREAKING schema change is
  checked by a witness: a value found by search and confirmed by a JSON
  Schema validator to pass one side's advertised schema and fail the
  other's. It proves the contract changed; whether a server enforces its
  schema at run time is not tested (no tool is called). Every count of
  breaking changes below is split by what stands behind each one
  (`mcpdelta/witness/evidence.py`): *proven* (a witness), *by rule* (no
  witness, for a named reason the engine gives) and *unexplained* (no
  witness and no named reason); a step or a server "broke a caller with a
  proven break" when one of its breaking changes is proven.
- **Judges.** If the config names LLM judges, they add advisory notes to
  prose changes; a note never changes a severity
  ({_notes_line(rows)})."""


def _second_pass() -> str:
    from mcpdelta.survey.passes import SECOND_PASS

    return f"{SECOND_PASS['name']}/{SECOND_PASS['version']}"


def _notes_line(rows) -> str:
    if not rows["notes"]:
        return "no judge was configured for this run"
    return "; ".join(f"{r['judge']}: {cells.count(r['notes'], 'note')}, {r['security_relevant']} "
                     "security-relevant" for r in rows["notes"])


def instructive_breaks(examples, limit=5) -> list:
    """The first ``limit`` ranked examples (break_examples.sql) whose rules
    and servers are all different."""
    chosen, rules, servers = [], set(), set()
    for r in examples:
        if r["rule"] not in rules and r["server_id"] not in servers:
            chosen.append(r)
            rules.add(r["rule"])
            servers.add(r["server_id"])
            if len(chosen) == limit:
                break
    return chosen


NUMBERS = {5: "five", 10: "ten"}


def _instructive(rows, limit=5) -> str:
    many = NUMBERS.get(limit, str(limit))
    lines = [f"## The {many} most instructive breaks", "",
             "`break_examples.sql`: the rules that broke the most servers, each shown by its best "
             f"example (a proven break first, then one by rule, under the quietest version bump), {many} different rules "
             f"on {many} different servers where the data allows. A rule many servers trip over is a "
             "mistake the next server will repeat."]
    from mcpdelta.engine.catalog import RULES

    chosen = instructive_breaks(rows["break_examples"], limit)
    if not chosen:
        return "\n".join(lines + ["", "No breaking change was found."])
    for i, r in enumerate(chosen, 1):
        lines += ["", f"{i}. **{r['server_id']} {r['old_version']} -> {r['new_version']}** "
                      f"(declared {r['declared']}, {r['bumped']} number moved): `{r['rule']}` on "
                      f"{cells.code(r['entity'] or '(server)')} at {cells.code(r['path'])}; this rule broke "
                      f"{cells.count(r['rule_servers'], 'server')} ({cells.count(r['rule_changes'], 'change')}).",
                  f"   {cells.cell(r['message'], 400)}"]
        lines.append(f"   Proven, by the witness {cells.witness(r['witness_json'])}." if r["witness_json"]
                     else f"   {r['evidence'].capitalize()}, no witness: "
                          f"{cells.cell(r['witness_note'] or 'none recorded', 400)}.")
        if r["rule"] in RULES:  # the lesson: the catalog's advice for the rule
            lines.append(f"   What the server could have done: {' '.join(RULES[r['rule']].note.split())}")
    return "\n".join(lines)


def _backtest(rows) -> str:
    b, total = rows["backtest"][0], cells.total(rows["coverage"])
    return f"""## Compared with {PUBLISHED}

The only published backtest of this kind (a hash-pinning tool's run over
{b['published_packages']} `@modelcontextprotocol/server-*` packages) reported {b['published_pairs']} consecutive
version pairs, {b['published_findings']} findings and {b['published_breaking']} of them "breaking" (its figures,
quoted in `backtest.sql`).
`backtest.sql`, our way, over the
{cells.count(b['packages'], '`@modelcontextprotocol/server-*` package')} surveyed
here: {cells.count(b['steps'], 'counted consecutive step')}, {b['changed']} with different
contracts, {cells.count(b['findings'], 'finding')}, {b['breaking']} graded BREAKING ({b['proven']} of them
proven by a witness) in {cells.count(b['breaking_steps'], 'step')} (see *In short* for the largest), and
{cells.count(b['dialect_changes'], 'notation change')} reported as `*.dialect.changed` instead of as
breaks; {cells.count(b['not_counted'], 'step')} of these packages are not counted, behind
{cells.count(b['schemaless_releases'], 'schemaless release')}. The numbers differ by
method, not by luck:

- **Dependencies as of the release.** The backtest installed old versions
  with today's dependencies, so several served schemas emptied by a newer
  zod; here every version is installed as it resolved on its publish
  date. Where the registry's date is itself late, the same emptying shows
  ({cells.count(total['schemaless'], 'schemaless release')} among all servers here,
  {total['schemaless_dated_late']} of them dated late): those releases are detected and
  their steps not counted.
- **Resources are resources.** The backtest parsed paged resources as
  tools; here each list is read by its own method and every page followed.
- **Notation is not a break.** The backtest counted `$schema` and
  serialisation changes as breaking; here notation is normalised and
  reported once per schema, never as BREAKING.
- **Counting.** The backtest's total was inflated by an output-counting
  bug; here a finding is one row per rule and JSON pointer, the same
  change reported once, and every count is a query over those rows.
- **Scope.** Its packages are not named here; our figure covers the counted
  steps of every `server-*` package in the servers file, over every version
  the registry serves, and a step with identical contracts counts (with no
  finding).
- **Confidence.** Each BREAKING schema change here carries a witness or
  the reason there is none, and a version whose two captures disagree is
  not counted."""


def _figures(figures) -> str:
    lines = ["## Figures", "", "The counted release steps, drawn by the functions the notebooks call "
             "(`mcpdelta/survey/report.py`).", ""]
    lines += [f"![{PLOTS[name].title}]({name}.png)" for name in figures]
    return "\n".join(lines)


def _confidence(rows, total, steps) -> str:
    return f"""## How sure we are

- **Captures**: {total['confirmed']} of {total['captured']} captured versions were
  captured identically by both passes; {total['disagree']} disagreed. Failed
  as *empty* (listed no tools where tools were expected): {total['empty']}.
- **Breaks**: of {cells.count(steps['breaking'], 'breaking change')}, by what stands behind
  each (`witness_gaps.sql`, the reading of `mcpdelta/witness/evidence.py`;
  each with its note in *Every release*, tables.md):
{_gaps(rows)}
- **Dates**: {total['dated_late_counted']} releases the registry dates late
  are in counted steps (their input schemas came out whole), though their installs may
  carry newer dependencies than their users had (a newer SDK can change the
  protocol revision or capabilities a release announces).
- **Not seen**: the crawler declares no client capabilities, so tools a
  server lists only to clients that support elicitation or sampling are not
  captured; a server that needs a real key to list its tools lists what it
  shows with a dummy one.
- **Judges**: {_notes_line(rows)}."""


# what each reading of a witness note means (mcpdelta/witness/evidence.py
# reads them; a named reason the engine adds later is shown by its name)
GAPS = {"proven": "a witness, confirmed by a JSON Schema validator",
        "accepted but ignored": "an input property removed while the new schema still accepts it as an "
                                "unknown key: a caller that sends it is not rejected, but the server ignores it",
        "none by nature": "no value tells the two schemas apart for a standard validator, e.g. a vendor "
                          "keyword or a schema appearing or vanishing: the rule asserts the break",
        "not a schema change": "a tool, prompt, resource or capability removed or renamed: nothing to "
                               "validate",
        "unmodelled keyword": "a JSON Schema keyword the engine does not model changed and no value showing "
                              "it was found: breaking by the rule that unmodelled means breaking",
        "format-only": "a value tells the two schemas apart only where `format` is read as an annotation; "
                       "a validator that asserts formats tells them apart nowhere",
        "unexplained": "no witness and no named reason: the bounded search gave up or its budget ran out; "
                       "reported, neither proved nor explained"}


def _gaps(rows) -> str:
    from mcpdelta.witness.evidence import KINDS

    ordered = sorted(rows["witness_gaps"], key=lambda r: KINDS.index(r["evidence"]))
    lines = []
    for r in ordered:
        what = r["evidence"] if r["reason"] is None else f"{r['evidence']}, {r['reason']}"
        meaning = GAPS.get(r["reason"] or r["evidence"], "a named reason the engine gives")
        lines.append(f"  - {cells.count(r['changes'], 'change')} {what} ({meaning}"
                     + (f"; {r['resources']} of them resources" if r["resources"] else "") + ")")
    return "\n".join(lines) or "  - none"
