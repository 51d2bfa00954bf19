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
    # each change's own work budget, in candidates checked against both
    # schemas: counted, never timed, so a change gets the same witness on any
    # machine, whatever else its diff holds
    "change_budget": 600,     # in all
    "search_budget": 400,     # of them in the random search (the last resort)
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
