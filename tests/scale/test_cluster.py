"""The survey flow on a Dask cluster (a ``dask scheduler`` and two ``dask
worker`` processes) with its lake on S3 (moto_server): the crawl and the diff
fan out, the rows are a local run's, and a worker killed mid-crawl costs a
retry of its group on the other worker, never a second capture."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from tests.conftest import ROOT
from tests.judge.llm_server import answer
from tests.scale.services import quiet_env
from tests.scale.rows import rows

REFERENCE = ROOT / "data" / "samples" / "reference"
REPLAY = ROOT / "tests" / "ci" / "replay_manifest.py"
SLOW_REPLAY = ROOT / "tests" / "scale" / "slow_replay.py"
DEMO = ROOT / "data" / "demo"
KEY_ENV = "MCPDELTA_SCALE_JUDGE_KEY"

# a slice of the reference servers, their committed captures replayed over stdio
SLICE = {"server-filesystem": ["2025.8.18", "2025.8.21", "2025.11.25"],
         "mcp-server-git": ["2026.8.18", "2026.10.10"],
         "server-memory": ["2025.8.4", "2025.9.25"]}


def servers_file(folder, slow=None) -> str:
    """The demo servers and the reference slice, every path absolute (the
    workers run them from their own folders). ``slow``: a folder each
    capture of server-memory first records its start in, and waits 6 s."""
    lines = ["servers:"]
    for name in ("notes", "weather"):
        lines += [f"  - id: demo-{name}", '    command: "{python}"',
                  f'    args: ["{DEMO / f"{name}_server.py"}", "--version", "{{version}}"]',
                  '    versions: ["1.0.0", "1.1.0", "1.2.0", "2.0.0"]']
    for server, versions in SLICE.items():
        capture = f"{REFERENCE / server}/{{version}}.json"
        args = f'["{SLOW_REPLAY}", "{capture}", "{slow}", "6"]' if slow and server == "server-memory" \
            else f'["{REPLAY}", "{capture}"]'
        lines += [f"  - id: {server}", '    command: "{python}"', f"    args: {args}",
                  f"    versions: {json.dumps(versions)}"]
    lines.append("limits: {timeout_s: 60, concurrency: 4, total_timeout_s: 240}")
    path = folder / "servers.yaml"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def judged(request):
    """The loopback judge's answer, decided by the question alone."""
    question = request["messages"][-1]["content"]
    moved = "Rule: tool.description.changed" in question
    return answer(0.8 if moved else 0.1, summary="moved" if moved else "same")(request)


@pytest.fixture(scope="module")
def judge_config(llm, tmp_path_factory):
    model = "scale-cluster-judge"
    llm.script(model, judged)
    path = tmp_path_factory.mktemp("config") / "mcpdelta.yml"
    path.write_text(f"judges:\n  - endpoint: {llm.base_url}\n    api_key_env: {KEY_ENV}\n"
                    f"    model: {model}\n    timeout: 20s\n    budget_tokens: 10000000\n")
    return str(path)


