"""The engine's breaking schema changes on the real corpus, each proven,
explained, or shown by a second reader (tests/truth/independent.py).

A change fails the test when it has no witness python-jsonschema confirms,
no named reason, and the reader finds no value that tells the two sides apart
at its place, or when its witness is refused only elsewhere than at its own
place: the failure names the server, the step and the pointer. Every
consecutive step of ``data/ecosystem`` and ``data/survey`` is read (about a
minute: few changes need the reader's search once the engine explains them).
"""

import pathlib

import pytest

from tests.truth.corpus import FAILING, audit, table

DATA = pathlib.Path(__file__).resolve().parents[2] / "data"


def _failures(records):
    return [f"{r['server']} {r['old_version']} -> {r['new_version']}: {r['rule']} at {r['path']} "
            f"({r['verdict'][0]}: {r['note'] or r['verdict'][1]})"
            for r in records if r["verdict"][0] in FAILING]


@pytest.mark.parametrize("folder", ["ecosystem", "survey"])
def test_every_step_of_the_corpus_is_proven_or_explained(folder):
    records = list(audit(DATA / folder / "captures"))
    assert records
    assert not _failures(records), "\n".join(_failures(records))
    elsewhere = [f"{r['server']} {r['old_version']} -> {r['new_version']}: {r['rule']} at {r['path']}"
                 for r in records if r.get("own") is False]
    assert not elsewhere, "witnesses refused elsewhere than at their change:\n" + "\n".join(elsewhere)
    rows = table(records)
    confirmed = sum(row["confirmed"] + row["confirmed with format"] for row in rows.values())
    assert confirmed > 0.6 * len(records)  # python-jsonschema confirmed the witnesses themselves
