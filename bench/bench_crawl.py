"""Benchmark of the crawler's own overhead.

    .venv/bin/python bench/bench_crawl.py [--servers 40] [--concurrency 8]

Starts SERVERS copies of a minimal raw stdio MCP server (bench/servers/
raw_demo.py) and reports, in one run:

- the floor: each server spawned and asked initialize + tools/list by a
  bare client (server start-up and answers, almost no client);
- the crawler, one server at a time: its time per server, and its own
  overhead beyond the floor (target: under 50 ms);
- the crawler at CONCURRENCY servers at once: total wall time;
- peak memory of this process (max RSS).
"""

import argparse
import asyncio
import json
import pathlib
import resource
import statistics
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
# an installed mcpdelta is measured, as users run it; a checkout without one, its own source
sys.path.append(str(HERE.parent))

from mcpdelta.crawl.runner import crawl  # noqa: E402
from mcpdelta.crawl.servers import parse  # noqa: E402

SERVER = HERE / "servers" / "raw_demo.py"


def bare_capture() -> float:
    """Spawn, initialize, list tools, close: the server's own cost."""
    start = time.perf_counter()
    process = subprocess.Popen([sys.executable, str(SERVER)], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
    messages = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
                 "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                            "clientInfo": {"name": "bench", "version": "0"}}},
                {"jsonrpc": "2.0", "method": "notifications/initialized"},
                {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]
    for message in messages:
        process.stdin.write(json.dumps(message) + "\n")
        process.stdin.flush()
        if "id" in message:
            json.loads(process.stdout.readline())
    process.stdin.close()
    process.wait()
    return time.perf_counter() - start


def targets(count):
    servers = [{"id": f"demo-{i}", "transport": "stdio", "command": sys.executable,
                "args": [str(SERVER)]} for i in range(count)]
    return parse({"servers": servers}, "bench", HERE)


def run_crawl(count, concurrency) -> tuple:
    found, limits = targets(count)
    limits.concurrency = concurrency
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        records = asyncio.run(crawl(found, limits, out))
        elapsed = time.perf_counter() - start
    return elapsed, sum(r.ok for r in records)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", type=int, default=40)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args(argv)
    bare_capture()  # warm the page cache
    floor = statistics.median(bare_capture() for _ in range(args.servers))
    sequential, ok_seq = run_crawl(args.servers, 1)
    parallel, ok_par = run_crawl(args.servers, args.concurrency)
    per_server = sequential / args.servers
    print(f"floor (bare client, spawn + initialize + tools/list): {floor * 1e3:.1f} ms a server (median)")
    print(f"crawler, 1 at a time: {per_server * 1e3:.1f} ms a server ({ok_seq}/{args.servers} ok); "
          f"overhead beyond the floor {(per_server - floor) * 1e3:.1f} ms a server")
    print(f"crawler, {args.concurrency} at a time: {args.servers} servers in {parallel:.2f} s "
          f"({ok_par}/{args.servers} ok)")
    print(f"peak memory (max RSS): {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
