"""The diff stage: every pending version pair through the engine, in batches.

DuckDB picks the pending pairs (``sql/pairs_*.sql``) as keys only. Batches of
whole servers go to worker processes (both cores); each worker reads just
its servers' manifests from their Parquet partitions, diffs, and writes its
own ``changes`` file and then its ``pairs`` ledger file. Memory is bounded
by a batch, never by the lake; a crash loses at most the batches in flight
and a re-run finishes the rest without duplicates. A pair the engine cannot
read becomes a ledger row with an ``error``; the batch carries on.
"""

import concurrent.futures
import datetime as dt
import hashlib
import json
import multiprocessing
import os
import pathlib

from pipeline import __version__
from pipeline.lake import new_batch_id

SQL = pathlib.Path(__file__).resolve().parents[2] / "sql"
PAIR_MODES = ("consecutive", "all")


def engine_version() -> str:
    """The release plus a hash of the engine's source: a pair diffed by a
    different engine is diffed again."""
    engine = pathlib.Path(__file__).resolve().parents[1] / "engine"
    digest = hashlib.sha256()
    for path in sorted(engine.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return f"{__version__}+{digest.hexdigest()[:12]}"


def policy_hash(policy) -> str:
    spec = {"profile": policy.profile, "fail_on": policy.fail_on,
            "overrides": sorted(policy.overrides.items()),
            "ignores": [[i.rule, i.entity, i.reason] for i in policy.ignores]}
    return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:16]


def pairs_sql(mode: str) -> str:
    if mode not in PAIR_MODES:
        raise ValueError(mode)
    return (SQL / f"pairs_{mode}.sql").read_text()


def pair_key(server_id, old_digest, new_digest) -> str:
    return hashlib.sha256(f"{server_id}\0{old_digest}\0{new_digest}".encode()).hexdigest()[:32]


def _now():
    return dt.datetime.now(dt.timezone.utc)


def diff_batch(lake_root, pairs, policy, engine, policy_id, batch_id) -> dict:
    """Worker: load the manifests of these pairs' servers, diff each pair,
    write the changes and then the ledger; return counts.

    Runs in a worker process, so it reads and writes the lake itself: only
    pair keys cross the process boundary, never manifests."""
    from pipeline.engine.manifest import parse_manifest
    from pipeline.engine.result import DiffResult
    from pipeline.errors import InputError
    from pipeline.lake import Lake

    lake = Lake(lake_root)
    stored = lake.read_servers("manifests", {p["server_id"] for p in pairs},
                               ["server_id", "manifest_digest", "manifest_json"])
    texts = {}
    for server_id, digest, text in zip(*(stored.column(i).to_pylist() for i in range(3))):
        if digest is not None:
            texts[(server_id, digest)] = text
    parsed = {}  # consecutive pairs share a manifest: parse each once

    def load(server_id, digest, version):
        key = (server_id, digest)
        if key not in parsed:
            if key not in texts:
                raise InputError(f"{server_id} {version}", "manifest missing from the lake")
            # validated at ingest, nesting limit included: parse and check shape only
            parsed[key] = parse_manifest(texts[key], f"{server_id} {version}", max_depth=None)
        return parsed[key]

    changes, ledger = [], []
    for row in pairs:
        base = {"pair_key": pair_key(row["server_id"], row["old_digest"], row["new_digest"]),
                "server_id": row["server_id"], "old_version": row["old_version"],
                "new_version": row["new_version"], "old_digest": row["old_digest"],
                "new_digest": row["new_digest"], "engine_version": engine,
                "policy_hash": policy_id, "batch_id": batch_id}
        try:
            old = load(row["server_id"], row["old_digest"], row["old_version"])
            new = load(row["server_id"], row["new_digest"], row["new_version"])
            result = DiffResult(old, new, policy)
        except (InputError, ValueError, RecursionError) as exc:
            ledger.append({**base, "changes": 0, "breaking": 0, "grade": None,
                           "error": str(exc), "diffed_at": _now()})
            continue
        for change in result.changes:
            doc = change.as_json()
            changes.append({**base, "rule": doc["rule"], "severity": doc["severity"],
                            "default_severity": doc["default_severity"], "entity": doc["entity"],
                            "path": doc["path"], "old_json": json.dumps(doc["old"], sort_keys=True),
                            "new_json": json.dumps(doc["new"], sort_keys=True),
                            "message": doc["message"], "note": doc["note"],
                            "suppressed": doc["suppressed"],
                            "suppressed_reason": doc["suppressed_reason"],
                            "advisory_json": json.dumps(doc["advisory"])})
        ledger.append({**base, "changes": len(result.changes),
                       "breaking": result.summary["BREAKING"], "grade": result.grade,
                       "error": None, "diffed_at": _now()})
    lake.append("changes", changes, batch_id)
    lake.append("pairs", ledger, batch_id)  # the ledger last: it commits the batch
    return {"pairs_diffed": len(ledger), "errors": sum(r["error"] is not None for r in ledger)}


