"""A lake on object storage, against a real S3 server (moto_server, its own
process, checking every signature): the CLI surveys into ``s3://`` with the
rows a folder lake gets, one writer at a time, a killed writer costs
nothing, and every failure to reach the lake is one line without the secret."""

import json
import os
import signal
import subprocess
import sys

import pytest

from mcpdelta.lake import Lake
from tests.conftest import ROOT
from tests.scale.services import BUCKET, free_port
from tests.scale.rows import rows

SAMPLE = ROOT / "data" / "samples" / "reference"


def run(mcpdelta_args, env, cwd, timeout=240):
    script = str(os.path.join(os.path.dirname(sys.executable), "mcpdelta"))
    return subprocess.run([script, *map(str, mcpdelta_args)], capture_output=True, text=True,
                          env={**os.environ, **env}, cwd=cwd, timeout=timeout)


@pytest.fixture(scope="module")
def demo_reference(tmp_path_factory):
    """The demo survey run locally into a folder: the rows every S3 run must equal."""
    folder = tmp_path_factory.mktemp("local")
    done = run(["survey", "--lake", folder / "lake"], {}, folder)
    assert done.returncode == 0, done.stderr
    return rows(str(folder / "lake"))


@pytest.fixture(scope="module")
def sample_reference(tmp_path_factory):
    """The reference sample's committed captures, ingested and surveyed in a folder lake."""
    folder = tmp_path_factory.mktemp("sample")
    assert run(["ingest", SAMPLE, "--lake", folder / "lake"], {}, folder).returncode == 0
    done = run(["survey", "--lake", folder / "lake", "--no-crawl"], {}, folder)
    assert done.returncode == 0, done.stderr
    return rows(str(folder / "lake"))


def test_the_demo_survey_on_s3_gives_the_rows_of_a_folder_lake(aws, s3_lake, tmp_path, demo_reference):
    done = run(["survey", "--lake", s3_lake, "--format", "json"], aws, tmp_path)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["report"] == f"{s3_lake}-report/survey.html"
    assert rows(s3_lake) == demo_reference
    assert sum(len(r) for r in demo_reference.values()) > 50  # captures, tools, pairs, changes
    # the report is in the bucket, and a second run diffs nothing and adds no row
    page = Lake(s3_lake + "-report").get("survey.html").decode()
    assert "<html" in page.lower() and "demo-notes" in page
    again = run(["survey", "--lake", s3_lake, "--format", "json"], aws, tmp_path)
    assert json.loads(again.stdout)["pairs_diffed"] == 0
    second = rows(s3_lake)
    assert {t: v for t, v in second.items() if t != "attempts"} == \
        {t: v for t, v in demo_reference.items() if t != "attempts"}
    assert len(second["attempts"]) == 2 * len(demo_reference["attempts"])  # each run's attempts


def _bad_settings(aws, case):
    if case == "wrong secret":
        return {**aws, "AWS_SECRET_ACCESS_KEY": "wrong-" + aws["AWS_SECRET_ACCESS_KEY"][6:]}
    if case == "unknown key":
        return {**aws, "AWS_ACCESS_KEY_ID": "AKIAUNKNOWNKEY000000"}
    if case == "unreachable endpoint":
        return {**aws, "AWS_ENDPOINT_URL": f"http://127.0.0.1:{free_port()}"}
    return dict(aws)


