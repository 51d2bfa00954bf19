"""The reading of witness notes as evidence, in Python and in SQL, agrees."""

import duckdb
import pytest

from mcpdelta.witness.evidence import BY_RULE, PROVEN, UNEXPLAINED, evidence, sql_case

CASES = [
    ('{"q": 1}', "anything", PROVEN),
    ('{"q": 1}', None, PROVEN),
    (None, "accepted but ignored: the new inputSchema still accepts 'q'", BY_RULE),
    (None, "none by nature: prose changes no validation outcome", BY_RULE),
    (None, "not a schema change: validation witnesses exist only for schemas", BY_RULE),
    (None, "unmodelled keyword 'not': reported because the engine does not model it", BY_RULE),
    (None, "format-only: \"\" shows the change only where `format` is read as an annotation", BY_RULE),
    (None, "no witness found within the bounds: 300 constructed and 0 searched", UNEXPLAINED),
    (None, "no witness: cut short, the diff's witness budget of 6000 was spent", UNEXPLAINED),
    (None, "  none by nature (not at the start)", UNEXPLAINED),
    (None, None, UNEXPLAINED),
]


@pytest.mark.parametrize("witness, note, expected", CASES)
def test_python_reads_each_note_as_expected(witness, note, expected):
    assert evidence(witness, note) == expected


def test_sql_reads_every_note_as_python_does():
    con = duckdb.connect()
    con.execute("CREATE TABLE changes (witness_json VARCHAR, witness_note VARCHAR)")
    con.executemany("INSERT INTO changes VALUES (?, ?)", [(w, n) for w, n, _ in CASES])
    got = [r[0] for r in con.execute(f"SELECT {sql_case()} FROM changes").fetchall()]
    assert got == [expected for _, _, expected in CASES]


def test_a_reason_with_a_quote_is_still_one_sql_string(monkeypatch):
    import mcpdelta.witness.evidence as ev

    monkeypatch.setattr(ev, "NAMED_REASONS", ev.NAMED_REASONS + ("it's named",))
    con = duckdb.connect()
    got = con.execute(f"SELECT {ev.sql_case('w', 'n')} FROM (SELECT NULL AS w, 'it''s named: x' AS n)")
    assert got.fetchone()[0] == BY_RULE
