"""The small world the reference servers' probes read: made fresh by the study.

``data/servers/reference.yaml`` points its probed servers at
``${MCPDELTA_FIXTURES}`` (a memory file, a folder of files, a git repository,
a SQLite database), so a probe call reads these and nothing of the machine
it runs on. Every byte is fixed (file contents, commit authors and dates),
so two studies probe the same world; the folder's own path is a ``${VAR}``
value, which the crawler masks in what it stores.

A crawl by hand makes the folder first::

    export MCPDELTA_FIXTURES=$(python -m mcpdelta.survey.fixtures /tmp/mcpdelta-fixtures)
"""

import contextlib
import json
import os
import pathlib
import shutil
import sqlite3
import subprocess
import sys

VARIABLE = "MCPDELTA_FIXTURES"
GIT_TIMEOUT_S = 30

MEMORY = [  # server-memory's JSON-lines graph
    {"type": "entity", "name": "Alice", "entityType": "person", "observations": ["likes tea", "reads maps"]},
    {"type": "entity", "name": "Bob", "entityType": "person", "observations": ["plays chess"]},
    {"type": "relation", "from": "Alice", "to": "Bob", "relationType": "knows"},
]
FILES = {
    "notes.txt": "first line\nsecond line\nthird line\n",
    "data.json": json.dumps({"name": "fixture", "items": [1, 2, 3]}, indent=2) + "\n",
    "sub/readme.md": "# A sub folder\n\nNothing else.\n",
}
COMMITS = [  # (message, {path: text}, date)
    ("Add notes", {"notes.txt": "first line\n"}, "2025-01-01T12:00:00+00:00"),
    ("Extend notes, add data", {"notes.txt": "first line\nsecond line\n", "data.json": '{"n": 1}\n'},
     "2025-01-02T12:00:00+00:00"),
]
ROWS = [(1, "groceries", "tea, bread"), (2, "chess", "learn the Sicilian")]


def create(folder) -> pathlib.Path:
    """Make (or make again) the fixtures in ``folder``; return its absolute path."""
    from mcpdelta.files import make_folder, write_file

    root = pathlib.Path(folder).resolve()
    root.mkdir(parents=True, exist_ok=True)
    write_file(root / "memory.json", "".join(json.dumps(line) + "\n" for line in MEMORY))
    files = root / "files"
    shutil.rmtree(files, ignore_errors=True)
    for name, text in FILES.items():
        make_folder(root, "files", *pathlib.PurePosixPath(name).parent.parts)  # never into a link
        write_file(files / name, text)
    _database(root / "reference.db")
    if shutil.which("git"):  # without git, mcp-server-git cannot run either: its capture says so
        _repository(root / "repo")
    return root


def _database(path: pathlib.Path) -> None:
    path.unlink(missing_ok=True)
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT)")
        db.executemany("INSERT INTO notes VALUES (?, ?, ?)", ROWS)


def _repository(path: pathlib.Path) -> None:
    """Two commits with fixed authors and dates: the same hashes every time.
    The user's git configuration (hooks, signing, templates) is kept out."""
    from mcpdelta.files import make_folder, write_file

    shutil.rmtree(path, ignore_errors=True)
    make_folder(path.parent, path.name)
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(path), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_AUTHOR_NAME": "Fixture", "GIT_AUTHOR_EMAIL": "fixture@example.org",
           "GIT_COMMITTER_NAME": "Fixture", "GIT_COMMITTER_EMAIL": "fixture@example.org", "LC_ALL": "C"}

    def git(*args, date=None):
        extra = {"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date} if date else {}
        subprocess.run(["git", *args], cwd=path, env={**env, **extra}, check=True, timeout=GIT_TIMEOUT_S,
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    git("init", "-q", "--template=", "-b", "main")
    for message, files, date in COMMITS:
        for name, text in files.items():
            write_file(path / name, text)
        git("add", *files)
        git("commit", "-q", "--no-gpg-sign", "-m", message, date=date)
    write_file(path / "notes.txt", FILES["notes.txt"])  # an unstaged change to show


@contextlib.contextmanager
def exported(folder):
    """The fixtures made in ``folder`` and ``MCPDELTA_FIXTURES`` naming it while
    the block runs (the crawler expands ``${VAR}`` from this process's
    environment)."""
    root = create(folder)
    before = os.environ.get(VARIABLE)
    os.environ[VARIABLE] = str(root)
    try:
        yield root
    finally:
        if before is None:
            os.environ.pop(VARIABLE, None)
        else:
            os.environ[VARIABLE] = before


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m mcpdelta.survey.fixtures FOLDER   (prints the folder's absolute path)")
    print(create(sys.argv[1]))
