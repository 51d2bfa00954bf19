"""Captures into the ``manifests`` table, and every attempt into
``attempts``: from a crawl, or from a folder laid out as
``DIR/<server-id>/<version>.json`` with its ``crawl-log.jsonl`` (the layout
crawl writes).

Content-addressed: a capture whose (server, version, manifest digest) the
lake already holds adds no row, so re-ingesting or re-crawling unchanged
servers writes nothing. A file that is not a valid manifest becomes an error
row (``error_kind: invalid_manifest``) and the rest carries on.
"""

import datetime as dt
import errno
import hashlib
import json
import os
import re
import stat
import sys

from mcpdelta.contract import tool_digest
from mcpdelta.engine.behaviour import fingerprint
from mcpdelta.engine.digest import manifest_digest
from mcpdelta.engine.fingerprint import shape_hash
from mcpdelta.engine.manifest import DEFAULT_MAX_BYTES, parse_manifest
from mcpdelta.errors import InputError
from mcpdelta.inputs import gunzip, read_bytes
from mcpdelta.lake import new_batch_id

_SEMVER = re.compile(r"^v?(\d+(?:\.\d+){0,3})(?:[-+]?([0-9A-Za-z.+-]*))?$")


def version_key(version: str) -> str:
    """A string that sorts versions as semver where they parse (a
    pre-release before its release), else by name after every semver."""
    match = _SEMVER.match(version or "")
    if not match:
        return "1:" + (version or "")
    numbers = [int(n) for n in match.group(1).split(".")] + [0] * 4
    prerelease = (match.group(2) or "").split("+")[0]  # build metadata does not order
    stem = ".".join(f"{n:012d}" for n in numbers[:4])
    if not prerelease:
        return f"0:{stem}:~"  # "~" sorts after any pre-release: 1.0.0-rc.1 < 1.0.0
    # semver precedence: numeric identifiers by value, before alphanumeric ones
    parts = [f"0{int(p):012d}" if p.isdigit() else f"1{p}" for p in prerelease.split(".")]
    return f"0:{stem}:-" + ".".join(parts)


def _timestamp(text):
    if isinstance(text, dt.datetime):
        return text
    if not text:
        return None
    try:
        return dt.datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        return None


def capture_row(server_id, version, manifest_text, *, source, captured_at, transport=None,
                ok=True, error_kind=None, error=None) -> dict:
    """One ``manifests`` row. A capture that fails validation is an error row."""
    row = {"server_id": server_id, "version": version, "version_key": version_key(version),
           "captured_at": _timestamp(captured_at), "source": source, "transport": transport,
           "ok": ok, "error_kind": error_kind, "error": error, "manifest_digest": None,
           "tool_digests": None, "tool_hashes": None, "surface_json": None, "manifest_json": None,
           "tools": [], "probes": []}
    if not ok or manifest_text is None:
        row["ok"] = False
        return row
    try:
        manifest = parse_manifest(manifest_text, source)
        digests = {t["name"]: tool_digest(t) for t in manifest.get("tools", [])}
        row["manifest_digest"] = manifest_digest(manifest)
    except (InputError, ValueError) as exc:
        row.update(ok=False, error_kind="invalid_manifest", error=str(exc))
        return row
    row["tool_digests"] = json.dumps(digests, sort_keys=True)
    row["manifest_json"] = manifest_text if isinstance(manifest_text, str) else manifest_text.decode("utf-8-sig")
    row["surface_json"] = json.dumps({k: v for k, v in manifest.items() if k != "tools"})
    if isinstance(manifest.get("tools"), list):
        hashes = {}
        for tool in manifest["tools"]:
            text = json.dumps(tool, sort_keys=True, ensure_ascii=False)
            hashes[tool["name"]] = hashlib.sha256(text.encode()).hexdigest()[:32]
            row["tools"].append({"server_id": server_id, "manifest_digest": row["manifest_digest"],
                                 "name": tool["name"], "tool_hash": hashes[tool["name"]],
                                 "tool_json": text})
        row["tool_hashes"] = json.dumps(hashes, sort_keys=True)
    for probe in manifest.get("probes") or []:
        shape = fingerprint(probe)["shape"]
        row["probes"].append({"server_id": server_id, "manifest_digest": row["manifest_digest"],
                              "name": probe["name"], "tool": probe["tool"],
                              "arguments_json": json.dumps(probe.get("arguments"), sort_keys=True),
                              "outcome": probe.get("outcome"), "error": _short_text(probe.get("error")),
                              "shape_hash": shape_hash(shape) if shape else None,
                              "shape_json": json.dumps(shape, sort_keys=True) if shape else None})
    return row


