"""The diff stage: every pending version pair through the engine, in batches.

DuckDB picks the pending pairs (``sql/pairs_*.sql``) as keys only. Batches of
whole servers are diffed by the survey itself and by worker processes beside
it (both cores); each reads just its servers' manifests from their Parquet
partitions, diffs, and writes its own ``changes`` file and then its
``pairs`` ledger file. Memory is bounded by a batch, never by the lake; a
crash loses at most the batches in flight and a re-run finishes the rest
without duplicates. A pair the engine cannot read becomes a ledger row with
an ``error``; the batch carries on.
"""

import collections
import concurrent.futures
import contextlib
import datetime as dt
import gc
import hashlib
import json
import multiprocessing
import os
import pathlib
import sys
import threading

from mcpdelta import __version__
from mcpdelta.engine.remember import has_object, memo, per_object, remembered
from mcpdelta.errors import InputError
from mcpdelta.inputs import load_json

from mcpdelta.resources import SQL_DIR as SQL
from mcpdelta.survey.contracts import Contracts
from mcpdelta.survey.workers import init_worker

# which version pairs a survey diffs: each release with the one before, each
# with the server's latest, every earlier one with every later one
PAIR_MODES = ("consecutive", "latest", "all")

# mcpdelta.lake (pyarrow) is imported where it is used: a pool worker runs
# its initializer (survey/workers.py) before it loads anything heavy


def engine_sources() -> list:
    """What a pair's stored rows come from: the engine's source and the
    witnesses' (their values and notes are stored beside the changes)."""
    package = pathlib.Path(__file__).resolve().parents[1]
    return sorted(p for folder in ("engine", "witness") for p in (package / folder).glob("*.py"))


def engine_version() -> str:
    """The release plus a hash of ``engine_sources``: a pair diffed by a
    different engine, or witnessed by different code, is diffed again."""
    digest = hashlib.sha256()
    for path in engine_sources():
        digest.update(f"{path.parent.name}/{path.name}".encode() + b"\0" + path.read_bytes())
    return f"{__version__}+{digest.hexdigest()[:12]}"


def policy_hash(policy) -> str:
    spec = {"profile": policy.profile, "fail_on": policy.fail_on, "witness": policy.witness,
            "overrides": sorted(policy.overrides.items()),
            "ignores": [[i.rule, i.entity, i.reason] for i in policy.ignores]}
    return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:16]


def pairs_sql(mode: str) -> str:
    if mode not in PAIR_MODES:
        raise ValueError(mode)
    return (SQL / f"pairs_{mode}.sql").read_text()


def pair_key(server_id, old_digest, new_digest) -> str:
    return hashlib.sha256(f"{server_id}\0{old_digest}\0{new_digest}".encode()).hexdigest()[:32]


# json.dumps(value) and json.dumps(value, sort_keys=True), their encoders
# built once, not per call
_json = json.JSONEncoder().encode
_sorted_json = json.JSONEncoder(sort_keys=True).encode


def _encoder(known):
    """``_sorted_json``, once per object while ``remembered`` lasts: a
    change's values are parts of the batch's decoded tools and normal
    forms, and one value is written with each pair that holds its change."""
    if known is None:
        return _sorted_json

    def encoded(value):
        if value is None or type(value) in (str, int, float, bool):
            return _sorted_json(value)
        return per_object(known, value, _sorted_json)
    return encoded


def _now():
    return dt.datetime.now(dt.timezone.utc)


