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
    "time_budget_s": None,
    "include_suppressed": False,
}


def attach_witnesses(result, min_severity="BREAKING", max_candidates=200, max_constructive=300,
                     max_shrink=300, max_size=10_000, time_budget_s=None, include_suppressed=False):
    """See ``pipeline.witness.attach.attach_witnesses``."""
    from pipeline.witness.attach import attach_witnesses as run

    return run(result, min_severity=min_severity, max_candidates=max_candidates,
               max_constructive=max_constructive, max_shrink=max_shrink, max_size=max_size,
               time_budget_s=time_budget_s, include_suppressed=include_suppressed)


def witness_for(change, old_manifest, new_manifest, **options):
    """(witness or None, note or None) for one change; see ``attach.witness_for``."""
    from pipeline.witness.attach import witness_for as run

    return run(change, old_manifest, new_manifest, **options)
