"""The fallback: a bounded, seeded search, and the shrinker.

Where no construction applies (an unmodelled keyword, a ``oneOf`` swap, a
pattern the generator cannot read), candidates are mutations of small valid
instances of the accepting schema, drawing on a pool of constants taken
from both schemas (enum and const values, values beside every bound,
strings of the lengths the bounds name, pattern samples). The random
source is seeded from the change and the two schemas, so the same inputs
give the same witness in any process; the candidate budget bounds time.
"""


from mcpdelta.engine.equality import clone, shallow
from mcpdelta.witness import instance as inst
from mcpdelta.witness.instance import POOL, TYPE_ORDER, canonical, dedupe, is_number, near, size
from mcpdelta.witness.regexgen import shortest

MAX_POOL_STRING = 1000


def seed_for(*parts) -> int:
    from mcpdelta.sha256 import sha256  # here: only a change construction could not witness pays for it

    digest = sha256("\x00".join(canonical(p) for p in parts).encode("utf-8")).hexdigest()
    return int(digest[:16], 16)


def constants(schema, out=None, names=None, depth=0):
    """Values and property names a schema mentions (sorted walk)."""
    out = [] if out is None else out
    names = [] if names is None else names
    if depth > 12:
        return out, names
    if isinstance(schema, list):
        for item in schema:
            constants(item, out, names, depth + 1)
        return out, names
    if not isinstance(schema, dict):
        return out, names
    for key in sorted(schema):
        value = schema[key]
        if key == "enum" and isinstance(value, list):
            out += value
        elif key in ("const", "default"):
            out.append(value)
        elif key == "examples" and isinstance(value, list):
            out += value[:5]
        elif key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"):
            out += near(value)
        elif key in ("minLength", "maxLength") and is_number(value):
            for n in (int(value) - 1, int(value), int(value) + 1):
                if 0 <= n <= MAX_POOL_STRING:
                    out.append("a" * n)
        elif key == "pattern" and isinstance(value, str):
            for alt in (0, 1):
                text = shortest(value, alt)
                if text is not None:
                    out.append(text)
        elif key == "format" and value in inst.FORMATS:
            out.append(inst.FORMATS[value])
        elif key in ("properties", "patternProperties", "dependentSchemas", "$defs") \
                and isinstance(value, dict):
            if key == "properties":
                names += sorted(value)
            for sub_key in sorted(value):
                constants(value[sub_key], out, names, depth + 1)
        elif key == "required" and isinstance(value, list):
            names += [n for n in value if isinstance(n, str)]
        elif isinstance(value, (dict, list)):
            constants(value, out, names, depth + 1)
    return out, names


def locations(value, path=()):
    """Every place in a JSON value, root first, in a stable order."""
    yield path
    if isinstance(value, dict):
        for key in sorted(value):
            yield from locations(value[key], path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from locations(item, path + (index,))


def at(value, path):
    for part in path:
        value = value[part]
    return value


def replaced(value, path, new):
    """``value`` with ``new`` at ``path``: only the containers on the way are
    copied, the rest is shared (a value is never changed in place)."""
    if not path:
        return new
    root = holder = shallow(value)
    for part in path[:-1]:
        holder[part] = holder = shallow(holder[part])
    holder[path[-1]] = new
    return root


def search(oracle, a_root, r_root, bases, seed, budget, clock=None):
    """Up to ``budget`` mutated candidates; returns (witness or None, tried)."""
    import random  # here: only a change construction could not witness pays for it

    rng = random.Random(seed)
    pool_a, names_a = constants(a_root)
    pool_r, names_r = constants(r_root)
    pool = dedupe(pool_a + pool_r + [v for t in TYPE_ORDER for v in POOL[t]] + [{}, []])
    names = sorted(set(names_a + names_r + ["extra"]))
    starts = [b for b in bases if b is not None] or [{}]
    starts += inst.examples(a_root, 0, 6)
    starts = dedupe(starts)
    for tried in range(1, budget + 1):
        if clock is not None and clock():
            return None, tried - 1
        value = clone(starts[rng.randrange(len(starts))])
        for _ in range(rng.randint(1, 3)):
            value = _mutate(value, rng, pool, names)
        if oracle(value):
            return value, tried
    return None, budget


def _mutate(value, rng, pool, names):
    places = list(locations(value))
    path = places[rng.randrange(len(places))]
    target = at(value, path)
    op = rng.randrange(6)
    if op == 0 or not isinstance(target, (dict, list)):
        if isinstance(target, (dict, list)) and op != 0:
            pass
        else:
            return replaced(value, path, clone(pool[rng.randrange(len(pool))]))
    if isinstance(target, dict):
        new = dict(target)
        if op in (1, 2) or not new:
            new[names[rng.randrange(len(names))]] = clone(pool[rng.randrange(len(pool))])
        else:
            keys = sorted(new)
            del new[keys[rng.randrange(len(keys))]]
        return replaced(value, path, new)
    if isinstance(target, list):
        new = list(target)
        if op in (1, 2) or not new:
            new.append(clone(pool[rng.randrange(len(pool))]))
        elif op == 3:
            new.append(clone(new[rng.randrange(len(new))]))
        else:
            new.pop(rng.randrange(len(new)))
        return replaced(value, path, new)
    return replaced(value, path, clone(pool[rng.randrange(len(pool))]))


def _simpler(value):
    """Smaller variants of one value, most aggressive first."""
    if isinstance(value, dict):
        for key in sorted(value):
            yield {k: v for k, v in value.items() if k != key}
    elif isinstance(value, list):
        if len(value) > 1:
            yield value[: len(value) // 2]
        for index in range(len(value) - 1, -1, -1):
            yield value[:index] + value[index + 1:]
    elif isinstance(value, str):
        if value:
            yield ""
            if len(value) > 1:
                yield value[: len(value) // 2]
                yield value[:-1]
            if set(value) != {"a"}:
                yield "a" * len(value)
    elif isinstance(value, bool) or value is None:
        return
    elif is_number(value):
        for smaller in (0, inst.tidy_number(int(value)), inst.tidy_number(value / 2),
                        inst.tidy_number(int(value / 10))):
            if smaller != value or type(smaller) is not type(value):
                yield smaller


def shrink(value, oracle, budget, clock=None):
    """Greedy shrinking: keep any strictly smaller variant the oracle still
    accepts, until none is left or the budget is spent."""
    calls = 0
    current = _order(value)
    improved = True
    while improved and calls < budget:
        improved = False
        for path in list(locations(value)):
            for smaller in _simpler(at(value, path)):
                candidate = replaced(value, path, smaller)
                order = _order(candidate)
                if order >= current:
                    continue
                calls += 1
                if oracle(candidate):
                    value, current, improved = candidate, order, True
                    break
                if calls >= budget or (clock is not None and clock()):
                    return value
            if improved:
                break
    return value


def _order(value):
    # strictly decreasing (size, text) guarantees the shrinker terminates
    return size(value), canonical(value)
