"""Work remembered while a batch lasts: each schema normalised once, each
distinct pair of schemas diffed once, and (for a caller that settles each
change once) each tool's two sides diffed, proven and encoded once.

Within ``with remembered():`` the engine keeps what it worked out about
schemas it met before. It is for a caller that changes neither the schemas
nor the results while it lasts, such as the diff stage's batch, which
decodes each stored tool once and meets the same schemas again and again
(the new side of one pair is the old side of the next; with every pair of
releases, one tool's change is met in each pair that spans it). Results are
the same as without it, byte for byte; outside it nothing is kept.
"""

import marshal

_SCOPE = None  # the memos of the innermost ``remembered``, or None

# the memos a scope holds: the engine's, and those of the layers above it
# that read the same batch (witnesses, the rows the diff stage writes)
NAMES = ("normalised", "schema diffs", "bytes", "prose", "witnesses", "schema texts", "json",
         "tool changes", "rows", "fingerprints")


class remembered:
    """``settles_once``: the caller sets each change's severity and witness
    once and never changes it after (the diff stage), so a tool met again
    with the same two sides gives back the very changes it gave before,
    already settled (``memo("tool changes")``; None without it)."""

    def __init__(self, settles_once=False):
        self.settles_once = settles_once

    def __enter__(self):
        global _SCOPE
        self.outer, _SCOPE = _SCOPE, {name: {} for name in NAMES}
        if not self.settles_once:
            _SCOPE["tool changes"] = None
        return self

    def __exit__(self, *exc):
        global _SCOPE
        _SCOPE = self.outer


def memo(name):
    """The dict ``name`` of the current ``remembered``, or None outside one.
    Keys by object (``id``) must hold the object in the value: that keeps
    its id unique while it is remembered."""
    return None if _SCOPE is None else _SCOPE[name]


def per_object(known, value, compute):
    """``compute(value)``, once per object while ``known`` (a dict keyed by
    ``id``) lasts: the value is held beside its result, which keeps its id
    unique."""
    hit = known.get(id(value))
    if hit is None or hit[0] is not value:
        hit = known[id(value)] = (value, compute(value))
    return hit[1]


def has_object(known, value) -> bool:
    """Whether ``per_object`` already holds a result for ``value`` in ``known``."""
    hit = known.get(id(value))
    return hit is not None and hit[0] is value


def per_objects(known, objects, extra, compute):
    """``compute()``, once per tuple of objects and ``extra`` (a value) while
    ``known`` lasts (the objects held, like ``per_object``'s)."""
    key = (*map(id, objects), extra)
    hit = known.get(key)
    if hit is None or any(a is not b for a, b in zip(hit[0], objects)):
        hit = known[key] = (objects, compute())
    return hit[1]


def content_key(value) -> bytes:
    """A key two schemas share only when they are the same JSON text, key
    order and number spelling included (marshal's typed bytes: ``1`` is not
    ``1.0``, nor ``true``): whatever the engine's output can depend on.
    Worked out once per object while ``remembered`` lasts."""
    known = memo("bytes")
    return _typed_bytes(value) if known is None else per_object(known, value, _typed_bytes)


def _typed_bytes(value) -> bytes:
    return marshal.dumps(value, 2)