def diff_batch(lake_root, pairs, policy, engine, policy_id, batch_id) -> dict:
    """Worker: diff each pair of a batch, then write the changes and the
    ledger; return counts. ``lake_root``: a lake's root, or the ``Lake``
    (an object-store lake carries the lease its writes go under).

    Runs in a worker process, so it reads and writes the lake itself: only
    pair keys cross the process boundary, never manifests."""
    import rapidfuzz.fuzz  # noqa: F401 - loaded once per worker, the prose scores use it
    from mcpdelta.lake import Lake

    lake = lake_root if isinstance(lake_root, Lake) else Lake(lake_root)
    contracts = Contracts(lake, {p["server_id"] for p in pairs})
    # The batch's contracts stay until its end: frozen out of the
    # collector's sight, and with a young generation large enough for a
    # pair's short-lived garbage, the engine's allocations cost no passes
    # over them (a tenth of the stage's CPU time otherwise).
    thresholds = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(50_000, *thresholds[1:])
    try:
        # the batch's tools are decoded once and never changed: each schema
        # is normalised once, however many pairs change its tool
        with remembered(settles_once=True):
            return _diff_pairs(lake, contracts, pairs, policy, engine, policy_id, batch_id)
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()


def _diff_pairs(lake, contracts, pairs, policy, engine, policy_id, batch_id) -> dict:
    from mcpdelta.engine.result import DiffResult

    from mcpdelta.witness import attach_witnesses  # the proof of every BREAKING schema claim

    # rows as tuples in the tables' column order (mcpdelta/lake/tables.py):
    # the pair's columns (PAIR_COLUMNS), then the change's or the ledger's
    changes, ledger = [], []
    errors = 0
    encoded = _encoder(memo("json"))
    # change -> the rest of its row, once it is settled: a tool's changes
    # met again in another pair are these very objects (``settles_once``)
    tails = memo("rows")

    def tail(change):
        # the fields of Change.as_json(), without its sorted copies of old
        # and new: the sorted-key encoder sorts them anyway
        return (change.rule, change.severity, change.default_severity, change.entity, change.path,
                encoded(change.old), encoded(change.new), change.message, change.note,
                change.suppressed, change.suppressed_reason, _json(change.advisory),
                None if change.witness is None else _json(change.witness), change.witness_note)

    for row in pairs:
        base = (pair_key(row["server_id"], row["old_digest"], row["new_digest"]), row["server_id"],
                row["old_version"], row["new_version"], row["old_digest"], row["new_digest"],
                engine, policy_id, batch_id)
        try:
            old, new = contracts.pair(row["server_id"], row["old_digest"], row["new_digest"],
                                      (f"{row['server_id']} {row['old_version']}",
                                       f"{row['server_id']} {row['new_version']}"))
            result = DiffResult(old, new, policy)
        except (InputError, ValueError, RecursionError) as exc:
            ledger.append(base + (0, 0, None, 0, str(exc), _now()))
            errors += 1
            continue
        # "never": the proofs alone; changes settled in an earlier pair keep theirs
        attach_witnesses(_Unsettled(result, tails), min_severity=policy.witness)
        changes.extend([base + per_object(tails, change, tail) for change in result.changes])
        witnessed = sum(c.witness is not None for c in result.changes
                        if c.severity == "BREAKING" and not c.suppressed)
        ledger.append(base + (len(result.changes), result.summary["BREAKING"], result.grade,
                              witnessed, None, _now()))
    lake.append("changes", changes, batch_id)
    lake.append("pairs", ledger, batch_id)  # the ledger last: it commits the batch
    return {"pairs_diffed": len(ledger), "errors": errors}


class _Unsettled:
    """A result's changes not yet settled (witnessed, written) in this
    batch, in their order, for ``attach_witnesses``: what it works out for
    a change depends on that change and its tool alone (a combinator
    borrows only from its own tool's changes, met again all together)."""

    def __init__(self, result, tails):
        self.result, self.old, self.new = result, result.old, result.new
        self.changes = [c for c in result.changes if not has_object(tails, c)]

    def settle(self):
        self.result.settle()


# what the pair query reads: the other tables' files are neither checked nor bound
_PAIR_TABLES = ("manifests", "pairs")

# A pair the ledger holds for this engine and policy, without an error, is
# never diffed again.
_LEDGER = """EXISTS (SELECT 1 FROM pairs p
            WHERE p.server_id = c.server_id AND p.old_digest = c.old_digest
              AND p.new_digest = c.new_digest AND p.engine_version = $engine_version
              AND p.policy_hash = $policy_hash AND p.error IS NULL)"""


