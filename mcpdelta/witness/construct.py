"""Constructive witnesses: one builder per rule family.

``location.locate`` finds where a change lives. ``candidates`` then takes a
small base instance (``bases`` / ``quick_bases``: valid under both schemas
where one exists, so a rejection can only come from the change) and
rewrites the value at that place with the family's typical witnesses:

- enum: the removed (input) / added (output) values;
- type: a value of each type the rejecting side lacks;
- bounds: strings, numbers, arrays, objects just beyond the rejecting
  side's bound (and at the accepting side's extreme);
- pattern / format / multipleOf / const: short values the accepting side
  allows, probed against the other;
- additionalProperties / patternProperties / items / prefixItems: an extra
  key or element;
- required / property rules: the object without the property, or with the
  property holding a value only the accepting side allows;
- combinators and unmodelled keywords: examples of every branch.

Every candidate is a guess; the caller keeps only those the independent
validator confirms.
"""

from mcpdelta.witness import instance as inst
from mcpdelta.witness.instance import (POOL, TYPE_ORDER, canonical, dedupe, examples, flatten,
                                       fresh_name, governing, is_number, near, of_type,
                                       string_of_length)
from mcpdelta.witness.location import COMBINATORS, Location, entry, get, of_property, place
from mcpdelta.witness.regexgen import shortest
from mcpdelta.witness.validate import missing, quick

ANY_VALUES = [v for t in TYPE_ORDER for v in POOL[t]]
MAX_VALUES = 400  # values tried at one place per base: a 20,000-value enum is not tried whole
MAX_ENUM = 16     # removed / added enum members proposed


# --- value families -----------------------------------------------------------

def _bounds_of(node, keys):
    node = flatten(node)
    if not isinstance(node, dict):
        return []
    return [node[k] for k in keys if is_number(node.get(k))]


