"""Witnesses: a concrete JSON value proving each schema break.

``attach_witnesses(result)`` sets ``change.witness`` / ``change.witness_note``
on the changes of a ``DiffResult``. Importing this package is free: the
validator (``jsonschema-rs``) and the search load only when witnesses are
computed.
"""

__all__ = ["attach_witnesses", "witness_for", "DEFAULTS"]

DEFAULTS = {
    "min_severity": "BREAKING",
    "max_candidates": 200,
    "max_constructive": 300,
    "max_shrink": 300,
    "max_size": 10_000,
    # work budgets, in candidates checked against both schemas: counted, never
    # timed, so the same diff gives the same witnesses on any machine
    "change_budget": 600,     # for one change
    "diff_budget": 6000,      # for all of one diff's witnesses
    "search_budget": 400,     # of random search in one diff (the last resort)
    "include_suppressed": False,
}


def attach_witnesses(result, **options):
    """See ``mcpdelta.witness.attach.attach_witnesses`` (options as ``DEFAULTS``)."""
    from mcpdelta.witness.attach import attach_witnesses as run

    unknown = set(options) - set(DEFAULTS)
    if unknown:
        raise TypeError(f"attach_witnesses() got unexpected options {sorted(unknown)}")
    return run(result, **{**DEFAULTS, **options})


def witness_for(change, old_manifest, new_manifest, **options):
    """(witness or None, note or None) for one change; see ``attach.witness_for``."""
    from mcpdelta.witness.attach import witness_for as run

    return run(change, old_manifest, new_manifest, **options)
