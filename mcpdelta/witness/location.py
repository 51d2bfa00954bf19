"""Where a change lives, and the value put there.

A change names a place in the (normalised) tool schema. ``locate`` turns
that schema path into a ``Location``: the instance path (hops) from the
root, the schema that governs the value found there on each side, the
keyword that changed, and the schema paths a rejection must come from to
be credited to the change. ``get`` reads the value at those hops and
``place`` writes one there, building the containers on the way from the
accepting schema.
"""


from mcpdelta.engine.equality import same, shallow

from mcpdelta.witness import instance as inst
from mcpdelta.witness.instance import examples, flatten, fresh_name, governing
from mcpdelta.witness.regexgen import shortest

COMBINATORS = ("allOf", "anyOf", "oneOf")
PROPERTY_RULES = ("property.removed", "property.added", "property.addedRequired",
                  "required.added", "required.removed")


class Location:
    """Where a change lives: instance hops from the root, the accepting and
    rejecting schemas at that instance place (``a_loc`` / ``r_loc``), the
    schema nodes the path names (``a_node`` / ``r_node``, a combinator
    branch may sit between) and the changed keyword path (``tail``)."""

    def __init__(self):
        self.hops = []          # ("key", name) | ("index", i)
        self.a_schemas = []     # accepting schema at each hop's target
        self.a_loc = self.r_loc = self.a_node = self.r_node = None
        self.tail = ()
        self.attribution = ()   # schema path prefix a rejection must come from
        self.attributions = ()  # the prefixes accepted (a property rule names its keyword)
        self.root = None        # the accepting root schema
        self.branched = []      # hops (by index, -1: the root) whose schema is a union's branch


def entry(node, key, default=None):
    """``node[key]`` when ``node`` is a schema object holding it, else ``default``."""
    return node.get(key, default) if isinstance(node, dict) else default


def _branch(node, key, index):
    branches = entry(node, key)
    if isinstance(branches, list) and isinstance(index, int) and 0 <= index < len(branches):
        return branches[index]
    return {}


def _through_branch(loc, holder, part, branch) -> None:
    """The value at this place must match ``branch`` of the ``anyOf`` or
    ``oneOf`` in ``holder``: the accepting side's schema here becomes that
    branch with the holder's other keywords, so containers and elements are
    built from it (``allOf`` needs nothing: every branch holds already)."""
    if part == "allOf" or not isinstance(holder, dict):
        return
    shaped = {"allOf": [{k: v for k, v in holder.items() if k != part}, branch]}
    loc.branched.append(len(loc.a_schemas) - 1)
    if loc.a_schemas:
        loc.a_schemas[-1] = shaped
    else:
        loc.root = shaped


def _spelled(node, part):
    """The keyword ``node`` writes ``part``'s branches under: an ``anyOf``
    read as a ``oneOf`` (or back) is one combinator respelled, the walk's
    path naming the new side's keyword."""
    other = {"anyOf": "oneOf", "oneOf": "anyOf"}.get(part)
    if isinstance(node, dict) and part not in node and other in node:
        return other
    return part


def _partner(holder, key, branch, index, theirs):
    """The branch of ``holder[key]`` (the old side's) that is ``branch`` on
    the new side (whose branches are ``theirs``), as the walk pairs them:
    the same one, else the changed branch the engine's own pairing
    (``meaning.pair_branches``) gives it, else the one at ``index``. The
    two sides' normal forms order their branches each by content, so a
    changed branch's index can differ between them. Branches are taken as
    equivalent only when equal: the walk's equivalence checks are bounded
    per diff, and a union of many branches would cost a walk per pair of
    them here; a respelled branch is still most like its partner."""
    from mcpdelta.engine.meaning import pair_branches

    branches = entry(holder, key)
    if isinstance(branches, list):
        for other in branches:
            if same(other, branch):
                return other
        if isinstance(theirs, list):
            removed = [b for b in branches if not any(same(b, t) for t in theirs)]
            added = [t for t in theirs if not any(same(t, b) for b in branches)]
            for old, new in pair_branches(removed, added, same):
                if new is branch:
                    return old
    return _branch(holder, key, index)


