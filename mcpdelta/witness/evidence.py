"""What stands behind a breaking change: proven, by rule, or unexplained.

The one place that reads a witness note as a kind of evidence. Every
report, query and study that splits breaking changes by evidence uses it.

- *proven*: a witness, confirmed by an independent validator;
- *by rule*: no witness, for a named reason that the note gives first
  (a removed property still accepted but ignored, a keyword no validator
  can show, a keyword the engine does not model, which the catalog calls
  breaking by rule, a change that is not about a schema at all, ...);
- *unexplained*: no witness and no named reason (the bounded search gave
  up, the budget was spent): reported, not proved.
"""

PROVEN, BY_RULE, UNEXPLAINED = "proven", "by rule", "unexplained"
KINDS = (PROVEN, BY_RULE, UNEXPLAINED)

# Notes that open with one of these name the reason no witness exists.
# Any other note (the search gave up, a budget ran out) explains nothing.
NAMED_REASONS = (
    "accepted but ignored",
    "none by nature",
    "not a schema change",
    "unmodelled keyword",
    "format-only",
)


def evidence(witness, note) -> str:
    """The kind of evidence behind one change (``witness``: the stored value
    or None; ``note``: the witness note or None)."""
    if witness is not None:
        return PROVEN
    if note and note.startswith(NAMED_REASONS):
        return BY_RULE
    return UNEXPLAINED


def sql_case(witness_column: str = "witness_json", note_column: str = "witness_note") -> str:
    """The same reading as a DuckDB ``CASE`` expression, for queries over the
    lake's changes table."""
    named = " OR ".join(f"starts_with({note_column}, {quoted(p)})" for p in NAMED_REASONS)
    return (f"CASE WHEN {witness_column} IS NOT NULL THEN '{PROVEN}' "
            f"WHEN {note_column} IS NOT NULL AND ({named}) THEN '{BY_RULE}' "
            f"ELSE '{UNEXPLAINED}' END")


def quoted(text: str) -> str:
    """``text`` as a SQL string literal."""
    return "'" + text.replace("'", "''") + "'"
