"""One side with one change taken back: does a witness show *this* change?

A witness proves a change only if the change is needed to reject it (the
rejecting side accepts it once that change alone is taken back) or enough
(the accepting side rejects it once that change alone is made): the place
the change names set as the other side has it, everything else as it was.
A value rejected for another reason only (a property newly required in a
closed object, beside an optional one removed) shows that other change, not
this one. ``undone(x, y, ...)`` is ``x`` with the place set as in ``y``.

Undone on the normalised schemas, at the change's place: a property's
schema and its ``required`` membership for a property rule, the
membership alone for ``required.*``, the whole holding schema for a change
the engine decided by value sets (it carries a ``probe``), the keyword
otherwise. A place the path cannot reach plainly on both sides (inside a
combinator's branches, whose pairing is the walk's, or past a marker) gives
None: the witness's attribution to the place's keyword stands alone there.
"""


from mcpdelta.engine.equality import clone, shallow
from mcpdelta.engine.meaning import names_of
from mcpdelta.witness.location import PROPERTY_RULES

COMBINATORS = ("allOf", "anyOf", "oneOf")
_GONE = object()


def undone(rejecting, accepting, rel, suffix, by_values, branch=False):
    """``rejecting`` (a normalised schema) with the change at ``rel`` set to
    what ``accepting`` has there; None where that cannot be said (``branch``:
    the change is one branch of the combinator at ``rel``, which the
    normaliser may have folded away on one side)."""
    if not rel or any(part in COMBINATORS for part in rel[:-1]) or not isinstance(rejecting, dict):
        return None
    if rel[-1] in COMBINATORS and branch:
        return None  # (a combinator appearing or going whole is a place like any other)
    parts = list(rel)
    if suffix in PROPERTY_RULES:
        if len(parts) < 2 or parts[-2] != "properties":
            return None
        name, holder = parts[-1], parts[:-2]
        r_holder, a_holder = _at(rejecting, holder), _at(accepting, holder)
        if not isinstance(r_holder, dict) or not isinstance(a_holder, dict):
            return None
        out, target = _thawed(rejecting, holder)
        if not suffix.startswith("required."):
            _set(target, "properties", name, _member(a_holder, "properties", name))
        required = [n for n in target.get("required", []) if n != name] \
            if isinstance(target.get("required", []), list) else None
        if required is None:
            return None
        if name in names_of(a_holder.get("required")):
            required.append(name)
        if required:
            target["required"] = required
        else:
            target.pop("required", None)
        return out
    place = parts[:-1] if by_values else parts
    if not place:
        return clone(accepting) if isinstance(accepting, dict) else None
    r_parent, a_parent = _at(rejecting, place[:-1]), _at(accepting, place[:-1])
    if not isinstance(r_parent, dict) or not isinstance(a_parent, dict):
        return None
    out, parent = _thawed(rejecting, place[:-1])
    value = a_parent.get(place[-1], _GONE)
    if value is _GONE:
        parent.pop(place[-1], None)
    else:
        parent[place[-1]] = value
    return out


def _thawed(root, parts):
    """(a copy of ``root``, its node at ``parts``) where only the containers
    on the way are copied: the rest is shared with ``root``, which is only
    ever read (a schema is never changed in place)."""
    out = node = shallow(root)
    for part in parts:
        child = shallow(node[part])
        node[part] = child
        node = child
    return out, node


def _at(node, parts):
    for part in parts:
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
        else:
            return None
    return node


def _member(holder, key, name):
    found = holder.get(key)
    return found.get(name, _GONE) if isinstance(found, dict) else _GONE


def _set(target, key, name, value):
    members = target.get(key)
    if value is _GONE:
        if isinstance(members, dict):
            target[key] = {k: v for k, v in members.items() if k != name}
        return
    members = target[key] = dict(members) if isinstance(members, dict) else {}
    members[name] = value
