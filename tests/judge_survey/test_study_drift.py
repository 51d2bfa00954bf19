"""The study's *Description drift* section (``sql/drift_scored.sql``,
``drift_by_server.sql``, ``drift_largest.sql``, ``drift_flags.sql`` and
``mcpdelta/survey/drift_section.py``) on the judge tests' small lake, its
counted steps scored by the offline judge: the four prose changes of
``PROSE``, one of them an injected instruction."""

import pytest

from mcpdelta.config import Config
from mcpdelta.survey.drift_section import drift, drift_rows
from mcpdelta.survey.writeup import counted_only
from tests.judge_survey.conftest import PROSE, ids

pytest.importorskip("wordllama", reason="the jury extra is not installed")


@pytest.fixture(autouse=True)
def without_offline_member():
    """Overrides the judge tests' default: here the jury extra stays."""


def _rows(lake):
    return drift_rows(counted_only(lake.connect(*ids())))


def test_drift_counts_each_servers_prose_and_its_flags(lake):
    from mcpdelta.survey import judge_stage

    judge_stage(lake, Config(), *ids())
    rows = _rows(lake)
    by_server = {r["server_id"]: r for r in rows["drift"]}
    assert set(by_server) == {"shop", "wiki", None}
    shop, wiki, total = by_server["shop"], by_server["wiki"], by_server[None]
    assert (shop["steps"], shop["prose_changes"], shop["security_flags"]) == (2, 3, 1)
    assert (wiki["steps"], wiki["prose_changes"], wiki["security_flags"]) == (1, 1, 0)
    assert (total["prose_changes"], total["judged"], total["security_flags"]) == (len(PROSE), len(PROSE), 1)
    assert wiki["largest_distance"] < 0.05  # "Read a page" -> "Read a page."
    [flag] = rows["drift_flags"]
    assert (flag["server_id"], flag["entity"], flag["rule"]) == ("shop", "pay", "tool.description.changed")
    assert "IGNORE PREVIOUS INSTRUCTIONS" in flag["summary"]
    distances = [r["distance"] for r in rows["drift_largest"]]
    assert distances == sorted(distances, reverse=True) and rows["drift_largest"][-1]["server_id"] == "wiki"

    page = drift(rows)
    assert "| shop | 2 | 3 |" in page and "| all | 3 | 4 |" in page
    flags = page.split("### Security flags")[1]
    assert "IGNORE PREVIOUS INSTRUCTIONS" in flags and "| shop | 1.0.0 -> 1.1.0 |" in flags


def test_without_the_judges_notes_the_section_says_nothing_was_scored(lake):
    page = drift(_rows(lake))
    assert "No prose change was scored" in page and "4 prose changes" in page
    assert "### Security flags" not in page
