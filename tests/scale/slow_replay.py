"""A replaying stdio MCP server that starts slowly and says who started it.

    python slow_replay.py MANIFEST.json STARTS_DIR SECONDS

Writes ``STARTS_DIR/<pid>.json`` (its pid and its ancestors' pids, so a
test can tell which cluster worker ran the capture), waits SECONDS, then
becomes ``tests/ci/replay_manifest.py`` serving MANIFEST (the same process).
"""

import json
import os
import pathlib
import sys
import time

REPLAY = pathlib.Path(__file__).resolve().parents[1] / "ci" / "replay_manifest.py"


def ancestors() -> list:
    pids, pid = [], os.getpid()
    while pid > 1:
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
                pid = int(handle.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
        pids.append(pid)
    return pids


if __name__ == "__main__":
    manifest, starts, seconds = sys.argv[1], pathlib.Path(sys.argv[2]), float(sys.argv[3])
    starts.mkdir(parents=True, exist_ok=True)
    record = {"pid": os.getpid(), "ancestors": ancestors(), "manifest": manifest}
    (starts / f"{os.getpid()}.json").write_text(json.dumps(record))
    time.sleep(seconds)
    os.execv(sys.executable, [sys.executable, str(REPLAY), manifest])