def flow(cluster, prefect_api, aws, args, cwd):
    """``python -m mcpdelta.flows.survey ... --task-runner dask`` as a user runs it."""
    env = quiet_env(**aws, PREFECT_API_URL=prefect_api, PYTHONPATH=str(ROOT), **{KEY_ENV: "k"})
    return subprocess.Popen([sys.executable, "-m", "mcpdelta.flows.survey", *map(str, args), "--task-runner", "dask",
                             "--address", cluster.address, "--format", "json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=cwd)


def summary_of(stdout: str) -> dict:
    return json.loads(stdout[stdout.index("\n{") + 1:] if not stdout.startswith("{") else stdout)


def test_the_survey_flow_on_the_cluster_with_an_s3_lake_gives_a_local_runs_rows(
        cluster, prefect_api, aws, s3_lake, tmp_path, judge_config):
    servers = servers_file(tmp_path)
    cluster.ensure_workers(2)
    started = time.monotonic()
    local = subprocess.run([os.path.join(os.path.dirname(sys.executable), "mcpdelta"), "survey", "--servers",
                            servers, "--lake", tmp_path / "lake", "--config", judge_config, "--format", "json"],
                           capture_output=True, text=True, env={**os.environ, KEY_ENV: "k"}, cwd=tmp_path,
                           timeout=600)
    local_s = time.monotonic() - started
    assert local.returncode == 0, local.stderr
    started = time.monotonic()
    remote = flow(cluster, prefect_api, aws, ["--servers", servers, "--lake", s3_lake,
                                              "--config", judge_config], tmp_path)
    out, err = remote.communicate(timeout=600)
    cluster_s = time.monotonic() - started
    assert remote.returncode == 0, err[-3000:]
    summary = summary_of(out)
    assert summary["report"] == f"{s3_lake}-report/survey.html"
    expected = rows(str(tmp_path / "lake"))
    assert rows(s3_lake) == expected
    # everything was there to compare: every release, its pairs, changes and the judge's notes
    assert len(expected["manifests"]) == 8 + 7 and summary["captures"] == 15
    assert summary["pairs_diffed"] == len(expected["pairs"]) == 6 + 4
    assert len(expected["changes"]) > 50 and len(expected["notes"]) > 3
    print(f"\ndemo + reference slice: local folder {local_s:.1f} s, cluster + S3 {cluster_s:.1f} s, "
          f"rows equal ({sum(map(len, expected.values()))} rows)")


def test_a_second_flow_on_the_same_lake_fails_with_one_line(cluster, prefect_api, aws, s3_lake, tmp_path):
    from mcpdelta.lake import Lake

    with Lake(s3_lake).writing():  # another writer holds the lake
        second = flow(cluster, prefect_api, aws, ["--lake", s3_lake], tmp_path)
        out, err = second.communicate(timeout=300)
    assert second.returncode == 2
    assert err.splitlines() == [err.strip()] and err.startswith(
        f"mcpdelta: error: {s3_lake}: another mcpdelta is writing this lake (pid {os.getpid()} on ")


def _worker_of(start, workers) -> int:
    """The cluster worker (pid) among a capture's ancestors."""
    return next(pid for pid in start["ancestors"] if pid in workers)


def test_a_worker_killed_mid_crawl_has_its_group_retried_on_the_other_and_each_release_captured_once(
        cluster, prefect_api, aws, s3_lake, tmp_path):
    cluster.ensure_workers(2)
    workers = cluster.live_workers()
    starts = tmp_path / "starts"
    running = flow(cluster, prefect_api, aws, ["--servers", servers_file(tmp_path, slow=starts),
                                               "--lake", s3_lake], tmp_path)
    try:
        deadline = time.monotonic() + 300
        while not (starts.is_dir() and len(list(starts.iterdir())) == 2):  # both releases started
            assert time.monotonic() < deadline and running.poll() is None, running.communicate()
            time.sleep(0.2)
        first = json.loads(next(starts.iterdir()).read_text())
        killed = _worker_of(first, workers)
        os.kill(killed, signal.SIGKILL)  # mid-crawl: its capture of server-memory is still starting
        out, err = running.communicate(timeout=600)
    finally:
        if running.poll() is None:
            running.kill()
    assert running.returncode == 0, err[-3000:]
    found = [json.loads(p.read_text()) for p in starts.iterdir()]
    by_worker = {}
    for start in found:
        by_worker.setdefault(_worker_of(start, workers), []).append(start["manifest"])
    survivor = next(pid for pid in workers if pid != killed)
    # both releases of server-memory started on the killed worker, then again on the other one
    assert sorted(by_worker) == sorted([killed, survivor])
    assert sorted(by_worker[survivor]) == sorted(by_worker[killed]) and len(by_worker[killed]) == 2
    stored = rows(s3_lake, ("manifests", "attempts"))
    captured = [(r[0], r[1]) for r in stored["manifests"]]
    assert sorted(captured) == sorted({(r[0], r[1]) for r in stored["manifests"]})  # each once
    assert len(captured) == 15 and len(stored["attempts"]) == 15
    assert summary_of(out)["captures"] == 15
    cluster.ensure_workers(2)