def _short_text(value, limit: int = 1000):
    return None if value is None else str(value)[:limit]


def attempt_row(entry: dict, digest, source: str) -> dict:
    """One ``attempts`` row from a crawl-log entry (``CaptureRecord.log_row``)
    and the digest of what it captured (None: nothing usable)."""
    client = entry.get("client") or {}
    ok = bool(entry.get("ok")) and digest is not None
    error_kind, error = entry.get("error_kind"), entry.get("error")
    if entry.get("ok") and digest is None:
        error_kind, error = "invalid_manifest", error or "the captured manifest is not valid"
    return {"server_id": entry["id"], "version": entry["version"],
            "version_key": version_key(entry["version"]),
            "attempted_at": _timestamp(entry.get("captured_at")), "source": source,
            "client": f"{client.get('name')}/{client.get('version')}" if client else None,
            "offered_protocol": entry.get("offered_protocol"), "protocol": entry.get("protocol"),
            "transport": entry.get("transport"), "published_at": _timestamp(entry.get("published_at")),
            "ok": ok, "error_kind": None if ok else error_kind, "error": None if ok else error,
            "manifest_digest": digest if ok else None, "duration_ms": entry.get("duration_ms"),
            **{k: v if isinstance(v, str) else None
               for k, v in ((k, entry.get(k)) for k in ("handshake", "install_retry", "python"))},
            **{k: v if isinstance(v, int) and not isinstance(v, bool) else None
               for k, v in ((k, entry.get(k)) for k in ("install_ms", "capture_ms"))},
            **_recipe_columns(entry.get("recipe"))}


def _recipe_columns(recipe) -> dict:
    """The recipe a crawl-log entry ran under, as its two columns (none
    recorded: both null)."""
    if not isinstance(recipe, dict) or not _text(recipe.get("hash")) or len(recipe["hash"]) > 200:
        return {"recipe_hash": None, "recipe_json": None}
    # ASCII: a value the log spelled with a lone surrogate stays an escape, storable
    return {"recipe_hash": recipe["hash"], "recipe_json": json.dumps(recipe, sort_keys=True)}


def rows_from_records(records) -> tuple[list, list]:
    """(manifest rows, attempt rows) from the crawler's CaptureRecords,
    failures included."""
    rows, attempts = [], []
    for rec in records:
        text = json.dumps(rec.manifest, ensure_ascii=False) if rec.manifest is not None else None
        row = capture_row(rec.id, rec.version, text, source="crawl",
                          captured_at=rec.captured_at, transport=rec.transport,
                          ok=rec.ok and text is not None, error_kind=rec.error_kind if not rec.ok else None,
                          error=rec.error if not rec.ok else None)
        rows.append(row)
        attempts.append(attempt_row(rec.log_row(), row["manifest_digest"], "crawl"))
    return rows, attempts


# a capture file: plain JSON, or gzipped (how committed corpora are stored)
CAPTURE_SUFFIXES = (".json", ".json.gz")