def selected_pairs(mode, servers=None) -> str:
    """The pair query with a ``cached`` column, limited to some servers when
    a list is given. Parameters: $engine_version, $policy_hash, $since."""
    where = ""
    if servers is not None:
        ids = ", ".join("'" + s.replace("'", "''") + "'" for s in servers) or "NULL"
        where = f" WHERE c.server_id IN ({ids})"
    return f"SELECT c.*, {_LEDGER} AS cached FROM ({pairs_sql(mode)}) c{where}"


def count_pairs(con, mode, since, engine, policy_id, servers=None) -> tuple:
    """(all candidate pairs, of which already in the ledger)."""
    return _candidates(con, mode, since, engine, policy_id, servers)[:2]


def servers_with_pending_pairs(lake, policy, mode="consecutive", since=None) -> list:
    """Server ids that have pairs left to diff (to spread them over a cluster)."""
    con = lake.connect(tables=_PAIR_TABLES)
    rows = con.execute(f"SELECT DISTINCT server_id FROM ({selected_pairs(mode)}) WHERE NOT cached "
                       "ORDER BY server_id",
                       {"engine_version": engine_version(), "policy_hash": policy_hash(policy),
                        "since": since}).fetchall()
    return [r[0] for r in rows]


def _candidates(con, mode, since, engine, policy_id, servers=None) -> tuple:
    """(all candidate pairs, of which in the ledger, the keys of the pending
    ones): one query (no manifests: those stay on disk)."""
    query = f"""
        SELECT server_id, old_version, new_version, old_digest, new_digest, cached
        FROM ({selected_pairs(mode, servers)})
        ORDER BY server_id, old_version, new_version
    """
    params = {"engine_version": engine, "policy_hash": policy_id, "since": since}
    cursor = con.execute(query, params)
    names = [d[0] for d in cursor.description][:-1]
    rows = cursor.fetchall()
    pending = [dict(zip(names, row)) for row in rows if not row[-1]]
    return len(rows), len(rows) - len(pending), pending


