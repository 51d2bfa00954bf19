"""Digests per second for a ~5 KB tool, on one core.

    .venv/bin/python bench/bench_digest.py

the issue's target is at least 5,000/s. Two shapes: a typical contract
(strings, booleans, small integers: the stdlib fast path) and one holding a
float and an int64 bound (the rfc8785 path).
"""

import pathlib
import sys
import time

# an installed mcpdelta is measured, as users run it; a checkout without one, its own source
sys.path.append(str(pathlib.Path(__file__).resolve().parent.parent))

from mcpdelta.contract import jcs, tool_digest  # noqa: E402


def _tool(numbers: bool) -> dict:
    props = {f"field_{i}": {"type": "string", "maxLength": 200,
                            "description": f"Field {i} of the record, free text up to 200 characters."}
             for i in range(42)}
    if numbers:
        props["score"] = {"type": "number", "minimum": 0.25, "maximum": 9223372036854775807}
    return {"name": "bulk_update", "description": "Update many records at once. " * 8,
            "inputSchema": {"type": "object", "properties": props, "required": sorted(props)[:5]},
            "annotations": {"destructiveHint": True, "idempotentHint": False}}


def rate(tool, seconds: float = 1.0) -> float:
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(100):
            tool_digest(tool)
        count += 100
    return count / (time.perf_counter() - start)


if __name__ == "__main__":
    for label, numbers in (("typical", False), ("with numbers", True)):
        tool = _tool(numbers)
        print(f"digest {label:<13} tool of {len(jcs(tool)):>5} bytes: {rate(tool):>8.0f} digests/s")
