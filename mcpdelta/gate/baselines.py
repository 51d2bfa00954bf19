"""Where the two sides of a comparison come from.

A side is a manifest file (``-`` for standard input), ``git:REV:PATH`` (the
file as committed at REV, read with ``git show``; REV may be
``merge-base(REF)``, the commit where HEAD left REF: what a pull request
is compared against), or ``live:SERVER_ID``
(that server of a servers file, captured on the spot by the crawler). An
existing file of that name always wins, so no file becomes unreadable.
"""

import os
import re

from mcpdelta.errors import InputError

GIT_TIMEOUT_S = 30


def read_side(spec: str, *, servers_file: str | None = None, max_bytes: int | None = None,
              max_depth: int | None = None, allow_destructive_probes: bool = False) -> dict:
    """The manifest ``spec`` names, parsed and validated."""
    from mcpdelta.engine.manifest import DEFAULT_MAX_BYTES, DEFAULT_MAX_DEPTH, parse_manifest, read_manifest

    max_bytes = max_bytes or DEFAULT_MAX_BYTES
    max_depth = max_depth or DEFAULT_MAX_DEPTH
    if spec == "-" or os.path.lexists(spec):
        return read_manifest(spec, max_bytes, max_depth)
    if spec.startswith("git:"):
        return parse_manifest(git_show(spec, max_bytes), spec, max_bytes, max_depth)
    if spec.startswith("live:"):
        server_id = spec[len("live:"):]
        if not server_id:
            raise InputError(spec, "name a server: live:SERVER_ID")
        if not servers_file:
            raise InputError(spec, "a live side needs --servers FILE")
        from mcpdelta.crawl.live import capture_live

        return capture_live(servers_file, server_id, allow_destructive_probes=allow_destructive_probes)
    return read_manifest(spec, max_bytes, max_depth)  # the usual "no such file"


def git_show(spec: str, max_bytes: int) -> bytes:
    """The bytes of ``git:REV:PATH``; PATH is relative to the working
    directory (as ``git show REV:./PATH`` reads it) unless it starts with /
    (then relative to the repository's top)."""
    rev, sep, path = spec[len("git:"):].partition(":")
    if not sep or not rev or not path:
        raise InputError(spec, "expected git:REV:PATH (REV a commit, a branch, or merge-base(REF))")
    return read_at(resolve(rev, spec), path, max_bytes, spec, rev)


def resolve(rev: str, where: str) -> str:
    """The commit ``rev`` names; ``merge-base(REF)`` is the best common
    ancestor of HEAD and REF (``git merge-base HEAD REF``)."""
    m = re.fullmatch(r"merge-base\((.+)\)", rev)
    ref = m.group(1).strip() if m else rev
    commit = _git(where, ["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"],
                  f"unknown revision {ref!r}", 4096).decode().strip()
    if not m:
        return commit
    shallow = _git(where, ["rev-parse", "--is-shallow-repository"], "", 4096).strip() == b"true"
    hint = " (a shallow clone: fetch the history, e.g. actions/checkout with fetch-depth: 0)" if shallow else ""
    return _git(where, ["merge-base", "HEAD", commit], f"HEAD and {ref!r} have no merge base{hint}",
                4096).decode().strip()


def read_at(commit: str, path: str, max_bytes: int, where: str, rev: str | None = None) -> bytes:
    """The bytes of ``path`` (relative to the working directory, or to the
    repository's top when it starts with /) as committed at ``commit``."""
    object_path = path[1:] if path.startswith("/") else (path if path.startswith("./") else "./" + path)
    return _git(where, ["show", f"{commit}:{object_path}"],
                f"no file {path!r} at revision {rev or commit!r}", max_bytes)


def _git(spec: str, args: list[str], problem: str, max_bytes: int) -> bytes:
    import subprocess  # only a git side pays for it: diff of two files starts without

    try:
        proc = subprocess.Popen(["git", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        raise InputError(spec, "git is not installed") from None
    try:
        data = proc.stdout.read(max_bytes + 1)
        if len(data) > max_bytes:
            proc.kill()
            raise InputError(spec, f"file is larger than the {max_bytes}-byte limit")
        stderr = proc.stderr.read(4096).decode("utf-8", "replace")
        proc.wait(GIT_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise InputError(spec, f"git did not answer within {GIT_TIMEOUT_S} s") from None
    finally:
        proc.stdout.close()
        proc.stderr.close()
    if proc.returncode != 0:
        if "not a git repository" in stderr:
            raise InputError(spec, "the working directory is not inside a git repository")
        raise InputError(spec, problem)
    return data
