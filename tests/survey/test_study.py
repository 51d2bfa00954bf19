"""``mcpdelta study`` end to end on a two-server slice (tests/survey/slice).

The slice is captured for real (a raw stdio server replaying manifests,
two passes), surveyed, and written up; each query under ``sql/study/`` is
then checked against what the slice's manifests say, worked out by hand
in servers.yaml's header:

server-alpha 1.0.0 -> 1.1.0: ``search`` gains a required ``region``
  (BREAKING, witnessed) under a minor bump, and serverInfo.version moves
  (DOCUMENTATION); 1.1.0 -> 2.0.0: ``delete`` removed (BREAKING, no witness:
  not a schema change) under a major bump, plus the version (DOCUMENTATION).
beta 2025.1.1 -> 2025.2.1: ``city`` gains maxLength 50 (BREAKING, witnessed)
  plus the version; 2025.3.1 answers pass B with an extra tool, so it is
  unstable and its step is not counted; 2025.4.1 cannot start.
"""

import datetime as dt
import json
import os
import subprocess
import sys

import pytest

from mcpdelta.engine.catalog import RULES
from mcpdelta.engine.policy import Policy
from mcpdelta.lake import Lake
from mcpdelta.lake.ingest import attempt_row, capture_row, store
from mcpdelta.resources import SQL_DIR as SQL
from mcpdelta.survey.diffstage import engine_version, policy_hash, run_diff_stage
from mcpdelta.survey.population import load_population, load_sdk_check
from mcpdelta.survey.writeup import VIEWS, instructive_breaks, gather_study
from tests.conftest import ROOT