def _selected(mode, servers) -> str:
    """The pair query, limited to some servers when a list is given."""
    if servers is None:
        return pairs_sql(mode)
    ids = ", ".join("'" + s.replace("'", "''") + "'" for s in servers) or "NULL"
    return f"SELECT * FROM ({pairs_sql(mode)}) WHERE server_id IN ({ids})"


def count_pairs(con, mode, since, engine, policy_id, servers=None) -> tuple:
    """(all candidate pairs, of which already in the ledger)."""
    total, cached = con.execute(
        f"SELECT count(*), count(*) FILTER (WHERE cached) FROM ({_selected(mode, servers)})",
        {"engine_version": engine, "policy_hash": policy_id, "since": since}).fetchall()[0]
    return total, cached


def servers_with_pending_pairs(lake, policy, mode="consecutive", since=None) -> list:
    """Server ids that have pairs left to diff (to spread them over a cluster)."""
    con = lake.connect()
    rows = con.execute(f"SELECT DISTINCT server_id FROM ({pairs_sql(mode)}) WHERE NOT cached "
                       "ORDER BY server_id",
                       {"engine_version": engine_version(), "policy_hash": policy_hash(policy),
                        "since": since}).fetchall()
    return [r[0] for r in rows]


def _pending(con, mode, since, engine, policy_id, servers=None) -> list:
    """Keys of the pending pairs (no manifests: those stay on disk)."""
    query = f"""
        SELECT server_id, old_version, new_version, old_digest, new_digest
        FROM ({_selected(mode, servers)}) WHERE NOT cached
        ORDER BY server_id, old_version, new_version
    """
    params = {"engine_version": engine, "policy_hash": policy_id, "since": since}
    cursor = con.execute(query, params)
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]


def _batches(pairs, batch_size):
    """Pairs grouped by server, whole servers per batch, about batch_size
    pairs each: a worker loads each server's manifests once."""
    batch, size = [], 0
    by_server = {}
    for pair in pairs:
        by_server.setdefault(pair["server_id"], []).append(pair)
    for group in by_server.values():
        batch.extend(group)
        size += len(group)
        if size >= batch_size:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def run_diff_stage(lake, policy, mode="consecutive", since=None, workers=None,
                   batch_size=1000, on_batch=None, servers=None) -> dict:
    """Diff every pending pair (of ``servers``, when given); return counts
    for the survey summary."""
    engine, policy_id = engine_version(), policy_hash(policy)
    if servers is None:
        lake.remove_orphans()  # only a whole-lake run may tidy up after others
    con = lake.connect()
    total, cached = count_pairs(con, mode, since, engine, policy_id, servers)
    stats = {"pairs": total, "pairs_cached": cached, "pairs_diffed": 0, "errors": 0}
    if total == cached:
        return stats
    pending = _pending(con, mode, since, engine, policy_id, servers)
    con.close()
    batches = list(_batches(pending, batch_size))
    workers = min(workers or os.cpu_count() or 1, len(batches))

    def record(counts):
        stats["pairs_diffed"] += counts["pairs_diffed"]
        stats["errors"] += counts["errors"]
        if on_batch:
            on_batch(stats)

    if workers <= 1:
        for batch in batches:
            record(diff_batch(lake.root, batch, policy, engine, policy_id, new_batch_id()))
        return stats
    # spawn, not fork: the parent holds DuckDB's threads
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(workers, mp_context=context) as pool:
        futures = [pool.submit(diff_batch, lake.root, batch, policy, engine, policy_id, new_batch_id())
                   for batch in batches]
        for future in concurrent.futures.as_completed(futures):
            record(future.result())
    return stats
