"""The offline judge with no key and no judge configured: the survey's judge
stage writes its notes, the drift report ranks by its semantic distance and
names who voted, and ``diff --semantic --fail-on-security`` fails on its
security flag (real lake, real console script)."""

import argparse
import json
import re

import pytest

from mcpdelta.commands import drift
from mcpdelta.config import Config
from mcpdelta.judge.offline import NAME
from tests.judge_survey.conftest import CAPTURES, ids

pytest.importorskip("wordllama", reason="the jury extra is not installed")


@pytest.fixture(autouse=True)
def without_offline_member():
    """Overrides the judge tests' default: here the jury extra stays."""


def test_the_judge_stage_needs_no_key_and_asks_each_question_once(lake):
    from mcpdelta.survey import judge_stage

    first = judge_stage(lake, Config(), *ids())
    assert (first["judged"], first["notes"], first["requests"], first["errors"]) == (4, 4, 0, 0)
    again = judge_stage(lake, Config(), *ids())
    assert (again["judged"], again["cached"], again["notes"]) == (0, 4, 0)


def test_the_drift_report_ranks_by_distance_and_names_the_judges(lake, capsys):
    from mcpdelta.survey import judge_stage

    judge_stage(lake, Config(), *ids())
    parser = argparse.ArgumentParser()
    drift.add_arguments(parser)
    assert drift.run(parser.parse_args(["--lake", lake.root, "--format", "json"])) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["judges"] == {NAME: 4} and data["summary"]["judged"] == 4
    changes = {(s["server_id"], c["entity"], c["rule"]): c for s in data["servers"] for c in s["changes"]}
    pay = changes[("shop", "pay", "tool.description.changed")]
    assert pay["security_relevant"] and "instruction: 'IGNORE PREVIOUS INSTRUCTIONS'" in pay["notes"][0]["summary"]
    stop = changes[("wiki", "read", "tool.description.changed")]   # "Read a page" -> "Read a page."
    assert stop["semantic_distance"] < 0.05 and stop["notes"][0]["verdict"] == "equivalent"
    assert all(set(n) == {"judge", "verdict", "security_relevant", "confidence", "summary", "prompt_version"}
               for c in changes.values() for n in c["notes"])
    for c in changes.values():
        assert 0 <= c["semantic_distance"] <= 2 and 0 <= c["similarity"] <= 100

    assert drift.run(parser.parse_args(["--lake", lake.root, "--format", "html"])) == 0
    page = capsys.readouterr().out
    assert f"judges that voted: {NAME} (4 changes)" in page
    ranked = page.split("largest moves</h2>")[1].split("</table>")[0]
    distances = [float(x) for x in re.findall(r"<td>distance ([0-9.]+), similarity", ranked)]
    assert len(distances) == 4 and ranked.count('<tr class="sec">') == 1
    assert ranked.index('<tr class="sec">') < ranked.index("<tr><td>")   # the security flag on top
    assert distances[1:] == sorted(distances[1:], reverse=True)   # then by distance


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_fail_on_security_works_without_a_key(mcpdelta, tmp_path, fmt):
    (tmp_path / "cfg.yml").write_text("profile: balanced\n")   # no judges
    args = ["diff", CAPTURES / "shop" / "1.0.0.json", CAPTURES / "shop" / "1.1.0.json", "--semantic",
            "--config", tmp_path / "cfg.yml", "--fail-on", "never", "--format", fmt]
    env = {"MCPDELTA_CACHE_DIR": str(tmp_path / "cache"), "HF_HUB_OFFLINE": "1"}
    plain = mcpdelta(*args, env=env)
    gated = mcpdelta(*args, "--fail-on-security", env=env)
    assert (plain.returncode, gated.returncode) == (0, 1), gated.stderr
    if fmt == "json":
        report = json.loads(gated.stdout)
        [pay] = [c for c in report["changes"] if c["rule"] == "tool.description.changed"]
        assert pay["advisory"][0]["judge"] == NAME and pay["advisory"][0]["security_relevant"]
        assert report["verdict"] == "fail"
    else:
        assert "security" in gated.stdout


def test_drift_by_server_counts_moves_and_flags_per_server(lake):
    from mcpdelta.resources import SQL_DIR
    from mcpdelta.survey import judge_stage

    judge_stage(lake, Config(), *ids())
    con = lake.connect(*ids())
    for view in ("description_drift", "drift_scored"):
        con.execute(f"CREATE OR REPLACE TEMP VIEW {view} AS\n" + (SQL_DIR / f"{view}.sql").read_text())
    cursor = con.execute((SQL_DIR / "drift_by_server.sql").read_text())
    columns = [d[0] for d in cursor.description]
    rows = {r[0]: dict(zip(columns, r)) for r in cursor.fetchall()}
    # shop: pay's description gains an injected instruction, search's title
    # "Search" -> "Find", the instructions gain "pay refunds too" (2 steps)
    shop, wiki = rows["shop"], rows["wiki"]
    assert {k: shop[k] for k in ("steps", "prose_changes", "rewrites", "judged", "security_flags")} == \
        {"steps": 2, "prose_changes": 3, "rewrites": 3, "judged": 3, "security_flags": 1}
    # wiki: "Read a page" -> "Read a page.": the normal form is the same text
    assert (wiki["prose_changes"], wiki["moved"], wiki["median_distance"], wiki["security_flags"]) == (1, 0, 0.0, 0)
    assert list(rows) == ["shop", "wiki", None]   # the most prose changes first, then all
    assert (rows[None]["steps"], rows[None]["prose_changes"], rows[None]["security_flags"]) == (3, 4, 1)