SLICE = ROOT / "tests" / "survey" / "slice"
MCPDELTA = str(ROOT / ".venv" / "bin" / "mcpdelta") if (ROOT / ".venv" / "bin" / "mcpdelta").exists() else "mcpdelta"
# the population sections' inputs: five candidates (the slice's two servers,
# a library, two excluded) and an SDK check of each latest release, beta's
# listing a tool the crawler's pass A did not see, and a server not surveyed
PAGE = ["--population", str(SLICE / "population.tsv"), "--sdk-check", str(SLICE / "sdk-check.tsv"),
        "--title", "the slice's servers"]


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    base = tmp_path_factory.mktemp("study")
    run = subprocess.run([MCPDELTA, "study", str(SLICE / "servers.yaml"), "--out", str(base / "out"),
                          "--work", str(base / "work"), "--cache", str(base / "cache"), "--format", "json"] + PAGE,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    summary = json.loads(run.stdout)
    scope = engine_version(), policy_hash(Policy())
    steps = Lake(str(base / "work" / "lake")).connect(*scope)
    latest = Lake(str(base / "work" / "lake-latest")).connect(*scope)
    population = load_population(SLICE / "population.tsv", SLICE / "servers.yaml")
    rows = gather_study(steps, latest, population, load_sdk_check(SLICE / "sdk-check.tsv"))
    return {"summary": summary, "rows": rows, "out": base / "out",
            "readme": (base / "out" / "README.md").read_text(), "tables": (base / "out" / "tables.md").read_text(),
            "base": base}


def by_server(rows):
    return {r["server_id"]: r for r in rows}


def test_every_study_query_is_run_by_the_write_up(study):
    on_disk = {p.stem for p in (SQL / "study").glob("*.sql")}
    assert on_disk == set(study["rows"]) | {v.rsplit("/", 1)[-1] for v in VIEWS}


def test_step_changes_are_the_counted_steps_changes(study, tmp_path):
    con = Lake(str(study["base"] / "work" / "lake")).connect(engine_version(), policy_hash(Policy()))
    con.execute("CREATE VIEW step_changes AS " + (SQL / "study" / "step_changes.sql").read_text())
    rows = con.execute("SELECT server_id, new_version, severity, count(*) FROM step_changes "
                       "GROUP BY ALL ORDER BY ALL").fetchall()
    # each counted step: its version moved (DOCUMENTATION) and one break; beta's unstable step absent
    assert rows == [("beta", "2025.2.1", "BREAKING", 1), ("beta", "2025.2.1", "DOCUMENTATION", 1),
                    ("server-alpha", "1.1.0", "BREAKING", 1), ("server-alpha", "1.1.0", "DOCUMENTATION", 1),
                    ("server-alpha", "2.0.0", "BREAKING", 1), ("server-alpha", "2.0.0", "DOCUMENTATION", 1)]


def test_coverage_counts_versions_passes_failures_and_disagreements(study):
    cov = by_server(study["rows"]["coverage"])
    alpha, beta, total = cov["server-alpha"], cov["beta"], cov[None]
    assert (alpha["attempted"], alpha["captured"], alpha["failed"]) == (3, 3, 0)
    assert (alpha["passes"], alpha["confirmed"], alpha["disagree"], alpha["unconfirmed"]) == (2, 3, 0, 0)
    assert (beta["attempted"], beta["captured"], beta["failed"]) == (4, 3, 1)
    assert (beta["passes"], beta["confirmed"], beta["disagree"], beta["unconfirmed"]) == (2, 2, 1, 0)
    assert (total["servers"], total["attempted"], total["captured"], total["failed"], total["confirmed"],
            total["disagree"]) == (2, 7, 6, 1, 5, 1)
    assert (total["schemaless"], total["dated_late"], total["dated_late_counted"]) == (0, 0, 0)  # no dates here


def test_a_version_that_cannot_start_is_a_failure_with_its_reason(study):
    [failure] = study["rows"]["failures"]
    assert (failure["server_id"], failure["version"], failure["reason"]) == ("beta", "2025.4.1", "server_exited")
    assert "cannot start" in failure["error"]
    assert study["rows"]["failure_reasons"] == [{"reason": "server_exited", "versions": 1, "servers": 1}]


def test_steps_are_counted_only_when_both_captures_agree(study):
    steps = by_server(study["rows"]["steps_by_server"])
    alpha, beta, total = steps["server-alpha"], steps["beta"], steps[None]
    assert (alpha["releases"], alpha["steps"], alpha["counted"], alpha["changed"]) == (3, 2, 2, 2)
    assert (alpha["breaking_steps"], alpha["breaking"], alpha["documentation"]) == (2, 2, 2)
    # 1.1.0's new required argument is proven by a witness; 2.0.0's removed tool by rule
    assert (alpha["proven"], alpha["by_rule"], alpha["unexplained"]) == (1, 1, 0)
    assert (alpha["proven_steps"], alpha["by_rule_steps"], alpha["unexplained_steps"]) == (1, 1, 0)
    assert (beta["releases"], beta["steps"], beta["counted"], beta["unstable"]) == (3, 2, 1, 1)
    assert (beta["breaking_steps"], beta["breaking"], beta["proven"], beta["documentation"]) == (1, 1, 1, 1)
    assert (total["counted"], total["breaking_steps"], total["breaking"], total["proven"]) == (3, 3, 3, 2)
    assert (total["proven_steps"], total["by_rule_steps"], total["unexplained_steps"]) == (2, 1, 0)
    assert total["recipe_changed"] == 0
    assert float(total["breaking_steps_pct"]) == 100.0
    assert float(total["proven_pct"]) == pytest.approx(66.7) == float(total["proven_steps_pct"])
    assert total["potentially_breaking"] == total["non_breaking"] == 0


def test_release_table_flags_the_unstable_step(study):
    table = [(r["server_id"], r["old_version"], r["new_version"], r["declared"], r["grade"], r["counted"])
             for r in study["rows"]["release_table"]]
    assert table == [
        ("beta", "2025.1.1", "2025.2.1", "calver", "major", True),
        ("beta", "2025.2.1", "2025.3.1", "calver", "patch", False),  # only the version moved in pass A
        ("server-alpha", "1.0.0", "1.1.0", "minor", "major", True),
        ("server-alpha", "1.1.0", "2.0.0", "major", "major", True),
    ]


def test_step_breaks_carry_rule_entity_and_witness(study):
    breaks = [(b["server_id"], b["new_version"], b["rule"], b["entity"], bool(b["witness_json"]), b["evidence"])
              for b in study["rows"]["step_breaks"]]
    assert breaks == [
        ("beta", "2025.2.1", "tool.input.constraint.tightened", "forecast", True, "proven"),
        ("server-alpha", "1.1.0", "tool.input.property.addedRequired", "search", True, "proven"),
        ("server-alpha", "2.0.0", "tool.removed", "delete", False, "by rule"),
    ]
    witness = json.loads(study["rows"]["step_breaks"][1]["witness_json"])
    assert witness["kind"] == "rejected" and "region" not in witness["value"]


def test_semver_honesty_reads_calver_apart(study):
    honesty = {(r["scheme"], r["declared"]): r for r in study["rows"]["honesty"]}
    minor = honesty[("semver", "minor")]
    assert (minor["steps"], minor["breaking_steps"], minor["breaking_dishonest"], minor["quiet_breaks"]) == (1, 1, 1, 1)
    assert (minor["proven_breaking_steps"], minor["proven_breaking_dishonest"], minor["proven_quiet_breaks"]) == (1, 1, 1)
    major = honesty[("semver", "major")]
    assert (major["breaking_steps"], major["dishonest"], major["quiet_breaks"]) == (1, 0, 0)
    assert major["proven_breaking_steps"] == 0  # the removed tool: a break by rule
    calver = honesty[("calver", None)]
    assert (calver["steps"], calver["breaking_steps"], calver["dishonest"], calver["semver_steps"]) == (1, 1, 0, 0)
    everything = honesty[(None, None)]
    assert (everything["steps"], everything["breaking_dishonest"], everything["quiet_breaks"],
            everything["semver_steps"]) == (3, 1, 1, 2)
    assert float(everything["breaking_dishonest_pct"]) == pytest.approx(33.3)
    assert float(everything["quiet_breaks_pct"]) == 50.0 and float(everything["quiet_one_in"]) == 2.0
    assert everything["quiet_breaks_spanning"] == 0  # beta's uncaptured 2025.4.1 is after its last release


def test_each_release_against_the_latest(study):
    latest = [(r["server_id"], r["version"], r["latest"], r["breaking"], r["counted"])
              for r in study["rows"]["to_latest"]]
    assert latest == [
        ("beta", "2025.1.1", "2025.3.1", 1, False),   # the latest is unstable
        ("beta", "2025.2.1", "2025.3.1", 0, False),
        ("server-alpha", "1.0.0", "2.0.0", 2, True),  # region required, delete removed
        ("server-alpha", "1.1.0", "2.0.0", 1, True),
    ]
    summary = by_server(study["rows"]["to_latest_summary"])
    assert (summary[None]["releases"], summary[None]["breaking_upgrades"], summary[None]["not_counted"],
            summary[None]["breaking_from_first"]) == (2, 2, 2, 2)
    # from 1.0.0 the witnessed required argument; from 1.1.0 only the removed tool, by rule
    assert (summary[None]["proven_upgrades"], summary[None]["proven_from_first"]) == (1, 1)
    assert summary["beta"]["breaking_from_first"] is None


def test_rules_count_counted_steps_only(study):
    rules = {(r["rule"], r["severity"]): (r["changes"], r["steps"], r["servers"], r["proven"], r["by_rule"],
                                          r["unexplained"], r["proven_servers"]) for r in study["rows"]["rules"]}
    assert rules == {
        ("server.identity.changed", "DOCUMENTATION"): (3, 3, 2, 0, 0, 0, 0),
        ("tool.input.constraint.tightened", "BREAKING"): (1, 1, 1, 1, 0, 0, 1),
        ("tool.input.property.addedRequired", "BREAKING"): (1, 1, 1, 1, 0, 0, 1),
        ("tool.removed", "BREAKING"): (1, 1, 1, 0, 1, 0, 0),
    }


def test_instructive_breaks_are_distinct_in_rule_and_server(study):
    examples = study["rows"]["break_examples"]
    assert [e["rule"] for e in examples] == [  # one server each: ties fall to the rule's name
        "tool.input.constraint.tightened", "tool.input.property.addedRequired", "tool.removed"]
    chosen = instructive_breaks(examples)
    assert [(c["server_id"], c["rule"]) for c in chosen] == [
        ("beta", "tool.input.constraint.tightened"), ("server-alpha", "tool.input.property.addedRequired")]


def test_backtest_figures_cover_the_server_packages(study):
    [b] = study["rows"]["backtest"]
    assert (b["packages"], b["steps"], b["changed"], b["findings"], b["breaking"], b["breaking_steps"],
            b["dialect_changes"], b["not_counted"], b["schemaless_releases"]) == (1, 2, 2, 4, 2, 2, 0, 0, 0)
    assert b["proven"] == 1
    assert (b["published_pairs"], b["published_findings"], b["published_breaking"]) == (66, 140, 43)


def test_largest_steps_and_why_breaks_have_no_witness(study):
    largest = [(r["server_id"], r["new_version"], r["proven"], r["breaking"], r["top_rule"], r["top_rule_proven"])
               for r in study["rows"]["largest_steps"]]
    assert largest == [("beta", "2025.2.1", 1, 1, "tool.input.constraint.tightened", 1),  # ties: by server
                       ("server-alpha", "1.1.0", 1, 1, "tool.input.property.addedRequired", 1),
                       ("server-alpha", "2.0.0", 0, 1, "tool.removed", 0)]  # proven breaks rank first
    assert study["rows"]["witness_gaps"] == [
        {"evidence": "by rule", "reason": "not a schema change", "changes": 1, "resources": 0},
        {"evidence": "proven", "reason": None, "changes": 2, "resources": 0}]


def test_the_run_records_its_cost_and_no_configured_judge_notes(study):
    [run] = study["rows"]["run"]
    assert run["command"].startswith("mcpdelta study ") and run["total_s"] >= run["diff_s"] >= 0
    assert run["peak_rss_mib"] > 0
    # no judge configured: only the offline judge's notes (the jury extra), no security flag
    assert {r["judge"] for r in study["rows"]["notes"]} <= {"wordllama"}
    assert all(r["security_relevant"] == 0 for r in study["rows"]["notes"])


def test_the_readme_states_the_slice_numbers(study):
    text = study["readme"]
    assert text.splitlines()[0].startswith("# ")
    assert "mcpdelta study " in text.split("## In short")[0]  # the command at the top
    assert "- 7 published versions of 2 servers attempted, 6 captured, 1 could not be captured" in text
    assert "3 release steps counted" in text and "2 (66.7 %) broke a caller with a *proven* break" in text
    assert "1 more step broke a caller *by rule* only" in text and "3 (100 %) in all" in text
    assert "- 3 breaking changes: 2 proven (66.7 %), 1 by rule, 0 unexplained" in text
    assert "1 step not counted because two captures of one of its releases disagreed" in text
    assert ("The largest step by proven breaks, beta 2025.1.1 -> 2025.2.1, brought 1 proven breaking change "
            "(0 more by rule, 0 unexplained), 1 of the proven ones `tool.input.constraint.tightened`") in text
    assert "  - 1 change by rule, not a schema change (a tool, prompt" in text
    assert "  - 2 changes proven (a witness" in text
    assert ("read literally, 1 of 2 semver-numbered steps (50 %) shipped a proven break while only the minor "
            "or patch number moved (1 counting every break, 1 in 2; *Semver honesty*)") in text
    assert "| beta | 2025.4.1 |  | `server_exited` |" in study["tables"]  # each failure, in the tables
    assert "| `tool.removed` | BREAKING | 1 | 1 | 1 | 0 / 1 / 0 | 0 |" in text  # the per-rule split
    assert "| **all** | 6 | 3 | 3 | 2 (66.7 %) | 3 (100 %) | 2 / 1 / 0 |" in study["tables"]  # per-server split
    assert "| 1.1.0 | 2.0.0 | `tool.removed` | delete | `/tools/delete` | by rule | not a schema change" \
        in study["tables"]
    assert "[tables.md](tables.md)" in text and "## Every release" not in text  # findings, the tables apart
    assert "- **Two passes.**" in text and "(`tests/survey/slice/servers.yaml`)" not in text
    assert f"(`{SLICE / 'servers.yaml'}`)" in text
    assert "reported 66 consecutive\nversion pairs, 140 findings and 43" in text
    assert "1. **beta 2025.1.1 -> 2025.2.1** (declared calver" in text
    lesson = RULES["tool.input.constraint.tightened"].note  # each break carries its rule's advice
    assert f"What the server could have done: {lesson}" in text
    for figure in ("rule_frequencies", "semver_honesty", "server_timeline"):
        assert (study["out"] / f"{figure}.png").stat().st_size > 1000
        assert f"]({figure}.png)" in text


def test_schemaless_and_dated_late_releases_are_shown_not_counted(tmp_path):
    """A release whose tools' input schemas came out empty (what a newer zod
    serves) is flagged schemaless; one the registry dates after a higher
    version is dated late; a step touching a schemaless release is not
    counted."""
    lake = Lake(str(tmp_path / "lake"))
    day = dt.datetime(2025, 1, 1, tzinfo=dt.timezone.utc)
    full = {"type": "object", "properties": {"q": {"type": "string"}}}
    contracts = {  # version: (input schema of both tools, publish date)
        "0.1.0": (full, day),
        "0.2.0": ({"$schema": "http://json-schema.org/draft-07/schema#"}, day + dt.timedelta(days=300)),
        "0.3.0": (full, day + dt.timedelta(days=10)),
        "0.3.1": (full, day + dt.timedelta(days=20)),  # adds tool c: Cargo reads 0.3.0 -> 0.3.1 as minor
    }
    rows, attempts = [], []
    for version, (schema, published) in contracts.items():
        tools = [{"name": n, "inputSchema": schema} for n in ("a", "b", "c")[:3 if version == "0.3.1" else 2]]
        row = capture_row("s", version, json.dumps({"tools": tools}), source="test", captured_at=day)
        rows.append(row)
        attempts.append(attempt_row({"id": "s", "version": version, "ok": True, "captured_at": day.isoformat(),
                                     "published_at": published.isoformat(), "client": {"name": "c", "version": "1"}},
                                    row["manifest_digest"], "test"))
    store(lake, rows, attempts)
    run_diff_stage(lake, Policy(), workers=1)
    con = lake.connect(engine_version(), policy_hash(Policy()))
    releases = con.execute("SELECT version, schemaless, dated_late FROM releases ORDER BY position").fetchall()
    [coverage] = [r for r in con.execute("SELECT server_id, schemaless, dated_late, schemaless_dated_late, "
                                         "dated_late_counted FROM ({})".format((SQL / "study" / "coverage.sql")
                                                                              .read_text())).fetchall()
                  if r[0] is None]
    assert coverage == (None, 1, 1, 1, 0)
    assert releases == [("0.1.0", False, False), ("0.2.0", True, True), ("0.3.0", False, False),
                        ("0.3.1", False, False)]
    steps = con.execute("SELECT new_version, schemaless, counted, declared, grade, honest "
                        "FROM release_steps ORDER BY position").fetchall()
    assert steps == [("0.2.0", True, False, "major", "major", None), ("0.3.0", True, False, "major", "major", None),
                     ("0.3.1", False, True, "minor", "minor", True)]
    # a pair retried after an error keeps both ledger rows; the step is still one step, counted
    [retried] = con.execute("SELECT * FROM pairs WHERE new_version = '0.3.1'").fetchall()
    row = dict(zip([d[0] for d in con.description], retried))
    row.update(error="an earlier failure", diffed_at=row["diffed_at"] - dt.timedelta(hours=1))
    lake.append("pairs", [row], "retried")
    con = lake.connect(engine_version(), policy_hash(Policy()))
    assert con.execute("SELECT count(*), count(*) FILTER (WHERE counted) FROM release_steps "
                       "WHERE new_version = '0.3.1'").fetchone() == (1, 1)


def test_study_mistakes_are_one_line_errors(tmp_path):
    missing = subprocess.run([MCPDELTA, "study", str(tmp_path / "nope.yaml"), "--out", str(tmp_path / "o"),
                              "--work", str(tmp_path / "w")], capture_output=True, text=True)
    assert missing.returncode == 2 and "nope.yaml" in missing.stderr
    assert len(missing.stderr.strip().splitlines()) == 1
    (tmp_path / "a-file").write_text("")
    for flag in ("--out", "--work"):
        other = "--work" if flag == "--out" else "--out"
        misnamed = subprocess.run([MCPDELTA, "study", str(SLICE / "servers.yaml"), flag, str(tmp_path / "a-file"),
                                   other, str(tmp_path / "elsewhere")], capture_output=True, text=True)
        assert misnamed.returncode == 2 and f"{flag} names a folder" in misnamed.stderr
        assert len(misnamed.stderr.strip().splitlines()) == 1
    assert not os.path.exists(tmp_path / "elsewhere" / "lake")  # refused before any work
    (tmp_path / "bad.tsv").write_text("registry\tpackage\tclass\nnpm\tx\tserver\n")
    (tmp_path / "odd.tsv").write_text((SLICE / "population.tsv").read_text().replace("not-a-server", "library"))
    for flag, path, problem in (("--population", tmp_path / "bad.tsv", "no column 'evidence'"),
                                ("--population", tmp_path / "odd.tsv", "class 'library' is not one of"),
                                ("--sdk-check", tmp_path / "bad.tsv", "no column 'server_id'"),
                                ("--population", tmp_path / "absent.tsv", "absent.tsv")):
        wrong = subprocess.run([MCPDELTA, "study", str(SLICE / "servers.yaml"), "--out", str(tmp_path / "o2"),
                                "--work", str(tmp_path / "w2"), flag, str(path)], capture_output=True, text=True)
        assert wrong.returncode == 2 and problem in wrong.stderr, wrong.stderr
        assert len(wrong.stderr.strip().splitlines()) == 1
        assert not os.path.exists(tmp_path / "w2" / "pass-a")  # said before any capture


def test_a_second_run_on_the_same_work_folder_resumes_and_writes_the_same_page(study):
    base = study["base"]
    again = subprocess.run([MCPDELTA, "study", str(SLICE / "servers.yaml"), "--out", str(base / "again"),
                            "--work", str(base / "work"), "--cache", str(base / "cache"), "--format", "json"] + PAGE,
                           capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    con = Lake(str(base / "work" / "lake")).connect()
    runs = con.execute("SELECT pairs, pairs_diffed, pairs_cached FROM runs WHERE command = 'study' "
                       "ORDER BY finished_at").fetchall()
    assert [r[1] for r in runs] == [runs[0][0], 0]  # the second run diffed nothing new

    def page(path):  # the run's own timing line aside
        return [line for line in path.read_text().splitlines()
                if not line.startswith("The run this page comes from")]
    first, second = page(study["out"] / "README.md"), page(base / "again" / "README.md")
    assert [a for a, b in zip(first, second) if a != b] == [
        line for line in first if "--out" in line]  # only the command's --out differs
    assert page(study["out"] / "tables.md") == page(base / "again" / "tables.md")


def test_one_capture_pass_is_said_and_nothing_is_called_confirmed(study, tmp_path):
    single = subprocess.run([MCPDELTA, "study", str(SLICE / "servers.yaml"), "--out", str(tmp_path / "out"),
                             "--work", str(tmp_path / "work"), "--captures", str(study["base"] / "work" / "pass-a")],
                            capture_output=True, text=True, timeout=300)
    assert single.returncode == 0, single.stderr
    con = Lake(str(tmp_path / "work" / "lake")).connect()
    [total] = [r for r in con.execute(f"SELECT server_id, passes, confirmed, disagree, unconfirmed, captured "
                                      f"FROM ({(SQL / 'study' / 'coverage.sql').read_text()})").fetchall()
               if r[0] is None]
    assert total == (None, 1, 0, 0, 6, 6)  # pass A alone: every capture unconfirmed, none disagreeing
    text = (tmp_path / "out" / "README.md").read_text()
    assert "- **One pass.**" in text and "- **Two passes.**" not in text


RECOUNT = ROOT / "bench" / "recount.py"


def recount(*folders) -> dict:
    """bench/recount.py on the folders, in a fresh interpreter where any
    import of ``mcpdelta`` fails: the second reader shares no code with the study."""
    code = ("import runpy, sys; sys.modules['mcpdelta'] = None; sys.argv = sys.argv[1:]; "
            "runpy.run_path(sys.argv[0], run_name='__main__')")
    run = subprocess.run([sys.executable, "-I", "-c", code, str(RECOUNT), *map(str, folders)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def test_a_second_reader_recounts_the_figures_and_the_page_sets_them_beside_its_own(study, tmp_path):
    passes = [study["base"] / "work" / "pass-a", study["base"] / "work" / "pass-b"]
    found = recount(*passes)
    tools = {}  # by hand: pass A's releases are the slice's manifests (beta 2025.4.1 cannot start)
    for path in (SLICE / "manifests").glob("*/*.json"):
        if not path.name.endswith(".second-pass.json"):
            tools[(path.parent.name, path.stem)] = len(json.loads(path.read_text())["tools"])
    assert found["figures"] == {"attempted": 7, "captured": 6, "empty": 0, "servers": 2, "releases": 6,
                                "steps": 4, "tools": sum(tools.values())}
    assert {(s, v): n for s, v, n in found["release_tools"]} == tools
    assert [(p["logged"], p["captures"]) for p in found["passes"]] == [(7, 6), (7, 6)]
    file = tmp_path / "recount.json"
    file.write_text(json.dumps(found))
    run = subprocess.run([MCPDELTA, "study", str(SLICE / "servers.yaml"), "--out", str(tmp_path / "out"),
                          "--work", str(tmp_path / "work"), "--recount", str(file), "--captures", *map(str, passes)],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    text = (tmp_path / "out" / "README.md").read_text()
    section = text.split("## The figures, recounted")[1].split("\n## ")[0]
    assert f"| tools the releases list | {sum(tools.values())} | {sum(tools.values())} | same |" in section
    assert f"| captured in {passes[1]} | 6 | 6 | same |" in section
    assert "differs" not in section and "their tool counts agree on 6" in section
    # a recount that disagrees is shown as such, figure by figure and release by release
    scope = engine_version(), policy_hash(Policy())
    wrong = {**found, "figures": {**found["figures"], "steps": 5},
             "release_tools": [[s, v, n + (s == "beta" and v == "2025.1.1")] for s, v, n in found["release_tools"]]}
    from mcpdelta.survey.recount import load_recount, recount_section

    file.write_text(json.dumps(wrong))
    rows = gather_study(Lake(str(tmp_path / "work" / "lake")).connect(*scope),
                        Lake(str(tmp_path / "work" / "lake-latest")).connect(*scope), recount=load_recount(file))
    section = recount_section(rows, True)
    assert "| release steps (counted or not) | 4 | 5 | **differs** |" in section
    assert "their tool counts agree on 5" in section
    assert f"| beta | 2025.1.1 | {tools[('beta', '2025.1.1')]} | {tools[('beta', '2025.1.1')] + 1} |" in section


def test_the_recount_counts_no_capture_that_names_a_tool_twice(tmp_path):
    # the study's ingest refuses such a manifest (tools are told apart by
    # name): the second reader, by its own reading, does not count it either
    tool = {"name": "get", "inputSchema": {"type": "object"}}
    for version, tools in (("1.0.0", [tool]), ("1.1.0", [tool, {**tool, "description": "again"}])):
        (tmp_path / "a" / "srv").mkdir(parents=True, exist_ok=True)
        (tmp_path / "a" / "srv" / f"{version}.json").write_text(json.dumps({"capabilities": {"tools": {}},
                                                                            "tools": tools}))
    found = recount(tmp_path / "a")
    assert found["figures"]["attempted"] == 2
    assert (found["figures"]["captured"], found["figures"]["releases"]) == (1, 1)


def test_a_recount_file_of_another_shape_is_a_one_line_error(tmp_path):
    (tmp_path / "bad.json").write_text('{"figures": {"attempted": "seven"}}')
    run = subprocess.run([MCPDELTA, "study", str(SLICE / "servers.yaml"), "--out", str(tmp_path / "o"),
                          "--work", str(tmp_path / "w"), "--recount", str(tmp_path / "bad.json")],
                         capture_output=True, text=True)
    assert run.returncode == 2 and "bad.json" in run.stderr and "figures.attempted" in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1
    assert not os.path.exists(tmp_path / "w" / "pass-a")  # said before any capture


def test_no_sentence_says_none_or_n_a_where_nothing_was_counted(tmp_path):
    """One release captured, one package whose versions could not even be
    looked up (its log row names no client): nothing to count, and the page
    says so in words."""
    folder = tmp_path / "captures"
    (folder / "solo").mkdir(parents=True)
    (folder / "solo" / "1.0.0.json").write_text(json.dumps(
        {"capabilities": {"tools": {}}, "tools": [{"name": "t", "inputSchema": {"type": "object"}}]}))
    rows = [{"id": "solo", "version": "1.0.0", "ok": True, "captured_at": "2026-01-01T00:00:00Z",
             "client": {"name": "mcpdelta-crawler", "version": "0.1.0"}},
            {"id": "ghost", "version": "latest", "ok": False, "error_kind": "version_lookup",
             "error": "no published version", "captured_at": "2026-01-01T00:00:01Z"}]
    (folder / "crawl-log.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    run = subprocess.run([MCPDELTA, "study", str(SLICE / "servers.yaml"), "--out", str(tmp_path / "out"),
                          "--work", str(tmp_path / "work"), "--captures", str(folder)],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    text = (tmp_path / "out" / "README.md").read_text()
    assert "0 release steps counted" in text
    assert "no client (failed before any server started): 1 attempt" in text
    for slip in ("None", "n/a", "1 in 0", "nan"):
        assert slip not in text, slip


def test_schema_habits_count_each_release_by_its_publish_quarter(tmp_path):
    """Two releases in 2025-Q1 (one of them captured twice), one in 2025-Q3;
    the tools' declarations counted by hand."""
    lake = Lake(str(tmp_path / "lake"))
    q1, q3 = dt.datetime(2025, 2, 1, tzinfo=dt.timezone.utc), dt.datetime(2025, 8, 1, tzinfo=dt.timezone.utc)
    closed = {"type": "object", "additionalProperties": False}
    contracts = {  # version: (tools, publish date)
        "1.0.0": ([{"name": "a", "inputSchema": {"type": "object"}, "description": "A."},
                   {"name": "b", "inputSchema": closed, "description": " "}], q1),
        "1.1.0": ([{"name": "a", "inputSchema": closed, "description": "A.", "annotations": {"readOnlyHint": True}},
                   {"name": "b", "inputSchema": closed, "outputSchema": {"type": "object"}}], q1),
        "2.0.0": ([{"name": "a", "inputSchema": closed, "outputSchema": {"type": "object"},
                    "annotations": {}, "description": "A."}], q3),
    }
    rows, attempts = [], []
    for version, (tools, published) in contracts.items():
        for captured in (q3, q3 + dt.timedelta(days=1)) if version == "1.0.0" else (q3,):
            row = capture_row("s", version, json.dumps({"tools": tools}), source="test", captured_at=captured)
            rows.append(row)
            attempts.append(attempt_row({"id": "s", "version": version, "ok": True,
                                         "captured_at": captured.isoformat(), "published_at": published.isoformat(),
                                         "client": {"name": "c", "version": "1"}}, row["manifest_digest"], "test"))
    store(lake, rows, attempts)
    con = lake.connect(engine_version(), policy_hash(Policy()))
    got = [dict(zip([d[0] for d in con.description], r))
           for r in con.execute((SQL / "study" / "schema_habits.sql").read_text()).fetchall()]
    assert [(r["quarter"], r["servers"], r["releases"], r["tools"], r["with_output_schema"], r["with_annotations"],
             r["with_description"], r["closed_input"]) for r in got] == [
        ("2025-Q1", 1, 2, 4, 1, 1, 2, 3),
        ("2025-Q3", 1, 1, 1, 1, 1, 1, 1)]


def test_population_counts_the_candidates_by_class_and_folds_exclusion_details(study):
    rows = {r["class"]: r for r in study["rows"]["population"]}
    assert (rows["server"]["candidates"], rows["server"]["npm"], rows["server"]["pypi"],
            rows["server"]["surveyed"]) == (2, 1, 1, 2)
    assert (rows["excluded"]["candidates"], rows["excluded"]["surveyed"]) == (2, 0)
    assert (rows[None]["candidates"], rows[None]["surveyed"]) == (5, 2)
    exclusions = [(r["class"], r["reason"], r["candidates"], list(r["examples"])) for r in study["rows"]["exclusions"]]
    assert exclusions == [("excluded", "needs a remote service", 2, ["@slice/hosted", "gamma-mcp"]),
                          ("not-a-server", "library (no executable)", 1, ["@slice/mcp-sdk"])]


def test_the_funnel_runs_from_candidates_to_captured_releases(study):
    [f] = study["rows"]["funnel"]
    assert (f["candidates"], f["servers"], f["servers_not_surveyed"], f["surveyed"]) == (5, 2, 0, 2)
    assert (f["attempted"], f["started"], f["captured"]) == (2, 2, 2)
    assert (f["releases_attempted"], f["releases_captured"]) == (7, 6)  # beta 2025.4.1 cannot start
    assert float(f["releases_captured_pct"]) == pytest.approx(85.7)
    assert (f["median_releases"], f["fewest_releases"], f["most_releases"]) == (3, 3, 3)
    assert f["answered_discover"] + f["answered_initialize"] == 6


def test_break_share_and_scale_count_servers_releases_and_tools(study):
    [share] = study["rows"]["break_share"]
    assert (share["servers_with_steps"], share["servers_broke"], float(share["servers_broke_pct"])) == (2, 2, 100.0)
    [scale] = study["rows"]["scale"]
    definitions = set()  # every pass-A release's tools, by hand from the slice's manifests
    for path in (SLICE / "manifests").glob("*/*.json"):
        if not path.name.endswith(".second-pass.json"):
            definitions |= {(path.parent.name, json.dumps(t, sort_keys=True))
                            for t in json.loads(path.read_text())["tools"]}
    assert (scale["servers"], scale["releases"], scale["tool_definitions"]) == (2, 6, len(definitions))
    assert scale["latest_tools"] == 2  # alpha 2.0.0's search, beta 2025.3.1's forecast
    assert scale["snapshot_tool_schemas"] == 9922


def test_the_sdk_check_keeps_surveyed_servers_and_puts_mismatches_first(study):
    rows = [(r["server_id"], r["sdk_tools"], r["names_match"]) for r in study["rows"]["sdk_check"]]
    assert rows == [("beta", 2, False), ("server-alpha", 1, True)]  # gamma is not in the study
    [summary] = study["rows"]["sdk_check_summary"]
    assert (summary["checked"], summary["sdk_failed"], summary["names_match"], summary["schemas_match"]) == (2, 0, 1, 1)


def test_the_population_page_has_its_sections(study):
    text = study["readme"]
    assert text.splitlines()[0] == "# How often the slice's servers broke their callers"
    assert "5 candidates -> 2 classified as servers (0 of them missing from the servers file)" in text
    assert ("-> 2 with at least one release captured; 0 more started but never listed a tool where tools "
            "were expected (*empty*, counted as failed).") in text
    assert "Releases: 6 of 7 attempted captured (85.7 %), 0 of the others empty;" in text
    assert "- excluded: needs a remote service: 2 (for example `@slice/hosted`, `gamma-mcp`)" in study["tables"]
    assert ("2 servers listed again, 2 of them checked (both clients listed tools): the names match for 1, "
            "the input schemas too for 1. Not checked: 0 the SDK client could not list, 0 where a client listed "
            "no tools") in text
    assert "- beta 2025.3.1: crawler 1 tools, SDK 2; only the SDK lists extra" in study["tables"]
    assert "- 2 of the 2 servers with a counted step (100 %) shipped at least one release" in text
    assert "## The five most instructive breaks" in text
    assert "## Compared with single-snapshot captures" in text and "2 servers captured over 6 releases" in text
    assert "Captured only with a later dependency cut-off (`install_retries.sql`): 0 releases" in study["tables"]


def test_step_breaks_are_in_one_order_whatever_order_the_changes_come_in():
    """Two changes of one rule at one place in one step, differing only in
    their message and witness note: the same table from either storage order."""
    import duckdb

    from mcpdelta.resources import sql

    rows = [("s", 1, "1.0", "2.0", "minor", "major", "tool.input.constraint.tightened", "BREAKING",
             "t", "/tools/t/inputSchema/properties/x/anyOf", message, None, note, "unexplained")
            for message, note in (("anyOf tightened (a)", "no witness: cut short"),
                                  ("anyOf tightened (b)", "no witness found"))]
    found = []
    for ordered in (rows, rows[::-1]):
        con = duckdb.connect()
        con.execute("CREATE TABLE step_changes (server_id TEXT, position INT, old_version TEXT, "
                    "new_version TEXT, declared TEXT, bumped TEXT, rule TEXT, severity TEXT, "
                    "entity TEXT, path TEXT, message TEXT, witness_json TEXT, witness_note TEXT, evidence TEXT)")
        con.executemany("INSERT INTO step_changes VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        ordered)
        found.append([r[9] for r in con.execute(sql("study/step_breaks")).fetchall()])
    assert found[0] == found[1] == ["anyOf tightened (a)", "anyOf tightened (b)"]


def test_the_committed_studies_are_findings_with_their_tables_beside():
    """Each committed study page says what was found in under 300 lines and
    links the page of tables it is drawn from, which holds every release."""
    for study_dir in ("ecosystem", "survey"):
        folder = ROOT / "docs" / study_dir
        text = (folder / "README.md").read_text()
        assert len(text.splitlines()) < 300, study_dir
        assert "[tables.md](tables.md)" in text and "## How sure we are" in text
        assert "## Every release" in (folder / "tables.md").read_text()