def locate(rel, a_root, r_root, suffix, new_side="r") -> Location:
    """Where the change at ``rel`` lives; ``new_side``: which of the two
    (accepting ``a``, rejecting ``r``) is the new schema, whose branch order
    the path's combinator indices follow."""
    loc = Location()
    loc.root = a_root
    a_loc, r_loc, a_node, r_node = a_root, r_root, a_root, r_root
    attribution = []
    full = []  # the whole path in the rejecting side's schema, branches included
    frozen = False
    i = 0
    parts = list(rel)
    while i < len(parts):
        part = parts[i]
        last_pair = i + 2 == len(parts)
        if part == "properties" and i + 1 < len(parts):
            name = str(parts[i + 1])
            if last_pair and suffix in PROPERTY_RULES:
                break
            hop = ("key", name)
            a_loc = a_node = governing(flatten(a_node), name)
            r_loc = r_node = governing(flatten(r_node), name)
            step = 2
        elif part == "patternProperties" and i + 1 < len(parts) and not last_pair:
            pattern = str(parts[i + 1])
            key = shortest(pattern) or "a"
            hop = ("key", key)
            a_loc = a_node = governing(flatten(a_node), key)
            r_loc = r_node = governing(flatten(r_node), key)
            step = 2
        elif part == "additionalProperties" and i + 1 < len(parts):
            key = fresh_name(flatten(a_node)) or "extra"
            hop = ("key", key)
            a_loc = a_node = entry(a_node, "additionalProperties", {})
            r_loc = r_node = governing(flatten(r_node), key)
            step = 1
        elif part == "items" and i + 1 < len(parts):
            prefix = entry(a_node, "prefixItems", [])
            index = len(prefix) if isinstance(prefix, list) else 0
            hop = ("index", index)
            a_loc = a_node = entry(a_node, "items", {})
            r_pre = entry(r_node, "prefixItems", [])
            r_loc = r_node = (r_pre[index] if isinstance(r_pre, list) and index < len(r_pre)
                              else entry(r_node, "items", {}))
            step = 1
        elif part == "prefixItems" and i + 1 < len(parts) and not last_pair:
            index = int(parts[i + 1])
            hop = ("index", index)
            a_loc = a_node = _branch(a_node, "prefixItems", index) or entry(a_node, "items", {})
            r_loc = r_node = _branch(r_node, "prefixItems", index) or entry(r_node, "items", {})
            step = 2
        elif part in COMBINATORS and i + 1 < len(parts) and isinstance(parts[i + 1], int) \
                and not (isinstance(r_node, dict) and _spelled(r_node, part) in r_node) \
                and isinstance(a_node, dict) and _spelled(a_node, part) in a_node:
            # the rejecting side is that branch written plain (the walk read
            # it as a combinator of one): its errors name no combinator here
            holder, a_part = a_node, _spelled(a_node, part)
            a_node = _branch(a_node, a_part, parts[i + 1])
            _through_branch(loc, holder, a_part, a_node)
            i += 2
            continue
        elif part in COMBINATORS and i + 1 < len(parts) and isinstance(parts[i + 1], int):
            # same instance place, one branch deeper in the schema (its
            # errors come nested under the combinator's, at this branch)
            a_part, r_part = _spelled(a_node, part), _spelled(r_node, part)
            if not frozen:
                attribution += [r_part, str(parts[i + 1])]
            frozen = True
            full += [r_part, str(parts[i + 1])]
            holder = a_node
            # the index is the new side's; the old side's branch is its partner
            a_branches, r_branches = entry(a_node, a_part), entry(r_node, r_part)
            if new_side == "r":
                r_node = _branch(r_node, r_part, parts[i + 1])
                a_node = _partner(a_node, a_part, r_node, parts[i + 1], r_branches)
            else:
                a_node = _branch(a_node, a_part, parts[i + 1])
                r_node = _partner(r_node, r_part, a_node, parts[i + 1], a_branches)
            _through_branch(loc, holder, a_part, a_node)
            i += 2
            continue
        else:
            break
        loc.hops.append(hop)
        loc.a_schemas.append(a_loc)
        if not frozen:
            attribution += [str(p) for p in parts[i:i + step]]
        full += [str(p) for p in parts[i:i + step]]
        i += step
    loc.tail = tuple(parts[i:])
    loc.a_loc, loc.r_loc, loc.a_node, loc.r_node = a_loc, r_loc, a_node, r_node
    loc.attribution = tuple(attribution)
    loc.attributions = (loc.attribution,)
    # A property rule is attributed to the keyword that enforces it on the
    # holder, not to the holder as a whole: a call rejected for a different
    # required property proves nothing about a removed one.
    if of_property(loc, suffix) and frozen:
        pass  # inside a combinator branch: the place alone is checked
    elif of_property(loc, suffix):
        name = str(loc.tail[1])
        if suffix == "property.removed":
            loc.attributions = tuple(loc.attribution + k for k in (
                ("additionalProperties",), ("unevaluatedProperties",), ("propertyNames",),
                ("properties", name)))
        elif suffix == "property.addedRequired":
            loc.attributions = (loc.attribution + ("required",),)
    # Any other change is attributed to its own keyword: a value the new
    # schema rejects for its new minimum proves nothing about its narrowed
    # type. (Inside a combinator branch the place alone is checked.)
    elif loc.tail and loc.tail[0] in COMBINATORS and len(loc.tail) == 1 and not (
            isinstance(r_node, dict) and loc.tail[0] in r_node):
        pass  # one side is a single branch written plain: any error at the place shows it
    elif loc.tail and not frozen and isinstance(loc.tail[0], str) and loc.tail[0] in KEYWORDS:
        loc.attributions = tuple(loc.attribution + (k,) for k in KEYWORDS[loc.tail[0]])
    elif len(loc.tail) == 1 and isinstance(loc.tail[0], str) and loc.tail[0] in KEYWORDS:
        # inside a combinator's branch: the error nested at this very keyword
        # of this branch (a value rejected for the branch's other bound shows
        # that bound's change, not this one)
        loc.attributions = tuple(tuple(full) + (k,) for k in KEYWORDS[loc.tail[0]])
    return loc


