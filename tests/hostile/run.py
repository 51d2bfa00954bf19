"""Run every hostile case in a real ``mcpdelta`` process with a timeout and
print what happened:

    .venv/bin/python -m tests.hostile.run [--fast] [--timeout S] [--verbose]

The summary line counts cases tried, clean errors (exit 2 and one line),
inputs accepted (exit 0/1), tracebacks and hangs; tracebacks and hangs must
be 0 (the exit status is 1 otherwise), as must cases that ended otherwise
than expected.
"""

import argparse
import os
import subprocess
import sys
import tempfile

from tests.hostile.cases import build

TIMEOUT_S = 60


def script() -> str:
    candidate = os.path.join(os.path.dirname(sys.executable), "mcpdelta")
    return candidate if os.path.exists(candidate) else "mcpdelta"


def run_case(argv, cwd, timeout=TIMEOUT_S) -> tuple:
    """(outcome, exit status, stderr) where outcome is one of error, ok,
    traceback, hang, unclear."""
    try:
        done = subprocess.run([script(), *argv], capture_output=True, cwd=cwd, timeout=timeout,
                              stdin=subprocess.DEVNULL, start_new_session=True)
    except subprocess.TimeoutExpired:
        return "hang", None, ""
    err = done.stderr.decode("utf-8", "replace")
    if "Traceback" in err:
        return "traceback", done.returncode, err
    if done.returncode in (0, 1):
        return "ok", done.returncode, err
    error_status = 3 if argv[0] == "verify-lock" else 2
    if done.returncode in (2, error_status) and len(err.strip().splitlines()) == 1:
        return "error", done.returncode, err
    return "unclear", done.returncode, err


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.hostile.run", description=__doc__.splitlines()[0])
    parser.add_argument("--fast", action="store_true", help="skip the lake cases (slower: each opens a lake)")
    parser.add_argument("--timeout", type=float, default=TIMEOUT_S)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    counts = {"error": 0, "ok": 0, "traceback": 0, "hang": 0, "unclear": 0}
    wrong = []
    with tempfile.TemporaryDirectory(prefix="mcpdelta-hostile-") as folder:
        cases = [c for c in build(folder) if not (args.fast and c[3])]
        for name, case_argv, expected, _ in cases:
            outcome, code, err = run_case(case_argv, folder, args.timeout)
            counts[outcome] += 1
            if outcome != expected:
                wrong.append((name, expected, outcome, code, err.strip().splitlines()[-1:] or [""]))
            if args.verbose:
                print(f"{outcome:>9}  {name}: {err.strip().splitlines()[-1] if err.strip() else ''}"[:200])
    for name, expected, outcome, code, last in wrong:
        print(f"UNEXPECTED {name}: expected {expected}, got {outcome} (exit {code}) {last[0][:160]}")
    print(f"cases {len(cases)}, clean errors {counts['error']}, accepted {counts['ok']}, "
          f"tracebacks {counts['traceback']}, hangs {counts['hang']}, unclear {counts['unclear']}, "
          f"unexpected {len(wrong)}")
    return 1 if counts["traceback"] or counts["hang"] or wrong else 0


if __name__ == "__main__":
    sys.exit(main())