@pytest.mark.parametrize("case,command,expected", [
    ("wrong secret", ["report"], "the AWS credentials were refused (SignatureDoesNotMatch)"),
    ("wrong secret", ["ingest", SAMPLE], "the AWS credentials were refused (SignatureDoesNotMatch)"),
    ("unknown key", ["drift"], "the AWS credentials were refused (InvalidAccessKeyId)"),
    ("missing bucket", ["survey", "--no-crawl"], "no such bucket"),
    ("missing bucket", ["survey"], "no such bucket"),
    ("unreachable endpoint", ["report"],
     "cannot reach the S3 endpoint (is AWS_ENDPOINT_URL right, and the server up?)"),
    ("unreachable endpoint", ["ingest", SAMPLE],
     "cannot reach the S3 endpoint (is AWS_ENDPOINT_URL right, and the server up?)"),
])
def test_a_lake_that_cannot_be_read_is_one_line_exit_2_without_the_secret(
        aws, s3_lake, tmp_path, case, expected, command):
    lake = s3_lake.replace(BUCKET, "no-such-bucket-here") if case == "missing bucket" else s3_lake
    settings = _bad_settings(aws, case)
    done = run([*command, "--lake", lake], settings, tmp_path, timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [f"mcpdelta: error: {lake}: {expected}"]
    output = done.stdout + done.stderr
    assert aws["AWS_SECRET_ACCESS_KEY"] not in output
    assert settings["AWS_SECRET_ACCESS_KEY"] not in output


def test_a_lake_without_credentials_is_one_line(aws, s3_lake, tmp_path):
    settings = {k: v for k, v in aws.items() if not k.startswith("AWS_SECRET") and k != "AWS_ACCESS_KEY_ID"}
    env = {k: v for k, v in os.environ.items() if k not in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")}
    done = subprocess.run([os.path.join(os.path.dirname(sys.executable), "mcpdelta"), "drift", "--lake",
                           s3_lake], capture_output=True, text=True, env={**env, **settings}, cwd=tmp_path,
                          timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip() == (f"mcpdelta: error: {s3_lake}: no AWS credentials (set AWS_ACCESS_KEY_ID "
                                   "and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE)")


def _start(args, env, cwd):
    script = os.path.join(os.path.dirname(sys.executable), "mcpdelta")
    return subprocess.Popen([script, *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, **env}, cwd=cwd)


def test_two_surveys_at_once_one_fails_with_one_line_and_each_row_is_stored_once(
        aws, s3_lake, tmp_path, demo_reference):
    first, second = (_start(["survey", "--lake", s3_lake], aws, tmp_path) for _ in range(2))
    results = [(p.wait(240), *p.communicate()) for p in (first, second)]
    codes = sorted(code for code, _, _ in results)
    assert codes == [0, 2], results
    _, _, refused = next(r for r in results if r[0] == 2)
    winner = next(p for p, r in zip((first, second), results) if r[0] == 0)
    assert refused.strip().splitlines() == [refused.strip()]
    assert refused.startswith(f"mcpdelta: error: {s3_lake}: another mcpdelta is writing this lake "
                              f"(pid {winner.pid} on ")
    assert refused.strip().endswith("try again when it ends, or pass --wait")
    assert rows(s3_lake) == demo_reference
    assert Lake(s3_lake).get(".lease") is None  # given back


def test_two_surveys_at_once_with_wait_run_one_after_the_other(aws, s3_lake, tmp_path, demo_reference):
    first, second = (_start(["survey", "--lake", s3_lake, "--wait", "--format", "json"], aws, tmp_path)
                     for _ in range(2))
    results = [(p.wait(300), *p.communicate()) for p in (first, second)]
    assert [code for code, _, _ in results] == [0, 0], results
    assert sum("mcpdelta: waiting for the lake" in err for _, _, err in results) == 1
    assert sorted(json.loads(out)["pairs_diffed"] for _, out, _ in results) == [0, 6]
    found = rows(s3_lake)
    assert {t: v for t, v in found.items() if t != "attempts"} == \
        {t: v for t, v in demo_reference.items() if t != "attempts"}


KILLER = """
import os, signal, sys
from mcpdelta.engine.policy import Policy
from mcpdelta.lake import Lake
from mcpdelta.lake.objectstore import ObjectLake
from mcpdelta.survey.diffstage import run_diff_stage

written = []
append = ObjectLake.append

def append_then_die(self, table, rows, batch_id):
    paths = append(self, table, rows, batch_id)
    if rows:
        written.append(table)
    if table == "changes" and rows and written.count("changes") == 3:
        os.kill(os.getpid(), signal.SIGKILL)  # the third batch's changes are written, its ledger not
    return paths

ObjectLake.append = append_then_die
lake = Lake(sys.argv[1])
with lake.writing():
    run_diff_stage(lake, Policy(), workers=1, batch_size=1)
"""


def test_a_writer_killed_mid_batch_leaves_nothing_counted_and_a_rerun_completes_once(
        aws, s3_lake, tmp_path, sample_reference):
    assert run(["ingest", SAMPLE, "--lake", s3_lake], aws, tmp_path).returncode == 0
    killed = subprocess.run([sys.executable, "-c", KILLER, s3_lake], env={**os.environ, **aws},
                            cwd=tmp_path, timeout=240, capture_output=True, text=True)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    lake = Lake(s3_lake)
    assert lake.get(".lease") is not None  # the dead writer's lease is still there
    con = lake.connect()
    written = {r[0] for r in con.execute("SELECT DISTINCT batch_id FROM _written_changes").fetchall()}
    counted = {r[0] for r in con.execute("SELECT DISTINCT batch_id FROM all_changes").fetchall()}
    ledger = {r[0] for r in con.execute("SELECT DISTINCT batch_id FROM all_pairs").fetchall()}
    assert len(written) == 3 and len(written - counted) == 1  # the third batch's changes count for nothing
    assert not (written - counted) & ledger and counted <= ledger
    # without --wait: its machine sees the holder dead and takes the lease over at once
    rerun = run(["survey", "--lake", s3_lake, "--no-crawl", "--format", "json"], aws, tmp_path)
    assert rerun.returncode == 0, rerun.stderr
    assert "waiting" not in rerun.stderr
    assert rows(s3_lake) == sample_reference
    orphans = [k for k, _, _ in lake.list("changes/v1")
               if k.rsplit("/", 1)[1] not in {p.rsplit("/", 1)[1] for p, _, _ in lake.list("pairs/v1")}]
    assert orphans == []
    # the other readers of the same lake: drift, and the report's figures into the bucket
    drift = run(["drift", "--lake", s3_lake, "--format", "json"], aws, tmp_path)
    assert drift.returncode == 0, drift.stderr
    assert json.loads(drift.stdout)["servers"]
    pngs = run(["report", "--lake", s3_lake, "--format", "png", "--plot", "rule_frequencies"], aws, tmp_path)
    assert pngs.returncode == 0, pngs.stderr
    assert pngs.stdout.strip() == f"{s3_lake}-report/rule_frequencies.png"
    assert Lake(s3_lake + "-report").get("rule_frequencies.png")[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_study_keeps_its_lakes_on_s3(aws, s3_lake, tmp_path, sample_reference):
    """Its release-steps lake holds what ingesting and surveying the same
    captures into a folder gives; its latest lake, each release against the
    latest."""
    remote = run(["study", ROOT / "data" / "servers" / "sample.yaml", "--captures", SAMPLE, "--format", "json",
                  "--out", tmp_path / "out", "--work", s3_lake], aws, tmp_path)
    assert remote.returncode == 0, remote.stderr
    assert json.loads(remote.stdout)["work"] == s3_lake
    assert rows(f"{s3_lake}/lake", ("manifests", "tools", "attempts", "pairs", "changes")) == {
        t: sample_reference[t] for t in ("manifests", "tools", "attempts", "pairs", "changes")}
    newest = {}
    for server, version, key, *_ in sample_reference["manifests"]:
        newest[server] = max(newest.get(server, (key, version)), (key, version))
    latest = rows(f"{s3_lake}/lake-latest", ("pairs",))["pairs"]
    assert latest and {(p[1], p[3]) for p in latest} <= {(s, v) for s, (_, v) in newest.items()}
    assert (tmp_path / "out" / "README.md").read_text().count("\n") > 50
