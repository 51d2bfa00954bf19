"""The completeness net: a deliberately dumb second differ.

It compares two JSON trees node by node and lists every place they differ,
knowing nothing about JSON Schema. The engine reports each difference the
structured walk did not explain as ``*.schema.changed`` (BREAKING), so a
keyword nobody modelled is reported the day it appears. It shares no code
with the walk beyond JSON itself: loading, and JSON equality.
"""

from mcpdelta.engine.equality import same

MISSING = object()


def differences(old, new, parts=()):
    """Yield (path parts, old value, new value) for each differing place.

    Objects are compared key by key, lists of equal length position by
    position; a list whose length changed is one difference. ``MISSING``
    stands for an absent key."""
    if same(old, new):
        return
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(old.keys() | new.keys()):
            yield from differences(old.get(key, MISSING), new.get(key, MISSING), parts + (key,))
    elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for index, (a, b) in enumerate(zip(old, new)):
            yield from differences(a, b, parts + (index,))
    else:
        yield parts, old, new
