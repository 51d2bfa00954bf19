"""Benchmark of the survey's judge stage: notes attached from the cache.

    .venv/bin/python bench/bench_notes.py [--servers 50] [--versions 41]

Builds a lake whose releases reword tool descriptions (one prose change per
release), judges every change once against a chat-completions server on
127.0.0.1 (the one the judge tests use, answering at once), then times a
second run, where every note comes from the lake's notes table. Target: at
least 10,000 notes a second from cache.
"""

import argparse
import json
import os
import pathlib
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
# an installed mcpdelta is measured, as users run it; a checkout without one, its own source
sys.path.append(str(ROOT))

from mcpdelta.config import Config  # noqa: E402
from mcpdelta.engine.policy import Policy  # noqa: E402
from mcpdelta.judge.lakestage import judge_lake  # noqa: E402
from mcpdelta.lake import Lake  # noqa: E402
from mcpdelta.lake.ingest import capture_row, store  # noqa: E402
from mcpdelta.survey.diffstage import engine_version, policy_hash, run_diff_stage  # noqa: E402
from tests.judge.llm_server import FakeLLM, answer  # noqa: E402

KEY_ENV = "MCPDELTA_BENCH_JUDGE_KEY"


def build_lake(root, servers, versions) -> Lake:
    rows = []
    for s in range(servers):
        for v in range(versions):
            tools = [{"name": f"tool_{t}", "inputSchema": {"type": "object"},
                      "description": f"Reads records of kind {t} from store {s}, revision {v}."}
                     for t in range(3)]
            rows.append(capture_row(f"server-{s}", f"1.{v}.0", json.dumps({"tools": tools}),
                                    source="bench", captured_at="2026-01-01T00:00:00Z"))
    lake = Lake(root)
    store(lake, rows)
    return lake


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", type=int, default=50)
    parser.add_argument("--versions", type=int, default=41)
    args = parser.parse_args(argv)
    server = FakeLLM().start()
    server.script("bench-model", answer(0.7, summary="the revision moved"))
    os.environ[KEY_ENV] = "bench-key"
    config = Config("bench")
    config.judges = [({"endpoint": server.base_url, "api_key_env": KEY_ENV, "model": "bench-model",
                       "timeout": "10s", "budget_tokens": 10 ** 9}, "bench:1")]
    policy = Policy(witness="never")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            lake = build_lake(f"{tmp}/lake", args.servers, args.versions)
            run_diff_stage(lake, policy)
            engine, policy_id = engine_version(), policy_hash(policy)
            start = time.perf_counter()
            first = judge_lake(lake, config, engine, policy_id)
            first_s = time.perf_counter() - start
            start = time.perf_counter()
            second = judge_lake(lake, config, engine, policy_id)
            second_s = time.perf_counter() - start
    finally:
        server.stop()
    changes = first["judged"]
    print(f"prose changes judged: {changes} ({first['requests']} requests to the loopback judge, "
          f"{first_s:.2f} s)")
    print(f"second run: {second['cached']} from the notes table, {second['requests']} requests, "
          f"{second_s:.3f} s = {second['cached'] / second_s:,.0f} notes/s from cache")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
