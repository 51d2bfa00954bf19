"""The recipe a server is started under, as a capture records it.

A capture's tool list can depend on how the server was started (a dummy
URL that switches a product on, a fixture file, a subcommand), so each
capture keeps the recipe of its servers-file entry: the argument list as
written (``{version}`` and ``${VAR}`` unexpanded), the *names* of the
environment variables it sets (never their values), its working folder,
the fixture files it points at, and ``hash``: one SHA-256 over all of it,
the values as written and each fixture's content included, so two
captures under different recipes have different hashes and two releases
of one entry have the same. ``tool_set`` is the entry's own note on how
its tool set depends on configuration (not hashed: it describes, it does
not configure).

A capture the crawler had to start with placeholder values for variables
the server asked for (``placeholders.py``) runs under the entry's recipe
plus those: ``with_placeholders`` adds their names to ``env`` and lists
them in ``placeholders``, and hashes the entry's hash with them, so such a
capture's recipe differs from a plain one's and every release that needed
the same placeholders shares one.

A *fixture* is a relative path in an argument, an environment value or the
working folder that names an existing file or folder, other than the
servers file's folder, its ancestors and the working folder itself (``.``
or ``../..`` name the checkout, not a fixture). Absolute paths (``/tmp``)
are the machine's, never hashed.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

FIXTURE_FILES = 1000           # files of one fixture folder hashed, at most
FIXTURE_BYTES = 64 * 1024 * 1024

# a ${NAME} in a servers file: the environment variable NAME, expanded at start
VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def describe(*, command=None, args=(), env=None, cwd=None, url=None, headers=None, package=None,
             base: Path, tool_set: str | None = None) -> dict:
    """The recipe of one servers-file entry (see the module's docstring).
    ``command``, ``args``, ``env``, ``cwd``, ``url`` and ``headers`` as
    written in the entry; ``package`` a ``PackageSpec`` or None; ``base``
    the servers file's folder. Of ``headers``, like ``env``, only the names
    are kept."""
    env = {str(k): "" if v is None else str(v) for k, v in (env or {}).items()}
    args = [str(a) for a in args]
    base = base.resolve()
    start = base if cwd is None or VAR.search(str(cwd)) else (base / str(cwd)).resolve()
    # arguments and variables are read by the server, relative to its working folder
    checkout = {base, *base.parents}
    candidates = [(text, start, checkout | {start}) for text in args + list(env.values())]
    if cwd is not None:
        candidates.append((str(cwd), base, checkout))
    fixtures = {}
    for text, root, not_fixtures in candidates:
        found = None if VAR.search(text) else _fixture(text, root, not_fixtures)
        if found is not None:
            fixtures[text] = found
    recipe = {"args": args, "env": sorted(env), "cwd": None if cwd is None else str(cwd),
              "fixtures": sorted(fixtures)}
    headers = {str(k): "" if v is None else str(v) for k, v in (headers or {}).items()}
    if headers:
        recipe["headers"] = sorted(headers)
    if url is not None:
        recipe["url"] = str(url)
    if command is not None:
        recipe["command"] = str(command)
    if package is not None:
        recipe["package"] = {k: v for k, v in (("registry", package.registry), ("name", package.name),
                                                 ("bin", package.bin), ("python", package.python),
                                                 ("node", package.node)) if v is not None}
    hashed = {**recipe, "env": env, "headers": headers, "fixtures": fixtures}
    text = json.dumps(hashed, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    recipe["hash"] = "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()
    if tool_set:
        recipe["tool_set"] = str(tool_set)
    return recipe


def with_placeholders(recipe: dict | None, placeholders: dict[str, str]) -> dict | None:
    """``recipe`` (of an entry, shared by its releases: never changed here)
    as it became once ``placeholders`` were set; ``recipe`` itself when none were."""
    if not placeholders:
        return recipe
    recipe = dict(recipe or {})
    recipe["env"] = sorted({*recipe.get("env", ()), *placeholders})
    recipe["placeholders"] = sorted(placeholders)
    text = json.dumps({"recipe": recipe.get("hash"), "placeholders": placeholders}, sort_keys=True,
                      ensure_ascii=False, separators=(",", ":"))
    recipe["hash"] = "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()
    return recipe


def _fixture(text: str, root: Path, not_fixtures: set) -> str | None:
    """The content hash of the fixture ``text`` names (relative to ``root``),
    or None when it names none."""
    if not text or len(text) > 4096 or "{version}" in text or "\0" in text or "://" in text \
            or os.path.isabs(text):
        return None
    try:
        path = (root / text).resolve()
        if not path.exists() or path in not_fixtures:
            return None
    except (OSError, RuntimeError, ValueError):
        return None
    return _content_hash(path)


def _content_hash(path: Path) -> str:
    """SHA-256 of a file, or of a folder's files (names and contents, in
    order), bounded; a folder past the bounds hashes its names only."""
    digest = hashlib.sha256()
    if path.is_file():
        _feed(digest, path, FIXTURE_BYTES)
        return "sha256:" + digest.hexdigest()
    files = []
    for root, dirs, names in os.walk(path):
        dirs.sort()
        files.extend(Path(root) / n for n in sorted(names))
        if len(files) > FIXTURE_FILES:
            break
    budget = FIXTURE_BYTES
    whole = len(files) <= FIXTURE_FILES
    for file in files[:FIXTURE_FILES]:
        digest.update(file.relative_to(path).as_posix().encode("utf-8", "surrogateescape") + b"\0")
        if whole and file.is_file():
            budget -= _feed(digest, file, budget)
    return ("sha256:" if whole and budget >= 0 else "sha256-names:") + digest.hexdigest()


def _feed(digest, path: Path, budget: int) -> int:
    """Hash up to ``budget`` bytes of ``path`` into ``digest``; the bytes read."""
    read = 0
    try:
        with open(path, "rb") as fh:
            while read <= budget:
                chunk = fh.read(1 << 20)
                if not chunk:
                    break
                digest.update(chunk)
                read += len(chunk)
    except OSError:
        digest.update(b"\0unreadable")
    return read
