"""The survey's judge stage: advisory notes on the lake's prose changes.

``judge_lake(lake, config, engine, policy_id)`` reads the prose changes that
this engine and policy produced (unsuppressed changes whose rule is a prose
rule), asks its judges (the offline member where its extra is installed,
then the configured ones) about the ones not yet judged, and appends
their notes to the lake's ``notes`` table. It never writes a ``changes``
row and never touches a severity: notes live in their own table.

The notes table is the cache. A note's ``note_key`` is the content hash of
the question (``cache.cache_key``: model, endpoint, prompt version, rule,
entity, path, old and new text), so:

- a change is *already judged* when every judge has an answered
  note (``meaning_changed`` / ``equivalent``) for it in that pair: it is
  skipped, and costs nothing;
- the same question met again elsewhere (another pair, another server with
  the same text) is answered from a stored answer, with no request;
- a ``judge_error`` or ``budget_exhausted`` note is recorded but is no
  answer: the next run asks that judge again (and records a new note; a
  reader takes the latest note per change and judge).

Budgets are per run (``budget_tokens`` of each judge entry). Notes are
written every ``CHUNK`` changes, so a run killed midway keeps what it paid for.
"""

import datetime as dt
import hashlib
import json

from mcpdelta.engine.catalog import RULES
from mcpdelta.errors import InputError
from mcpdelta.inputs import load_json
from mcpdelta.judge import note as N

CHUNK = 256
ANSWERED = (N.MEANING_CHANGED, N.EQUIVALENT)


class LakeCache:
    """The answers already in the notes table, plus those this run adds
    (``get`` / ``put``, as ``judge_changes`` expects)."""

    def __init__(self, answers: dict):
        self._data = answers  # key -> answer, or its stored JSON text until first asked

    def get(self, key):
        value = self._data.get(key)
        if isinstance(value, str):  # parsed on demand: a cached run reads none of them
            try:
                value = load_json(value, "a stored answer")  # bounded: a lake cell
            except InputError:
                value = None
            self._data[key] = value = value if isinstance(value, dict) else None
        return value

    def put(self, key, value):
        self._data[key] = value


def prose_rules() -> list:
    return sorted(rule for rule, spec in RULES.items() if spec.prose)


def jury_key(member_keys) -> str:
    material = json.dumps(["mcpdelta-jury/1", sorted(member_keys)], separators=(",", ":"))
    return hashlib.sha256(material.encode()).hexdigest()


def empty_counts(configured: bool) -> dict:
    return {"judged": 0, "cached": 0, "errors": 0, "configured": bool(configured),
            "budget_exhausted": 0, "notes": 0, "requests": 0}


def pending_changes(con) -> list:
    """This engine and policy's unsuppressed prose changes, one per pair and
    content, in a stable order (so which ones a budget covers is stable)."""
    cursor = con.execute(
        "SELECT DISTINCT server_id, pair_key, rule, entity, path, old_json, new_json FROM changes "
        "WHERE NOT coalesce(suppressed, false) AND list_contains($rules, rule) "
        "ORDER BY server_id, pair_key, path, rule, entity, old_json, new_json",
        {"rules": prose_rules()})
    columns = [d[0] for d in cursor.description]
    return [dict(zip(columns, row)) for row in cursor.fetchall()]


def stored_notes(con):
    """(pair_key, note_key) pairs already answered, and every stored answer's
    JSON text by key."""
    done, answers = set(), {}
    for pair, key, verdict, answer in con.execute(
            "SELECT pair_key, note_key, verdict, answer_json FROM notes").fetchall():
        if verdict in ANSWERED and answer is not None:
            done.add((pair, key))
            answers.setdefault(key, answer)  # JSON text: LakeCache parses what it is asked for
    return done, answers


def judge_lake(lake, config, engine, policy_id, environ=None) -> dict:
    """Judge what is not yet judged; append the notes; return counts:
    ``judged`` (changes given new notes), ``cached`` (changes already judged,
    skipped), ``errors`` (judge_error notes written), ``configured``, and
    ``budget_exhausted``, ``notes`` (rows written), ``requests`` (HTTP attempts)."""
    from mcpdelta.judge import members
    from mcpdelta.judge.cache import cache_key
    from mcpdelta.judge.jury import judge_changes
    from mcpdelta.lake import new_batch_id

    judges = members(config, environ)   # a bad entry or an unset key: InputError, before any call
    counts = empty_counts(judges)
    if not judges:
        return counts
    con = lake.connect(engine, policy_id)
    try:
        changes = pending_changes(con)
        done, answers = stored_notes(con)
    finally:
        con.close()
    todo = []
    for row in changes:
        try:  # bounded: lake cells, which anyone may have written
            old = load_json(row["old_json"], "a change's old value")
            new = load_json(row["new_json"], "a change's new value")
        except (InputError, TypeError):
            counts["errors"] += 1
            continue
        keys = [cache_key(j.spec.model, j.spec.base_url, j.prompt_version, row["rule"], row["entity"],
                          row["path"], old, new) for j in judges]
        if all((row["pair_key"], k) in done for k in keys):
            counts["cached"] += 1
            continue
        todo.append(({**row, "old": old, "new": new}, keys))
    cache = LakeCache(answers)
    for start in range(0, len(todo), CHUNK):
        chunk = todo[start:start + CHUNK]
        notes = judge_changes([c for c, _ in chunk], judges, cache)
        rows = []
        now = dt.datetime.now(dt.timezone.utc)
        for (change, keys), change_notes in zip(chunk, notes):
            base = {k: change[k] for k in ("server_id", "pair_key", "rule", "entity", "path",
                                           "old_json", "new_json")}
            base["judged_at"] = now
            for judge, key, note in zip(judges, keys, change_notes):
                if (change["pair_key"], key) in done:
                    continue   # answered before; the jury note below is the new one
                answered = note["verdict"] in ANSWERED
                answer = cache.get(key) if answered else None
                rows.append({**base, **_note_fields(note), "note_key": key, "model": judge.spec.model,
                             "endpoint": judge.spec.base_url,
                             "answer_json": json.dumps(answer, sort_keys=True) if answer else None})
                counts["errors"] += note["verdict"] == N.JUDGE_ERROR
                counts["budget_exhausted"] += note["verdict"] == N.BUDGET_EXHAUSTED
                if answered and answer is not None:
                    done.add((change["pair_key"], key))
            if len(change_notes) > len(judges):   # the jury's note
                rows.append({**base, **_note_fields(change_notes[-1]), "note_key": jury_key(keys),
                             "model": None, "endpoint": None, "answer_json": None})
            counts["judged"] += 1
        batch = new_batch_id()
        for row in rows:
            row["batch_id"] = batch
        lake.append("notes", rows, batch)
        counts["notes"] += len(rows)
    counts["requests"] = sum(j.client.requests for j in judges)
    return counts


def _note_fields(note) -> dict:
    return {"judge": note["judge"], "verdict": note["verdict"],
            "security_relevant": note["security_relevant"], "confidence": note["confidence"],
            "summary": note["summary"], "prompt_version": note["prompt_version"]}
