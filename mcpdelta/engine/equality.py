"""JSON equality: the one comparison every part of the engine uses.

JSON says an object's key order is notation, ``1`` and ``1.0`` are one
number, and ``true`` is not ``1``. Python's ``==`` gets the first two right
and the last wrong; marshal's typed bytes get the last right and the first
two wrong. So ``==`` decides first (C speed; most pairs differ in both
senses or in neither), marshal then confirms containers (C speed, a bool is
typed there; version 2 writes no back-references), and only when the two
disagree (another key order, ``1`` against ``1.0``, ``true`` against ``1``)
does an exact typed walk have the last word.
"""

import json
import marshal


def same(a, b) -> bool:
    """Are two parsed JSON values the same JSON value?"""
    if a is b:
        return True
    if a != b:
        return False
    kind = type(a)
    if kind is dict or kind is list:
        return marshal.dumps(a, 2) == marshal.dumps(b, 2) or _typed(a, b)
    return (kind is bool) == (type(b) is bool)


def _typed(a, b) -> bool:
    """Exact JSON equality, walked in Python: the slow path's last word."""
    kind = type(a)
    if kind is bool or type(b) is bool:
        return a is b
    if kind is dict:
        return (type(b) is dict and a.keys() == b.keys()
                and all(_typed(value, b[key]) for key, value in a.items()))
    if kind is list:
        return type(b) is list and len(a) == len(b) and all(map(_typed, a, b))
    return a == b


# A stable text form, for sorting and as a key. One encoder, built once:
# json.dumps with options builds a new one on every call.
canonical = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode


def json_key(value) -> str:
    """A text form JSON-equal values share (canonical, every integral float
    written as the integer it equals), for set membership."""
    return canonical(_integral(value))


def _integral(value):
    kind = type(value)
    if kind is float and value.is_integer():
        return int(value)
    # strings, the most common values, without a call each
    if kind is dict:
        return {k: v if type(v) is str else _integral(v) for k, v in value.items()}
    if kind is list:
        return [v if type(v) is str else _integral(v) for v in value]
    return value


# Copies of parsed JSON values (plain dicts, lists and scalars, no cycles):
# copy.deepcopy's memo and dispatch are not needed, nor is importing copy
# (and weakref with it) on the diff path.
def clone(value):
    """A deep copy of a parsed JSON value."""
    if isinstance(value, dict):
        return {k: clone(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clone(v) for v in value]
    return value


def shallow(value):
    """A copy of a container's top level (the items shared); any other value as it is."""
    return value.copy() if isinstance(value, (dict, list)) else value
