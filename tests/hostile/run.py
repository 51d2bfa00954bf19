"""Run every hostile case in a real process with a timeout and print what happened:

    .venv/bin/python -m tests.hostile.run [--fast] [--timeout S] [--verbose] [--only TEXT]

Two suites: bad input files and lakes (``cases.py``), and the second front
(``attacks.py``): hostile servers on stdio and 127.0.0.1, prepared folders
with symbolic links, hostile names through every command and format,
package names and versions an installer would read as options, a key twice
in each kind of YAML, a gzip bomb.

The summary counts cases tried, clean errors (exit 2 and one line),
inputs accepted (exit 0/1), tracebacks, hangs, writes outside the target
(a file a case must leave alone that changed, or appeared), outputs
holding a raw control character or raw markup (stdout, stderr and every
file a case writes, each checked for its medium), and cases that ended
otherwise than expected. All but the first three must be 0 (the exit
status is 1 otherwise).
"""

import argparse
import contextlib
import os
import re
import subprocess
import sys
import tempfile
import time

from tests.hostile import attacks
from tests.hostile.cases import build

TIMEOUT_S = 60

# what no output may hold raw: C0 controls but tab, newline and carriage
# return; DEL; C1 controls; (for the human media) bidi embeddings, overrides
# and isolates; in any medium, a line that starts a GitHub workflow command
# a value wrote; in Markdown and HTML, a script element or the value's
# heading at the start of a line
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")
_COMMAND = re.compile(r"^\s*::(add-mask|set-output|set-env|add-path|stop-commands)", re.M)
_MARKUP = re.compile(r"<script|^#+ heading", re.I | re.M)
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`).*?(?<!`)\1(?!`)")


def raw_problems(text: str, medium: str = "text") -> list:
    """What ``text``, an output in ``medium``, holds raw that it must not."""
    found = []
    if _CONTROL.search(text):
        found.append(f"a raw control character {_CONTROL.search(text).group()!r}")
    if medium != "yaml" and _BIDI.search(text):
        found.append(f"a raw bidi control {_BIDI.search(text).group()!r}")
    if _COMMAND.search(text):
        found.append(f"a workflow command line {_COMMAND.search(text).group().strip()!r}")
    if medium == "markdown":  # a code span shows what it holds: markup counts outside them
        text = _CODE_SPAN.sub("", text)
    if medium in ("markdown", "html") and _MARKUP.search(text):
        found.append(f"raw markup {_MARKUP.search(text).group()!r}")
    return found


def script() -> str:
    candidate = os.path.join(os.path.dirname(sys.executable), "mcpdelta")
    return candidate if os.path.exists(candidate) else "mcpdelta"


def _command(argv) -> list:
    argv = [os.fspath(a) for a in argv]
    return [sys.executable, *argv[1:]] if argv[0] == "python" else [script(), *argv]


def execute(argv, cwd, timeout=TIMEOUT_S, env=None):
    """The completed process (text, replaced where not UTF-8), or None on a hang."""
    try:
        done = subprocess.run(_command(argv), capture_output=True, cwd=cwd, timeout=timeout,
                              stdin=subprocess.DEVNULL, start_new_session=True,
                              env={**os.environ, **(env or {})})
    except subprocess.TimeoutExpired:
        return None
    done.stdout = done.stdout.decode("utf-8", "replace")
    done.stderr = done.stderr.decode("utf-8", "replace")
    return done


def outcome_of(done, error_status=2) -> str:
    """error, ok, traceback, hang or unclear."""
    if done is None:
        return "hang"
    if "Traceback" in done.stderr:
        return "traceback"
    if done.returncode in (0, 1):
        return "ok"
    if done.returncode in (2, error_status) and len(done.stderr.strip().splitlines()) == 1:
        return "error"
    return "unclear"


def run_case(argv, cwd, timeout=TIMEOUT_S) -> tuple:
    """(outcome, exit status, stderr) of one bad-input case."""
    done = execute(argv, cwd, timeout)
    error_status = 3 if argv[0] == "verify-lock" else 2
    return outcome_of(done, error_status), done and done.returncode, done.stderr if done else ""


def _snapshot(path) -> tuple:
    """What a path a case must leave alone is: its kind and content, or absent."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return ("absent",)
    if os.path.islink(path):
        return ("link", os.readlink(path))
    if os.path.isdir(path):
        return ("folder", tuple(sorted((n, _snapshot(os.path.join(path, n))) for n in os.listdir(path))))
    with open(path, "rb") as fh:
        return ("file", fh.read(), info.st_mtime_ns, info.st_mode)


class Result:
    def __init__(self, case, outcome, code, problems, outside, raw, seconds):
        self.case, self.outcome, self.code = case, outcome, code
        self.problems, self.outside, self.raw, self.seconds = problems, outside, raw, seconds

    @property
    def expected(self) -> bool:
        want = self.case.expected
        if self.outcome in ("hang", "traceback"):
            return False
        if isinstance(want, str):
            right = self.outcome == want
        else:
            right = self.code in (want if isinstance(want, (tuple, list, set)) else (want,))
        return right and not self.problems


def failures(result) -> list:
    """What went wrong in one second-front case (empty when it ended as it must)."""
    found = [] if result.expected else [f"expected {result.case.expected}, got {result.outcome} "
                                        f"(exit {result.code})"]
    return found + result.problems + [f"changed outside its target: {p}" for p in result.outside] + result.raw


def run_attack(case, cwd) -> Result:
    """One second-front case: its process, then every check."""
    before = {str(p): _snapshot(p) for p in case.untouched}
    with case.around() if case.around else contextlib.nullcontext():
        started = time.monotonic()
        done = execute(case.argv, cwd, case.timeout, case.env)
        seconds = time.monotonic() - started
    error_status = 3 if case.argv[0] == "verify-lock" else 2
    outcome = outcome_of(done, error_status)
    codes = case.expected if isinstance(case.expected, (tuple, list, set)) else (case.expected,)
    if outcome == "unclear" and done.returncode in codes:  # a status the case names: as expected
        outcome = "ok"
    outside = [p for p, was in before.items() if _snapshot(p) != was]
    raw, problems = [], []
    if done is not None:
        raw += [f"stdout: {p}" for p in raw_problems(done.stdout, case.medium)]
        raw += [f"stderr: {p}" for p in raw_problems(done.stderr, "text")]
        for path, medium in case.outputs:
            if os.path.isfile(path):
                text = open(path, "rb").read().decode("utf-8", "replace")
                raw += [f"{os.path.basename(path)}: {p}" for p in raw_problems(text, medium)]
            else:
                problems.append(f"{path} was not written")
        if case.verify is not None and outcome not in ("hang", "traceback"):
            try:
                problems += case.verify(done)
            except Exception as exc:  # noqa: BLE001 - a check that cannot run is a failed check
                problems.append(f"check failed: {type(exc).__name__}: {exc}")
    return Result(case, outcome, done and done.returncode, problems, outside, raw, seconds)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.hostile.run", description=__doc__.splitlines()[0])
    parser.add_argument("--fast", action="store_true", help="skip the slow cases (lakes, surveys, the study)")
    parser.add_argument("--timeout", type=float, default=TIMEOUT_S)
    parser.add_argument("--only", metavar="TEXT", help="only the cases whose name holds TEXT")
    parser.add_argument("--front", action="store_true", help="only the second front (attacks.py)")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    counts = dict.fromkeys(("error", "ok", "traceback", "hang", "unclear"), 0)
    outside = raw = 0
    wrong = []
    with tempfile.TemporaryDirectory(prefix="mcpdelta-hostile-") as folder:
        old = [] if args.front else [c for c in build(os.path.join(folder, "files")) if not (args.fast and c[3])]
        new = [c for c in attacks.build(os.path.join(folder, "front"))
               if not (args.fast and c.slow)]
        if args.only:
            old = [c for c in old if args.only in c[0]]
            new = [c for c in new if args.only in c.name]
        for name, case_argv, expected, _ in old:
            done = execute(case_argv, os.path.join(folder, "files"), args.timeout)
            outcome = outcome_of(done, 3 if case_argv[0] == "verify-lock" else 2)
            counts[outcome] += 1
            found = (raw_problems(done.stdout) + raw_problems(done.stderr)) if done else []
            raw += bool(found)
            if outcome != expected or found:
                wrong.append((name, f"expected {expected}, got {outcome} (exit {done and done.returncode})",
                              found + (done.stderr.strip().splitlines()[-1:] if done else [])))
            if args.verbose:
                print(f"{outcome:>9}  {name}")
        for case in new:
            result = run_attack(case, os.path.join(folder, "front"))
            counts[result.outcome] += 1
            outside += bool(result.outside)
            raw += bool(result.raw)
            found = failures(result)
            if found:
                wrong.append((f"[{case.item}] {case.name}",
                              f"expected {case.expected}, got {result.outcome} (exit {result.code})", found))
            if args.verbose:
                print(f"{result.outcome:>9} {result.seconds:5.1f}s  [{case.item}] {case.name}")
        total = len(old) + len(new)
    for name, what, details in wrong:
        print(f"UNEXPECTED {name}: {what}")
        for line in details[:6]:
            print(f"    {str(line)[:200]}")
    print(f"cases {total} ({len(new)} of the second front), clean errors {counts['error']}, "
          f"accepted {counts['ok']}, tracebacks {counts['traceback']}, hangs {counts['hang']}, "
          f"writes outside the target {outside}, raw control or markup in output {raw}, "
          f"unclear {counts['unclear']}, unexpected {len(wrong)}")
    return 1 if counts["traceback"] or counts["hang"] or outside or raw or wrong else 0


if __name__ == "__main__":
    sys.exit(main())
