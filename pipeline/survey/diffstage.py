"""The diff stage: every pending version pair through the engine, in batches.

Pairs stream out of DuckDB as Arrow record batches (memory stays bounded
however many there are), go to worker processes (both cores), and come back
as ``changes`` rows plus one ``pairs`` ledger row per pair. Each batch is
written as its own files, changes first and the ledger last, so a crash
loses at most the batch in flight and a re-run finishes the rest without
duplicates. A pair the engine cannot read becomes a ledger row with an
``error``; the batch carries on.
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


def diff_batch(rows, policy, engine, policy_id, batch_id):
    """Worker: diff each pair of a batch; return (changes rows, ledger rows)."""
    from pipeline.engine.manifest import parse_manifest
    from pipeline.engine.result import DiffResult
    from pipeline.errors import InputError

    changes, ledger = [], []
    for row in rows:
        key = pair_key(row["server_id"], row["old_digest"], row["new_digest"])
        base = {"pair_key": key, "server_id": row["server_id"], "old_version": row["old_version"],
                "new_version": row["new_version"], "old_digest": row["old_digest"],
                "new_digest": row["new_digest"], "engine_version": engine, "policy_hash": policy_id,
                "batch_id": batch_id}
        try:
            old = parse_manifest(row["old_json"], f"{row['server_id']} {row['old_version']}")
            new = parse_manifest(row["new_json"], f"{row['server_id']} {row['new_version']}")
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
        live = result.summary
        ledger.append({**base, "changes": len(result.changes), "breaking": live["BREAKING"],
                       "grade": result.grade, "error": None, "diffed_at": _now()})
    return changes, ledger


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


def _pending(con, mode, since, engine, policy_id, batch_size, servers=None):
    """Pending pairs with both manifests, as an Arrow record batch reader."""
    query = f"""
        WITH contracts AS (
            SELECT DISTINCT ON (server_id, manifest_digest) server_id, manifest_digest, manifest_json
            FROM manifests WHERE ok
        )
        SELECT p.server_id, p.old_version, p.new_version, p.old_digest, p.new_digest,
               o.manifest_json AS old_json, n.manifest_json AS new_json
        FROM ({_selected(mode, servers)}) p
        JOIN contracts o ON o.server_id = p.server_id AND o.manifest_digest = p.old_digest
        JOIN contracts n ON n.server_id = p.server_id AND n.manifest_digest = p.new_digest
        WHERE NOT p.cached
        ORDER BY p.server_id, p.old_version, p.new_version
    """
    params = {"engine_version": engine, "policy_hash": policy_id, "since": since}
    return con.sql(query, params=params).to_arrow_reader(batch_size)


def run_diff_stage(lake, policy, mode="consecutive", since=None, workers=None,
                   batch_size=256, on_batch=None, servers=None) -> dict:
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
    reader = _pending(con, mode, since, engine, policy_id, batch_size, servers)
    workers = workers or os.cpu_count() or 1

    def record(result):
        changes, ledger = result
        batch_id = ledger[0]["batch_id"]
        lake.append("changes", changes, batch_id)
        lake.append("pairs", ledger, batch_id)  # the ledger last: it commits the batch
        stats["pairs_diffed"] += len(ledger)
        stats["errors"] += sum(r["error"] is not None for r in ledger)
        if on_batch:
            on_batch(stats)

    batches = (b.to_pylist() for b in reader)
    if workers == 1 or total - cached <= batch_size:
        for rows in batches:
            record(diff_batch(rows, policy, engine, policy_id, new_batch_id()))
        return stats
    # spawn, not fork: the parent holds DuckDB's threads
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(workers, mp_context=context) as pool:
        in_flight = set()
        for rows in batches:
            in_flight.add(pool.submit(diff_batch, rows, policy, engine, policy_id, new_batch_id()))
            if len(in_flight) >= workers * 2:  # bounded: read ahead at most two batches a worker
                done, in_flight = concurrent.futures.wait(
                    in_flight, return_when=concurrent.futures.FIRST_COMPLETED)
                for future in done:
                    record(future.result())
        for future in concurrent.futures.as_completed(in_flight):
            record(future.result())
    return stats