# Keyword -> the keywords whose errors can show its change (a bound that
# moved between its inclusive and exclusive forms, an enum written as const).
_FAMILIES = (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum"), ("enum", "const"),
             ("items", "prefixItems", "additionalItems", "unevaluatedItems"),
             ("additionalProperties", "unevaluatedProperties"),
             ("if", "then", "else"), ("dependentRequired", "dependencies", "dependentSchemas"))
KEYWORDS = {k: (k,) for k in (
    "type", "minLength", "maxLength", "pattern", "format", "multipleOf", "minItems", "maxItems",
    "uniqueItems", "contains", "minContains", "maxContains", "minProperties", "maxProperties",
    "required", "propertyNames", "patternProperties", "not", "anyOf", "oneOf", "allOf",
    "contentMediaType", "contentEncoding")}
for _family in _FAMILIES:
    for _k in _family:
        KEYWORDS[_k] = _family
# an allOf branch's declarations are annotations its holder's unevaluated*
# keywords read: a branch removed shows where they refuse what it declared
KEYWORDS["allOf"] = ("allOf", "unevaluatedProperties", "unevaluatedItems")


# --- instance surgery -------------------------------------------------------

def get(value, hops):
    for kind, key in hops:
        if kind == "key" and isinstance(value, dict) and key in value:
            value = value[key]
        elif kind == "index" and isinstance(value, list) and key < len(value):
            value = value[key]
        else:
            return None
    return value


def place(base, loc, new_value):
    """``base`` with the value at ``loc`` replaced (containers created from
    the accepting schema as needed); None if the path cannot be built."""
    if not loc.hops:
        return new_value
    # copy only the containers on the path: the rest is shared, never mutated
    root = shallow(base)
    container = root
    holder, holder_key = None, None
    for depth, (kind, key) in enumerate(loc.hops):
        want = dict if kind == "key" else list
        if not isinstance(container, want):
            schema = loc.a_schemas[depth - 1] if depth else loc.root
            made = _container(schema, want)
            if made is None:
                return None
            if holder is None:
                root = container = made
            else:
                holder[holder_key] = container = made
        last = depth == len(loc.hops) - 1
        if kind == "key":
            if last:
                container[key] = new_value
                return root
            if key not in container:
                found = examples(loc.a_schemas[depth], 1, 1)
                container[key] = found[0] if found else {}
        else:
            item_schema = loc.a_schemas[depth]
            array = flatten(loc.a_schemas[depth - 1] if depth else loc.root)
            array = array if isinstance(array, dict) else {}
            prefix = array.get("prefixItems")
            prefix = prefix if isinstance(prefix, list) else []
            while len(container) <= key:
                # earlier elements follow their own prefixItems schema
                index = len(container)
                schema = item_schema if index == key else (
                    prefix[index] if index < len(prefix) else array.get("items", {}))
                found = examples(schema, 1, 1)
                if not found:
                    return None
                container.append(found[0])
            if last:
                container[key] = new_value
                return root
        holder, holder_key = container, key
        child = container[key]
        if isinstance(child, (dict, list)):
            child = container[key] = shallow(child)
        container = child
    return root


def _container(schema, want):
    node = flatten(schema) if isinstance(schema, dict) else {}
    if not isinstance(node, dict):
        return None
    if want is dict:
        made = inst.objects(node, 1)
        return made[0] if made else {}
    made = inst.arrays(node, 1)
    return made[0] if made else []


def of_property(loc, suffix) -> bool:
    """Whether the change is a property rule's, at a property its holder names."""
    return suffix in PROPERTY_RULES and len(loc.tail) >= 2 and loc.tail[0] == "properties"