def rows_from_folder(folder: str, warn=None) -> tuple[list, list]:
    """(manifest rows, attempt rows) from ``folder/<server-id>/<version>.json``
    (or ``<version>.json.gz``) files, with capture times and transports from ``crawl-log.jsonl`` when it
    is there. The log's failed attempts become error rows too, so a version
    that never started is counted, not dropped. A file that cannot be read
    as a manifest is an error row; an entry that is no capture at all (a
    FIFO, a device, a dangling or looping link, a name that is not UTF-8) is
    skipped with ``warn(line)`` (default: a line on stderr)."""
    warn = warn or _stderr
    if not os.path.isdir(folder):
        raise InputError(folder, "no such folder" if not os.path.exists(folder) else "not a folder")
    log = _crawl_log(folder, warn)
    rows = []
    for server_id in _names(folder, warn):
        server_dir = os.path.join(folder, server_id)
        if server_id.startswith(".") or server_id == "crawl-log.jsonl":
            continue
        if not _is_dir(server_dir, warn):
            continue
        for name in _names(server_dir, warn):
            suffix = next((s for s in CAPTURE_SUFFIXES if name.endswith(s)), None)
            if suffix is None or name.startswith("."):
                continue
            path = os.path.join(server_dir, name)
            kind = _entry_kind(path)
            if kind is not None:
                warn(f"mcpdelta: {path}: skipped, {kind}")
                continue
            version = name[: -len(suffix)]
            entry = log.get((server_id, version), {})
            try:
                data = read_bytes(path, DEFAULT_MAX_BYTES, "manifest file")
                if suffix == ".json.gz":
                    data = gunzip(data, path, DEFAULT_MAX_BYTES)
                mtime = os.stat(path).st_mtime
            except InputError as exc:
                rows.append(capture_row(server_id, version, None, source=f"ingest:{path}",
                                        captured_at=entry.get("captured_at"), ok=False,
                                        error_kind="unreadable", error=str(exc)))
                continue
            captured_at = entry.get("captured_at") or dt.datetime.fromtimestamp(mtime, dt.timezone.utc)
            rows.append(capture_row(server_id, version, data, source=f"ingest:{path}",
                                    captured_at=captured_at, transport=entry.get("transport")))
    source = f"ingest:{folder}"
    digests = {(r["server_id"], r["version"]): r["manifest_digest"] for r in rows}
    attempts = []
    for (server_id, version), entry in sorted(log.items()):
        if not entry.get("ok"):
            rows.append(capture_row(server_id, version, None, source=source,
                                    captured_at=entry.get("captured_at"), transport=entry.get("transport"),
                                    ok=False, error_kind=entry.get("error_kind"), error=entry.get("error")))
        attempts.append(attempt_row(entry, digests.get((server_id, version)), source))
    return rows, attempts


def _stderr(line):
    from mcpdelta.safe import visible  # a folder's names are anyone's

    print(visible(line), file=sys.stderr)


def _names(folder, warn) -> list:
    """The folder's entries whose names are UTF-8 (the lake stores text)."""
    try:
        names = sorted(os.listdir(folder))
    except OSError as exc:
        warn(f"mcpdelta: {folder}: skipped, {exc.strerror or exc}")
        return []
    good = []
    for name in names:
        try:
            name.encode("utf-8")
            good.append(name)
        except UnicodeEncodeError:
            shown = os.path.join(folder, name).encode("utf-8", "surrogateescape").decode("utf-8", "replace")
            warn(f"mcpdelta: {shown}: skipped, the name is not valid UTF-8")
    return good


def _is_dir(path, warn) -> bool:
    kind = _entry_kind(path)
    if kind is not None:
        warn(f"mcpdelta: {path}: skipped, {kind}")
        return False
    return os.path.isdir(path)  # a plain file beside the server folders is no server


def _entry_kind(path):
    """Why ``path`` is no capture file or folder (None: it may be one)."""
    try:
        info = os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "a symbolic link loop"
        if os.path.islink(path):
            return "a dangling symbolic link"
        return None  # read_bytes says what is wrong
    if stat.S_ISFIFO(info.st_mode):
        return "a FIFO (named pipe), not a file"
    if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode):
        return "a device, not a file"
    if stat.S_ISSOCK(info.st_mode):
        return "a socket, not a file"
    return None


# crawl-log fields and the types they must have; a field of another type is dropped
_LOG_FIELDS = {"captured_at": str, "published_at": str, "transport": str, "protocol": str,
               "offered_protocol": str, "error_kind": str, "error": str, "client": dict,
               "duration_ms": int, "ok": bool, "handshake": str, "install_retry": str, "python": str,
               "install_ms": int, "capture_ms": int, "recipe": dict}