def _batches(pairs, batch_size, workers=1):
    """Pairs grouped by server, whole servers per batch (a worker loads each
    server's manifests once), about batch_size pairs each. With several
    processes the last rounds shrink (a batch is at most an equal share of
    what is left between twice the processes): they finish together, none
    idles through another's last big batch."""
    by_server = {}
    for pair in pairs:
        by_server.setdefault(pair["server_id"], []).append(pair)
    left = len(pairs)
    smallest = min(batch_size, MIN_BATCH)
    batch = []
    for group in by_server.values():
        batch.extend(group)
        share = batch_size if workers == 1 else -(-left // (2 * workers))
        if len(batch) >= max(smallest, min(batch_size, share)):
            yield batch
            left -= len(batch)
            batch = []
    if batch:
        yield batch


MIN_BATCH = 50  # a batch's fixed cost (reads, two files written) stays small beside its pairs


DONE_FILE = ".diff-stage-done.json"  # in the lake's folder; readers read only tables' Parquet
DONE_KEEP = 32


def _listing(lake, table) -> list:
    """(path, size, mtime) of every file of a table: lake files are written
    once and renamed into place, so an equal listing is equal content."""
    if lake.remote:
        return [list(entry) for entry in lake.listing(table)]  # as JSON would give them back
    out = []
    folder = lake.folder(table)
    for root, _, files in os.walk(folder):
        for name in files:
            if name.endswith(".parquet") and not name.startswith("."):
                path = os.path.join(root, name)
                try:
                    info = os.stat(path)
                except OSError:
                    continue
                out.append((os.path.relpath(path, folder), info.st_size, info.st_mtime_ns))
    return sorted(out)


def _state_key(lake, manifests, mode, since, engine, policy_id, servers) -> str:
    """What decides the pending pairs: the manifests (the candidates), the
    ledger (what is done), the engine, the policy and the query; and the
    other tables the stage reads or writes, so a file broken or added there
    is checked as before."""
    state = [mode, str(since), engine, policy_id, sorted(servers) if servers is not None else None,
             manifests] + [_listing(lake, table) for table in ("tools", "changes", "pairs")]
    return hashlib.sha256(json.dumps(state).encode()).hexdigest()


def _done(lake) -> dict:
    if lake.remote:
        try:
            found = json.loads(lake.get(DONE_FILE) or b"{}")
        except ValueError:
            return {}
        return found if isinstance(found, dict) else {}
    from mcpdelta.inputs import read_bytes

    try:
        found = load_json(read_bytes(os.path.join(lake.base, DONE_FILE), 1 << 20), DONE_FILE)
    except InputError:
        return {}
    return found if isinstance(found, dict) else {}


def _record_done(lake, key, total) -> None:
    """Remember that a lake in this state has no pending pair (written whole
    or not at all; losing it costs one full check, never a wrong answer)."""
    from mcpdelta.files import write_file

    done = {k: v for k, v in _done(lake).items() if isinstance(v, int)}
    done.pop(key, None)
    done = dict(list(done.items())[-(DONE_KEEP - 1):])
    done[key] = total
    if lake.remote:  # one PUT is whole or nothing
        lake.put(DONE_FILE, json.dumps(done).encode())
        return
    try:
        write_file(os.path.join(lake.base, DONE_FILE), json.dumps(done))
    except OSError:  # a read-only lake: the next run checks in full
        pass


def run_diff_stage(lake, policy, mode="consecutive", since=None, workers=None,
                   batch_size=1000, on_batch=None, servers=None) -> dict:
    """Diff every pending pair (of ``servers``, when given); return counts
    for the survey summary.

    A lake whose manifests and ledger files are exactly those of a state
    already seen to have no pending pair (same engine, policy and query) is
    answered from that record, without opening DuckDB."""
    engine, policy_id = engine_version(), policy_hash(policy)
    if servers is None:
        lake.remove_orphans()  # only a whole-lake run may tidy up after others
    manifests_before = _listing(lake, "manifests")
    key = _state_key(lake, manifests_before, mode, since, engine, policy_id, servers)
    known = _done(lake).get(key)
    if isinstance(known, int):
        return {"pairs": known, "pairs_cached": known, "pairs_diffed": 0, "errors": 0}
    workers = workers or os.cpu_count() or 1
    # the pool starts before the query: its workers' start-up (a process
    # and its imports each) overlaps the query instead of following it
    pool = _pool(workers - 1) if workers > 1 else None
    try:
        stats, pooled = _diff_pending(lake, pool, workers, key, policy, mode, since, engine,
                                      policy_id, servers, batch_size, on_batch)
    except BaseException:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)  # no batch of theirs is left writing
        raise
    if pool is not None:
        # workers given no batch are not waited for: they end once they are up
        pool.shutdown(wait=pooled, cancel_futures=True)
    # every pair done (an error is retried next time) and no manifest came
    # meanwhile: this state has nothing pending
    if stats["pairs_diffed"] and stats["errors"] == 0 \
            and stats["pairs_diffed"] == stats["pairs"] - stats["pairs_cached"] \
            and _listing(lake, "manifests") == manifests_before:
        _record_done(lake, _state_key(lake, manifests_before, mode, since, engine, policy_id,
                                      servers), stats["pairs"])
    return stats


