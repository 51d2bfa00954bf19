"""The queries added for the notebooks and `mcpdelta report` (sql/analysis/),
each run by DuckDB on the small fixture lake with its answer written out by
hand from tests/fixtures/README.md. (They live in a subfolder so that
test_queries.py's list of the survey's own queries stays exact.)"""

import pytest

from mcpdelta.engine.policy import Ignore, Policy
from mcpdelta.lake import Lake
from mcpdelta.lake.ingest import rows_from_folder, store
from mcpdelta.survey.diffstage import engine_version, policy_hash, run_diff_stage
from mcpdelta.survey.queries import query
from tests.conftest import ROOT

SQL = ROOT / "sql"


def lake_with(tmp_path_factory, policy):
    lake = Lake(str(tmp_path_factory.mktemp("q") / "lake"))
    store(lake, *rows_from_folder(str(ROOT / "tests" / "fixtures" / "captures")))
    run_diff_stage(lake, policy, workers=1)
    return lake.connect(engine_version(), policy_hash(policy))


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    return lake_with(tmp_path_factory, Policy())


def test_every_analysis_query_file_is_tested():
    assert {p.stem for p in (SQL / "analysis").glob("*.sql")} == {"severity_by_release"}


def rows_of(con):
    return [(r["server_id"], r["version"], r["position"], r["severity"], r["changes"])
            for r in query(con, "analysis/severity_by_release")]


def test_severity_by_release(con):
    assert rows_of(con) == [
        # alpha: the first capture and the repeat (2.0.1 = 2.0.0) brought nothing
        ("alpha", "1.0.0", 1, None, 0),
        ("alpha", "1.1.0", 2, "NON_BREAKING", 1),     # optional property added
        ("alpha", "1.1.0", 2, "DOCUMENTATION", 1),    # identity version moved
        ("alpha", "2.0.0", 3, "BREAKING", 1),         # delete_note removed
        ("alpha", "2.0.0", 3, "DOCUMENTATION", 1),
        ("alpha", "2.0.1", 4, None, 0),
        # beta in semver order: 0.9.0 before 0.10.0
        ("beta", "0.9.0", 1, None, 0),
        ("beta", "0.10.0", 2, "BREAKING", 1),         # enum narrowed
        ("beta", "0.10.0", 2, "DOCUMENTATION", 1),    # a full stop added
        # broken: no capture parsed, so no release
    ]


def test_severity_by_release_leaves_suppressed_changes_out(tmp_path_factory):
    con = lake_with(tmp_path_factory, Policy(ignores=[Ignore(rule="server.identity.changed",
                                                             reason="noise")]))
    assert [r for r in rows_of(con) if r[0] == "alpha"] == [
        ("alpha", "1.0.0", 1, None, 0),
        ("alpha", "1.1.0", 2, "NON_BREAKING", 1),
        ("alpha", "2.0.0", 3, "BREAKING", 1),
        ("alpha", "2.0.1", 4, None, 0),
    ]