def _crawl_log(folder: str, warn) -> dict:
    log = {}
    path = os.path.join(folder, "crawl-log.jsonl")
    if not os.path.lexists(path):
        return log
    try:
        data = read_bytes(path, DEFAULT_MAX_BYTES, "crawl log")
    except InputError as exc:
        warn(f"mcpdelta: {exc}; read without it")
        return log
    skipped = 0
    for line in data.splitlines():
        try:
            entry = json.loads(line.decode("utf-8"))
            if not isinstance(entry, dict):
                raise TypeError
            server_id, version = entry["id"], entry["version"]
            if not _text(server_id) or not _text(version):
                raise TypeError
        except (ValueError, KeyError, TypeError, RecursionError):
            skipped += bool(line.strip())  # a torn last line of an interrupted crawl, or junk
            continue
        clean = {"id": server_id, "version": version}
        for name, kind in _LOG_FIELDS.items():
            value = entry.get(name)
            if isinstance(value, kind) and not (kind is int and isinstance(value, bool)) \
                    and (kind is not str or _text(value)):
                clean[name] = value
        if isinstance(clean.get("client"), dict):
            clean["client"] = {k: v for k, v in clean["client"].items() if _text(v)}
        if clean.get("duration_ms") is not None and not 0 <= clean["duration_ms"] < 2 ** 63:
            del clean["duration_ms"]
        log[(server_id, version)] = clean
    if skipped:
        warn(f"mcpdelta: {path}: {skipped} line(s) skipped (not a crawl-log entry)")
    return log


def _text(value) -> bool:
    """A string the lake can store (a JSON escape can spell a lone surrogate)."""
    if not isinstance(value, str):
        return False
    try:
        value.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


def store(lake, rows, attempts=()) -> dict:
    """Append the manifest rows and attempt rows the lake does not hold yet;
    return counts. A new contract's tools are written first and its manifest
    row after, so a manifest row always has its tools (and its probes).
    Every key it checks starts with the server id, so only the partitions
    of the servers stored are read (a crawl task on a cluster reads its own
    servers', not the whole lake)."""
    servers = sorted({r["server_id"] for r in rows} | {a["server_id"] for a in attempts})

    def stored(table, columns):
        data = lake.read_servers(table, servers, columns)
        return set(zip(*(data[c].to_pylist() for c in columns))) if data.num_rows else set()

    seen = stored("attempts", ["server_id", "version", "attempted_at", "client"])
    new_attempts = []
    for attempt in attempts:
        key = (attempt["server_id"], attempt["version"], attempt["attempted_at"], attempt["client"])
        if key not in seen:
            seen.add(key)
            new_attempts.append(attempt)
    known = {(s, v, d if d is not None else e, t) for s, v, d, e, t in stored(
        "manifests", ["server_id", "version", "manifest_digest", "error_kind", "captured_at"])}
    known_contracts = {(s, v, d) for s, v, d, _ in known}
    stored_tools = stored("tools", ["server_id", "manifest_digest"])
    stored_probes = stored("probes", ["server_id", "manifest_digest"])
    fresh, tools, probes = [], [], []
    for row in rows:
        if row["ok"]:
            key = (row["server_id"], row["version"], row["manifest_digest"])
            if key in known_contracts:
                continue
            known_contracts.add(key)
            if (row["server_id"], row["manifest_digest"]) not in stored_tools:
                stored_tools.add((row["server_id"], row["manifest_digest"]))
                tools.extend(row["tools"])  # a contract's tools once, whatever its versions
            if row["probes"] and (row["server_id"], row["manifest_digest"]) not in stored_probes:
                stored_probes.add((row["server_id"], row["manifest_digest"]))
                probes.extend(row["probes"])
        elif (row["server_id"], row["version"], row["error_kind"], row["captured_at"]) in known:
            continue
        fresh.append(row)
    batch = new_batch_id()
    lake.append("tools", tools, batch)
    lake.append("probes", probes, batch)
    lake.append("manifests", [{k: v for k, v in row.items() if k not in ("tools", "probes")} for row in fresh],
                batch)
    lake.append("attempts", new_attempts, batch)
    failed = [r for r in fresh if not r["ok"]]  # this run's new error rows (not the lake's old ones)
    return {"rows": len(rows), "added": len(fresh), "errors": len(failed), "failed": failed,
            "attempts": len(new_attempts)}
