"""The Prefect flows run the same stages, locally and on a Dask cluster."""


import pytest

from mcpdelta.lake import Lake
from mcpdelta.lake.ingest import rows_from_folder, store
from tests.conftest import ROOT

CAPTURES = ROOT / "tests" / "fixtures" / "captures"


@pytest.fixture
def lake_root(tmp_path):
    lake = Lake(str(tmp_path / "lake"))
    store(lake, *rows_from_folder(str(CAPTURES)))
    return str(tmp_path / "lake")


def test_survey_flow_without_crawl(prefect_harness, lake_root, tmp_path):
    from mcpdelta.flows.survey import survey_flow

    result = survey_flow(lake=lake_root, crawl=False, report_dir=str(tmp_path / "report"))
    assert result["diff"]["pairs_diffed"] == 3
    assert result["changes"]["BREAKING"] == 2
    assert result["report"] == str(tmp_path / "report" / "survey.html")
    # no judge configured: the offline judge (the jury extra) alone, no request;
    # its notes go to the notes table, never into a change
    from mcpdelta.judge import offline

    assert result["judge"]["configured"] is offline.available()
    assert result["judge"]["requests"] == 0 and result["judge"]["errors"] == 0
    notes = Lake(lake_root).connect().execute("SELECT DISTINCT advisory_json FROM changes").fetchall()
    assert notes == [("[]",)]
    # the drift report: beta's forecast description gained a full stop
    assert result["drift"] == str(tmp_path / "report" / "drift.html")
    drift = (tmp_path / "report" / "drift.md").read_text()
    assert "forecast" in drift and "tool.description.changed" in drift


def test_survey_flow_crawls_the_demo_servers(prefect_harness, tmp_path):
    from mcpdelta.flows.survey import survey_flow

    result = survey_flow(lake=str(tmp_path / "lake"), offline=True, report_dir=str(tmp_path / "r"))
    assert result["crawl"] == {"rows": 8, "added": 8, "errors": 0, "failed": 0, "attempts": 8,
                               "skipped": 0}
    assert result["diff"]["pairs_diffed"] == 6


def test_the_crawl_flow_skips_releases_the_lake_holds_unless_told_to_recapture(
        prefect_harness, lake_root, tmp_path, monkeypatch):
    from mcpdelta.flows.survey import crawl_flow

    # alpha 1.1.0 and 2.0.0 are in the lake; offline, an install of either would fail
    monkeypatch.setenv("MCPDELTA_CACHE", str(tmp_path / "empty-cache"))
    servers = tmp_path / "servers.yaml"
    servers.write_text("servers:\n  - {id: alpha, package: {registry: npm, name: mcpdelta-fx-alpha, "
                       "versions: [1.1.0, 2.0.0]}}\n")
    held = crawl_flow(str(servers), lake_root, offline=True)
    assert held == {"rows": 0, "added": 0, "errors": 0, "failed": 0, "attempts": 0, "skipped": 2}
    again = crawl_flow(str(servers), lake_root, offline=True, recapture=True)
    assert again["skipped"] == 0 and again["failed"] == 2 and again["attempts"] == 2


def test_diff_flow_fans_out_over_a_dask_cluster(prefect_harness, lake_root):
    from distributed import LocalCluster
    from mcpdelta.flows.survey import diff_flow, task_runner

    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, protocol="tcp",
                      dashboard_address=":0") as cluster:
        runner = task_runner("dask", cluster.scheduler_address)
        totals = diff_flow.with_options(task_runner=runner)(lake=lake_root, fan_out=True)
    assert totals == {"pairs": 3, "pairs_cached": 0, "pairs_diffed": 3, "errors": 0}
    con = Lake(lake_root).connect()
    assert con.execute("SELECT count(*) FROM pairs").fetchall() == [(3,)]
    assert con.execute("SELECT count(DISTINCT server_id) FROM pairs").fetchall() == [(2,)]


def test_the_nightly_deployment_builds_with_its_cron_schedule():
    from mcpdelta.flows.nightly import NIGHTLY_CRON, deployment

    built = deployment(lake="/data/lake")
    assert built.name == "nightly"
    assert [s.schedule.cron for s in built.schedules] == [NIGHTLY_CRON]
    assert built.parameters["lake"] == "/data/lake"
    assert built.parameters["recapture"] is False  # each night captures only the new releases
    assert deployment(recapture=True).parameters["recapture"] is True
