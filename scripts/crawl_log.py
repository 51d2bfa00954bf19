"""A crawl log (``crawl-log.jsonl``) read as its last row of each release."""

import json
from pathlib import Path


def last_rows(log: Path) -> dict:
    """(id, version) -> the log's last row of it (a torn or foreign line skipped)."""
    rows = {}
    for line in log.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue
        rows[(row["id"], row["version"])] = row
    return rows
