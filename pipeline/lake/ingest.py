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
import hashlib
import json
import os
import re

from pipeline.contract import manifest_digest, tool_digest
from pipeline.engine.manifest import parse_manifest
from pipeline.errors import InputError
from pipeline.lake import new_batch_id

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
           "tools": []}
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
    return row


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
               for k, v in ((k, entry.get(k)) for k in ("install_ms", "capture_ms"))}}


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


def rows_from_folder(folder: str) -> tuple[list, list]:
    """(manifest rows, attempt rows) from ``folder/<server-id>/<version>.json``
    files, with capture times and transports from ``crawl-log.jsonl`` when it
    is there. The log's failed attempts become error rows too, so a version
    that never started is counted, not dropped."""
    if not os.path.isdir(folder):
        raise InputError(folder, "no such folder")
    log = _crawl_log(folder)
    rows = []
    for server_id in sorted(os.listdir(folder)):
        server_dir = os.path.join(folder, server_id)
        if not os.path.isdir(server_dir) or server_id.startswith("."):
            continue
        for name in sorted(os.listdir(server_dir)):
            if not name.endswith(".json") or name.startswith("."):
                continue
            path = os.path.join(server_dir, name)
            version = name[: -len(".json")]
            entry = log.get((server_id, version), {})
            captured_at = entry.get("captured_at") or dt.datetime.fromtimestamp(
                os.path.getmtime(path), dt.timezone.utc)
            try:
                with open(path, "rb") as handle:
                    data = handle.read()
            except OSError as exc:
                rows.append(capture_row(server_id, version, None, source=f"ingest:{path}",
                                        captured_at=captured_at, ok=False, error_kind="unreadable",
                                        error=f"{path}: {exc.strerror or exc}"))
                continue
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


def _crawl_log(folder: str) -> dict:
    log = {}
    path = os.path.join(folder, "crawl-log.jsonl")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                try:
                    entry = json.loads(line)
                    log[(str(entry["id"]), str(entry["version"]))] = entry
                except (ValueError, KeyError, TypeError):
                    continue  # a torn last line of an interrupted crawl
    return log


def store(lake, rows, attempts=()) -> dict:
    """Append the manifest rows and attempt rows the lake does not hold yet;
    return counts. A new contract's tools are written first and its manifest
    row after, so a manifest row always has its tools."""
    con = lake.connect()
    seen = set(con.execute(
        "SELECT server_id, version, attempted_at, client FROM attempts").fetchall())
    new_attempts = []
    for attempt in attempts:
        key = (attempt["server_id"], attempt["version"], attempt["attempted_at"], attempt["client"])
        if key not in seen:
            seen.add(key)
            new_attempts.append(attempt)
    known = set(con.execute(
        "SELECT server_id, version, coalesce(manifest_digest, error_kind), captured_at FROM manifests"
    ).fetchall())
    known_contracts = {(s, v, d) for s, v, d, _ in known}
    stored_tools = set(con.execute("SELECT DISTINCT server_id, manifest_digest FROM tools").fetchall())
    fresh, tools = [], []
    for row in rows:
        if row["ok"]:
            key = (row["server_id"], row["version"], row["manifest_digest"])
            if key in known_contracts:
                continue
            known_contracts.add(key)
            if (row["server_id"], row["manifest_digest"]) not in stored_tools:
                stored_tools.add((row["server_id"], row["manifest_digest"]))
                tools.extend(row["tools"])  # a contract's tools once, whatever its versions
        elif (row["server_id"], row["version"], row["error_kind"], row["captured_at"]) in known:
            continue
        fresh.append(row)
    batch = new_batch_id()
    lake.append("tools", tools, batch)
    lake.append("manifests", [{k: v for k, v in row.items() if k != "tools"} for row in fresh], batch)
    lake.append("attempts", new_attempts, batch)
    return {"rows": len(rows), "added": len(fresh), "errors": sum(not r["ok"] for r in fresh),
            "attempts": len(new_attempts)}
