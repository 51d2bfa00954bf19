"""Judge answers by content hash, so a re-run re-pays nothing.

The key is a SHA-256 over the judge's model and endpoint, the prompt
version and everything the prompt shows (rule, entity, path, old text,
new text): the same question to the same judge is asked once. Only real
answers are stored, never a failure or a budget skip.

A cache is anything with ``get(key) -> dict | None`` and
``put(key, value: dict)``: :class:`DiskCache` (one JSON-lines file, loaded
once, appended to) for ``diff --semantic``; :class:`MemoryCache` for one
process; a batch stage may pass its own (a lake table) with the same two
methods.

Where: ``$MCPDELTA_CACHE_DIR/judge-answers.jsonl``, else
``$XDG_CACHE_HOME/mcpdelta/...``, else ``~/.cache/mcpdelta/...``.
"""

import hashlib
import json
import os
import sys
import threading

from mcpdelta.errors import InputError
from mcpdelta.files import open_append
from mcpdelta.inputs import load_json

CACHE_FILE = "judge-answers.jsonl"
KEY_SCHEME = "mcpdelta-judge-cache/1"


def cache_key(model: str, base_url: str, prompt_version: str, rule: str, entity, path, old, new) -> str:
    material = json.dumps([KEY_SCHEME, model, base_url, prompt_version, rule, entity, path, old, new],
                          ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


def default_dir(environ=None) -> str:
    environ = os.environ if environ is None else environ
    if environ.get("MCPDELTA_CACHE_DIR"):
        return environ["MCPDELTA_CACHE_DIR"]
    base = environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "mcpdelta")


class MemoryCache:
    def __init__(self):
        self._data = {}
        self._lock = threading.Lock()

    def get(self, key):
        with self._lock:
            return self._data.get(key)

    def put(self, key, value):
        with self._lock:
            self._data[key] = value

    def __len__(self):
        return len(self._data)


class DiskCache(MemoryCache):
    """An append-only JSON-lines file; a torn or foreign line is skipped.
    A cache that cannot be written warns once on stderr and goes on in memory."""

    def __init__(self, directory: str):
        super().__init__()
        self.path = os.path.join(directory, CACHE_FILE)
        self._loaded = False
        self._warned = False

    @classmethod
    def default(cls, environ=None):
        return cls(default_dir(environ))

    def _load(self):
        self._loaded = True
        try:
            with open(self.path, encoding="utf-8") as handle:
                for line in handle:
                    try:
                        row = load_json(line, self.path)  # bounded: the file may come from anyone
                        if isinstance(row, dict) and isinstance(row.get("value"), dict):
                            self._data[str(row["key"])] = row["value"]
                    except (InputError, KeyError):
                        continue
        except FileNotFoundError:
            pass
        except (OSError, UnicodeDecodeError) as exc:
            self._warn(f"cannot read the judge cache {self.path}: {exc}")

    def get(self, key):
        with self._lock:
            if not self._loaded:
                self._load()
            return self._data.get(key)

    def put(self, key, value):
        line = json.dumps({"key": key, "value": value}, ensure_ascii=False, sort_keys=True) + "\n"
        with self._lock:
            if not self._loaded:
                self._load()
            self._data[key] = value
            try:
                os.makedirs(os.path.dirname(self.path), exist_ok=True)
                with open_append(self.path) as handle:  # never through a link
                    handle.write(line)   # one write per line: appends do not interleave
            except InputError as exc:
                self._warn(f"cannot write the judge cache: {exc}")
            except OSError as exc:
                self._warn(f"cannot write the judge cache {self.path}: {exc.strerror or exc}")

    def _warn(self, message):
        if not self._warned:
            self._warned = True
            print(f"mcpdelta: warning: {message}", file=sys.stderr)