def _diff_pending(lake, pool, workers, key, policy, mode, since, engine, policy_id, servers,
                  batch_size, on_batch):
    """(counts, whether the pool diffed any batch): the pending pairs picked
    and diffed, here and in the pool."""
    from mcpdelta.lake import new_batch_id

    con = lake.connect(tables=_PAIR_TABLES)
    total, cached, pending = _candidates(con, mode, since, engine, policy_id, servers)
    con.close()
    lake.files("tools")  # the workers read these: a damaged one is one line here, before any batch
    stats = {"pairs": total, "pairs_cached": cached, "pairs_diffed": 0, "errors": 0}
    if not pending:
        _record_done(lake, key, total)
        return stats, False
    batches = list(_batches(pending, batch_size, workers))
    lock = threading.Lock()  # pool batches are recorded from the threads that feed them

    def record(counts):
        with lock:
            stats["pairs_diffed"] += counts["pairs_diffed"]
            stats["errors"] += counts["errors"]
            if on_batch:
                on_batch(stats)

    if pool is None or len(batches) == 1:
        for batch in batches:
            record(diff_batch(_sent(lake), batch, policy, engine, policy_id, new_batch_id()))
        return stats, False
    _diff_beside_pool(pool, lake, batches, policy, engine, policy_id, min(workers, len(batches)) - 1,
                      record)
    return stats, True


def _sent(lake):
    """What a batch names its lake by: a folder lake's root, or an
    object-store lake itself (with the lease token its writes need)."""
    return lake.for_tasks() if lake.remote else lake.root


def _pool(size):
    """``size`` pool workers, started now (spawn, not fork: the parent holds
    DuckDB's threads)."""
    context = multiprocessing.get_context("spawn")
    pool = concurrent.futures.ProcessPoolExecutor(size, mp_context=context,
                                                  initializer=init_worker,
                                                  initargs=(os.getpid(),))
    for _ in range(size):
        pool.submit(_warm)
    return pool


def _warm():
    """A worker's imports, done while the survey still picks the pairs."""
    import rapidfuzz.fuzz  # noqa: F401
    import mcpdelta.engine.result  # noqa: F401
    import mcpdelta.lake  # noqa: F401


def _diff_beside_pool(pool, lake, batches, policy, engine, policy_id, feeders, record) -> None:
    """Diff the batches in this process and in ``feeders`` pool workers,
    each taking the next batch when it is done with one. This process has
    loaded pyarrow already: a worker fewer to start is its imports fewer
    (about 0.35 s of CPU)."""
    from mcpdelta.lake import new_batch_id

    queue = collections.deque(batches)

    def take():
        try:
            return queue.popleft()  # atomic: this process and the feeders take from one queue
        except IndexError:
            return None

    def feed():
        """One pool worker's share: a batch at a time until none is left."""
        try:
            while (batch := take()) is not None:
                record(pool.submit(diff_batch, _sent(lake), batch, policy, engine, policy_id,
                                   new_batch_id()).result())
        except BaseException:
            queue.clear()  # a failed batch stops the stage: no new batch is started
            raise

    with quick_handovers():
        with concurrent.futures.ThreadPoolExecutor(feeders) as threads:
            fed = [threads.submit(feed) for _ in range(feeders)]
            try:
                while (batch := take()) is not None:
                    record(diff_batch(_sent(lake), batch, policy, engine, policy_id, new_batch_id()))
            except BaseException:
                queue.clear()
                raise
            for future in fed:
                future.result()


HANDOVER_S = 0.0005  # the GIL switch interval while batches are handed over
_handovers = {"stages": 0, "interval": None}
_handovers_lock = threading.Lock()


@contextlib.contextmanager
def quick_handovers():
    """A short GIL switch interval while this process diffs beside its
    pool. A batch handed to a pool worker, and its result handed back, pass
    through this process's other threads (the pool's, a feeder), each of
    which waits for the GIL while the diffing thread holds it: up to the
    switch interval a hop, about 30 ms a batch at the default 5 ms, with the
    worker idle. Stages overlapping in one process (threads) share it; the
    last to end restores the interval the first found."""
    with _handovers_lock:
        if _handovers["stages"] == 0:
            _handovers["interval"] = sys.getswitchinterval()
            sys.setswitchinterval(min(_handovers["interval"], HANDOVER_S))
        _handovers["stages"] += 1
    try:
        yield
    finally:
        with _handovers_lock:
            _handovers["stages"] -= 1
            if _handovers["stages"] == 0:
                sys.setswitchinterval(_handovers["interval"])