def _numbers_near(*nodes):
    out = []
    for node in nodes:
        for bound in _bounds_of(node, ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")):
            out += near(bound)
    return out


def _lengths_near(keys, *nodes):
    lengths = set()
    for node in nodes:
        for bound in _bounds_of(node, keys):
            lengths.update({int(bound) - 1, int(bound), int(bound) + 1})
    return sorted(n for n in lengths if n >= 0)


def _refused_names(a_flat, r_node):
    """Property names for a ``propertyNames`` change: names around the
    lengths either side's ``propertyNames`` bounds (the empty name among
    them), where the rejecting side's refuses one the other takes."""
    mine = entry(a_flat, "propertyNames", {})
    theirs = entry(flatten(r_node) if isinstance(r_node, dict) else {}, "propertyNames", {})
    mine, theirs = (n if isinstance(n, dict) else {} for n in (mine, theirs))
    out = []
    for n in sorted(set(_lengths_near(("minLength", "maxLength"), mine, theirs) + [0, 1])):
        for fill in ("a", "0", "-"):
            text = string_of_length(flatten(mine), n, fill)
            if text is not None:
                out.append(text)
    return dedupe(out + inst.strings(flatten(mine)))


def _multiples(a_node, r_node):
    out = [1, 0.5, 2, 3]
    for node in (a_node, r_node):
        step = _bounds_of(node, ("multipleOf",))
        if step:
            out += [step[0] * k for k in (1, 2, 3, 0.5)]
    return [inst.tidy_number(v) for v in out]


def _between_steps(a_node, r_node):
    """Numbers half a step past a multiple (1.25 for ``multipleOf: 0.5``):
    an odd multiple of half the step is a multiple of every step that
    divides the half step and of none it does not, so a step made coarser
    rejects it where the old one (or none) took it."""
    out = []
    for node in (a_node, r_node):
        for step in _bounds_of(node, ("multipleOf",))[:1]:
            out += [step * k for k in (2.5, 1.5, 4.5)]
    return [inst.tidy_number(v) for v in out]


def _typed(a_node, kind):
    node = flatten(a_node)
    node = dict(node) if isinstance(node, dict) else {}
    node["type"] = kind
    return of_type(node, kind) + POOL[kind]


def hinted(loc, hints):
    """Values at the change's place built from what the change itself names:
    the old and new keyword values (an ``if`` const, a ``not`` enum, ...) set
    on every property the changed subtree mentions."""
    from mcpdelta.witness.search import constants

    pool, names = [], []
    for hint in hints:
        found, mentioned = constants(hint)
        pool += found
        names += mentioned
        if not isinstance(hint, (dict, list)) and hint is not None:
            pool.append(hint)
    tail = list(loc.tail)
    names += [str(tail[i + 1]) for i in range(len(tail) - 1) if tail[i] == "properties"]
    return dedupe(pool), sorted(set(names))


def values(loc, current, suffix, depth=0, hints=()):
    """Candidate values for the place ``loc`` names (before filtering)."""
    a_loc, a_node, r_node = loc.a_loc, loc.a_node, loc.r_node
    a_flat = flatten(a_node) if isinstance(a_node, dict) else {}
    a_flat = a_flat if isinstance(a_flat, dict) else {}
    key = loc.tail[0] if loc.tail else None
    out = []
    if of_property(loc, suffix):
        name = str(loc.tail[1])
        obj = dict(current) if isinstance(current, dict) else {}
        without = {k: v for k, v in obj.items() if k != name}
        out.append(without)
        for v in examples(governing(a_flat, name), depth + 1) + ANY_VALUES:
            out.append({**without, name: v})
        return out
    if key == "type":
        # a value of each type the old side takes, first within the new
        # side's other bounds (so the type alone rejects it: 1.5, not 0.5,
        # when the new integer must be positive)
        r_flat = flatten(r_node) if isinstance(r_node, dict) else {}
        for kind in inst.types_of(a_node):
            if isinstance(r_flat, dict):
                out += of_type({**r_flat, "type": kind}, kind)
            out += _typed(a_node, kind)
    elif key in ("enum", "const"):
        r_vals = entry(r_node, "enum", []) if key == "enum" else [entry(r_node, "const")]
        r_keys = {canonical(v) for v in r_vals if True} if isinstance(r_vals, list) else set()
        a_vals = entry(a_node, "enum") if key == "enum" else [entry(a_node, "const")]
        if isinstance(a_vals, list) and key in (a_node or {}):
            out += [v for v in a_vals if canonical(v) not in r_keys][:MAX_ENUM]
        out += examples(a_loc, depth + 1)
        for kind in inst.types_of(a_node):
            out += _typed(a_node, kind)
    elif key in ("minLength", "maxLength", "pattern", "format"):
        if key == "pattern":
            # a string the accepting side's pattern matches and the other's does not
            from mcpdelta.engine.regex import lost

            mine, theirs = entry(a_flat, "pattern"), entry(flatten(r_node) if isinstance(r_node, dict)
                                                        else {}, "pattern")
            if isinstance(mine, str):
                found = lost(mine, theirs) if isinstance(theirs, str) else None
                if found is not None:
                    out.append(found)
        lengths = _lengths_near(("minLength", "maxLength"), a_node, r_node) + [0, 1]
        for n in lengths:
            for fill in ("a", "0", "-"):
                text = string_of_length(a_flat, n, fill)
                if text is not None:
                    out.append(text)
        out += inst.strings(a_flat) + ["!", "~", "a b", "aa", "A0", "0a", "_", "a@b"]
    elif key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"):
        out += _numbers_near(r_node, a_node) + _multiples(a_node, r_node) + [0, 1, -1, 0.5] \
            + _between_steps(a_node, r_node)
    elif key in ("minItems", "maxItems", "minContains", "maxContains", "uniqueItems", "items",
                 "prefixItems", "contains"):
        base = list(current) if isinstance(current, list) else []
        lengths = _lengths_near(("minItems", "maxItems", "minContains", "maxContains"),
                                a_node, r_node)
        prefix = entry(a_flat, "prefixItems", [])
        lengths += [len(base) + 1, (len(prefix) if isinstance(prefix, list) else 0) + 1, 1, 2]
        for n in sorted(set(lengths)):
            if 0 <= n <= inst.MAX_COUNT:
                made = inst.arrays(a_flat, depth + 1, length=n)
                out += made
        items = examples(entry(a_flat, "items", {}), depth + 1, 3) + ANY_VALUES
        for v in items:
            out.append(base + [v])
            out.append([v, v])
        if base:  # an array of fixed length (minItems = maxItems) takes no item more
            out += [base[:-1] + [v] for v in items]
        if key == "uniqueItems" and base:
            out.append(base + [base[0]])
        if key == "prefixItems" and len(loc.tail) > 1:
            index = int(loc.tail[1])
            for v in items:
                arr = list(base)
                while len(arr) <= index:
                    arr.append(v)
                arr[index] = v
                out.append(arr)
    elif key in ("minProperties", "maxProperties", "additionalProperties", "patternProperties",
                 "propertyNames", "required", "dependentRequired", "properties"):
        obj = dict(current) if isinstance(current, dict) else {}
        extra_values = examples(entry(a_flat, "additionalProperties", {}), depth + 1, 3) + ANY_VALUES
        names = _refused_names(a_flat, r_node) if key == "propertyNames" else []
        if key == "patternProperties" and len(loc.tail) > 1:
            for alt in (0, 1):
                name = shortest(str(loc.tail[1]), alt)
                if name is not None:
                    names.append(name)
        names.append(fresh_name(a_flat, obj) or "extra")
        for name in names:
            for v in examples(governing(a_flat, name), depth + 1, 3) + extra_values:
                out.append({**obj, name: v})
        for n in _lengths_near(("minProperties", "maxProperties"), a_node, r_node):
            if n > inst.MAX_COUNT:
                continue
            built = dict(obj)
            for name in sorted(entry(a_flat, "properties", {}) or {}):
                if len(built) >= n:
                    break
                if name not in built:
                    found = examples(governing(a_flat, name), depth + 1, 1)
                    if found:
                        built[name] = found[0]
            fresh = inst.fresh_names(a_flat, built)
            while len(built) < n:
                name = next(fresh, None)
                if name is None:
                    break
                built[name] = (examples(governing(a_flat, name), depth + 1, 1) or [None])[0]
            if len(built) > n and n >= 0:
                built = dict(sorted(built.items())[:n])
            out.append(built)
        out += inst.objects(a_flat, depth + 1)
    elif key in COMBINATORS:
        rest = {k: v for k, v in a_flat.items() if k not in COMBINATORS}
        for branch in entry(a_node, key, []) or []:
            if isinstance(branch, dict):
                out += examples(inst.merge(rest, branch), depth + 1)
    if hints:
        pool, names = hinted(loc, hints)
        obj = dict(current) if isinstance(current, dict) else {}
        required = entry(a_flat, "required", [])
        required = set(required) if isinstance(required, list) else set()
        bare = {k: v for k, v in obj.items() if k in required}
        for name in names[:20]:
            for v in dedupe(pool + ANY_VALUES)[:60]:
                out.append({**obj, name: v})
                out.append({**bare, name: v})
        out += pool
    out += examples(a_loc, depth + 1)
    if isinstance(a_flat, dict):
        out += inst.objects(a_flat, depth + 1) if "object" in inst.types_of(a_flat)[:1] else []
    out += ANY_VALUES
    return out


def bases(a_root, r_root, a_judge, r_judge, a_errors=None):
    """Base instances: valid under both schemas first (so only the change
    can cause a rejection), then minimal and fuller instances of the
    accepting schema (``a_errors``: the accepting side's errors for a value,
    to complete an example none of whose kind passes)."""
    out = []
    if "object" in inst.types_of(a_root)[:1] or a_root in (None, {}, True):
        out.append({})  # MCP arguments and structured results are objects
    both = {"allOf": [a_root if a_root is not None else {}, r_root if r_root is not None else {}]}
    for value in examples(both, 0, 3):
        if a_judge(value) and r_judge(value):
            out.append(value)
    out = [v for v in out if a_judge(v)]
    out += [v for v in examples(a_root, 0, 4) if a_judge(v)]
    if not out and a_errors is not None and isinstance(a_root, dict):
        # no example passes: fill in what the accepting side says is missing
        # (a property an if/then or dependentRequired requires, which the
        # examples, built from properties and required, know nothing of)
        for value in dedupe([{}] + examples(a_root, 0, 2)):
            for start in [value] + _with_branch_required(value, a_root):
                fixed = _completed(start, a_root, a_errors)
                if fixed is not None and a_judge(fixed):
                    out.append(fixed)
                    break
    return dedupe(out)[:4] or [None]


MAX_FILLS = 4  # rounds of missing properties filled into one example


def _with_branch_required(value, root):
    """``value`` with the properties one branch of the root's ``oneOf`` /
    ``anyOf`` requires, one variant per branch (``oneOf [{required: [a]},
    {required: [b]}]``: a call names one of them)."""
    if not isinstance(value, dict):
        return []
    flat = flatten(root)
    out = []
    for key in ("oneOf", "anyOf"):
        for branch in root.get(key, []) if isinstance(root.get(key), list) else []:
            names = branch.get("required") if isinstance(branch, dict) else None
            if isinstance(names, list) and names and all(isinstance(n, str) for n in names):
                out.append({**{n: _example_of(flat, n) for n in names}, **value})
    return out[:8]


def _example_of(flat, name):
    """A value for property ``name`` of a flattened object schema."""
    found = examples(governing(flat, name), 1, 1) if isinstance(flat, dict) else []
    return found[0] if found else ""


def _completed(value, root, errors_of, loc=None):
    """``value`` with each property the validator calls missing in the
    object at ``loc.hops`` (the root without ``loc``) set to an example of
    ``root``, that object's schema, a few rounds; None when other errors
    remain or nothing could be filled."""
    hops = loc.hops if loc is not None else []
    at = [key for _, key in hops]
    flat = flatten(root)
    for _ in range(MAX_FILLS):
        try:
            errors = errors_of(value)
        except Exception:
            return None
        if not errors:
            return value
        holder = get(value, hops)
        names = [missing(e) for e in errors if list(e.instance_path) == at]
        if not isinstance(holder, dict) or len(names) != len(errors) or not all(
                isinstance(n, str) and n not in holder for n in names):
            return None  # another error than a property missing there: not this one's to mend
        holder = {**holder, **{n: _example_of(flat, n) for n in names}}
        value = place(value, loc, holder) if hops else holder
    return None


def filled_at(value, loc, errors_of):
    """``value`` with each property the rejecting side calls missing in the
    change's holder (``loc.hops``) filled from that side's schema there,
    every other error left standing; None when nothing was missing. A loose
    witness, refused also for an old required property it lacks, is so made
    to show its own change alone."""
    at = [key for _, key in loc.hops]
    flat = flatten(loc.r_loc)
    filled = None
    for _ in range(MAX_FILLS):
        try:
            errors = errors_of(value)
        except Exception:
            break
        holder = get(value, loc.hops) if loc.hops else value
        if not isinstance(holder, dict):
            break
        names = {missing(e) for e in errors if list(e.instance_path) == at} - set(holder) - {None}
        if not names:
            break
        holder = {**holder, **{n: _example_of(flat, n) for n in sorted(names)}}
        value = filled = place(value, loc, holder) if loc.hops else holder
    return filled


def completed_at(value, loc, errors_of):
    """``value`` with what the rejecting side calls missing where the change
    lives filled in from that side's schema there (``loc.r_loc``): a value
    carrying an old property beside the new required ones."""
    return _completed(value, loc.r_loc, errors_of, loc)


def branch_bases(loc, starts, a_judge):
    """Bases whose value, where the change's path enters a union's branch,
    is an instance of that branch. A base built for the whole schema takes
    whichever branch its examples come from (a tagged union's first tag),
    and then every candidate lands in a branch the change is not in."""
    out = []
    for depth in reversed(loc.branched):
        schema = loc.root if depth < 0 else loc.a_schemas[depth]
        upto = Location()
        upto.hops, upto.a_schemas, upto.root = loc.hops[:depth + 1], loc.a_schemas[:depth + 1], loc.root
        for example in examples(schema, 0, 3):
            for base in starts or [None]:
                value = example if depth < 0 else place(base, upto, example)
                if value is not None and a_judge(value):
                    out.append(value)
    return dedupe(out)[:4]


def quick_bases(a_root, r_root, a_judge, r_judge):
    """The cheapest bases: the smallest object both schemas accept (required
    properties only), else the accepting side's. Most changes are witnessed
    from these; ``bases`` (fuller instances) is the fallback."""
    out = []
    if "object" in inst.types_of(a_root)[:1] or a_root in (None, {}, True):
        out.append({})
    both = flatten({"allOf": [a_root if a_root is not None else {}, r_root if r_root is not None else {}]})
    for node in (both, flatten(a_root)):
        if isinstance(node, dict) and "object" in inst.types_of(node)[:1]:
            out += [v for v in inst.objects(node, 0, fuller=False) if a_judge(v)]
    out = dedupe([v for v in out if a_judge(v)])
    # valid under both first: only the change can then reject the candidate
    return ([v for v in out if r_judge(v)] + [v for v in out if not r_judge(v)])[:2]


# the kind of value a keyword constrains
_HOLDS = {**{k: dict for k in ("properties", "required", "additionalProperties", "patternProperties",
                               "minProperties", "maxProperties", "propertyNames",
                               "dependentRequired")},
          **{k: list for k in ("items", "prefixItems", "minItems", "maxItems", "uniqueItems",
                               "contains", "minContains", "maxContains")}}


def candidates(loc, suffix, base, limit, hints=(), seen=None, dead=(), probe=None):
    """Whole-instance candidates built on ``base``, as (group, candidate), in
    a stable order, at most ``limit``, none twice (``seen``: the canonical
    texts already given, shared by the caller across bases).

    Candidates of one group differ from one another only under
    ``varied_path``. When the base has nothing at the place (an empty
    array, an optional object left out), a whole valid value of the old
    holder is tried there first, so the old side accepts the rest of it:
    for a property rule its candidates (group 1) hold that value's other
    properties and the base's own (group 0) hold none. A group the caller
    puts in ``dead`` (a set it keeps) yields nothing more, and once every
    group is dead the candidates end. ``probe``: ``(value,)``, a value at
    the place the engine found in one side's set and not the other's, tried
    first."""
    seen = set() if seen is None else seen
    count = 0
    current = get(base, loc.hops) if loc.hops else base
    proposals = [(0, v) for v in values(loc, current, suffix, hints=hints)]
    if probe is not None and not of_property(loc, suffix):
        proposals.insert(0, (0, probe[0]))
    if current is None and loc.hops:
        # of the kind the changed keyword acts on (an Optional's object, not its null)
        full = examples(loc.a_loc, 1)
        kind = _HOLDS.get(loc.tail[0]) if loc.tail else None
        full = [v for v in full if kind is None or isinstance(v, kind)][:1] or full[:1]
        if full:
            group = 1 if of_property(loc, suffix) else 0
            proposals = [(group, v) for v in values(loc, full[0], suffix, hints=hints)] + proposals
    groups = {group for group, _ in proposals}
    for group, value in _ranked(loc, proposals):
        if group in dead:
            if groups.issubset(dead):
                return
            continue
        if count >= limit:
            return
        whole = place(base, loc, value)
        key = canonical(whole)
        if key in seen:
            continue
        seen.add(key)
        yield group, whole
        count += 1



def varied_path(loc, suffix):
    """The instance path under which the candidates built on one base
    differ from one another: everything else in them is the base's. Each
    rewrites the value at the place; a property rule's place is the holder,
    of which only the one property changes (see ``values``)."""
    path = tuple(key for _, key in loc.hops)
    return path + (str(loc.tail[1]),) if of_property(loc, suffix) else path


def _ranked(loc, proposals):
    """Of (group, value) proposals, the first ``MAX_VALUES`` distinct values,
    those the old side may take and the new side may refuse first, in their
    order (then objects first when a whole schema appeared or went away:
    MCP arguments and structured results are objects). The same order as
    sorting them all by (rank, not an object), worked out lazily: the caller
    mostly stops at the first, so the rest are never checked."""
    whole_root = not loc.hops and not loc.tail
    later = ([], [], [])  # (0, not an object), (1, an object), (1, not an object)
    for item in inst.unique(proposals, MAX_VALUES, value_of=lambda item: item[1]):
        value = item[1]
        a_ok = quick(loc.a_loc, value) if loc.a_loc is not None else True
        r_ok = quick(loc.r_loc, value) if loc.r_loc is not None else True
        rank = 0 if (a_ok is not False and r_ok is not True) else 1
        other = whole_root and not isinstance(value, dict)
        if rank == 0 and not other:
            yield item
        else:
            later[2 * rank - 1 + other if rank else 0].append(item)
    for kept in later:
        yield from kept
