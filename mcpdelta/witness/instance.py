"""Small example values for a (normalised) JSON Schema.

``examples(schema)`` returns a short list of candidate instances, smallest
and most plausible first, each confirmed against the schema where the local
check can evaluate it. It is a generator of guesses, not a solver: callers
confirm every witness with the independent validator on the raw schemas.
Deterministic: no randomness, sorted iteration everywhere.
"""

import itertools
import math

from mcpdelta.engine.equality import canonical
from mcpdelta.witness.regexgen import shortest
from mcpdelta.witness.validate import matches, quick

MAX_DEPTH = 10
MAX_STRING = 100_000
MAX_COUNT = 10_000  # most items or properties built to meet or cross a count bound

# Values a validator accepts for each format (jsonschema-rs and python-jsonschema agree).
FORMATS = {
    "date": "2000-01-01", "date-time": "2000-01-01T00:00:00Z", "time": "00:00:00Z",
    "email": "a@example.com", "idn-email": "a@example.com", "hostname": "example.com",
    "idn-hostname": "example.com", "ipv4": "127.0.0.1", "ipv6": "::1",
    "uri": "https://example.com", "uri-reference": "https://example.com",
    "iri": "https://example.com", "iri-reference": "https://example.com",
    "uri-template": "https://example.com", "uuid": "00000000-0000-0000-0000-000000000000",
    "duration": "P1D", "regex": "a", "json-pointer": "", "relative-json-pointer": "0",
}

TYPE_ORDER = ("string", "integer", "number", "boolean", "null", "object", "array")
POOL = {
    "null": [None], "boolean": [False, True], "integer": [0, 1, -1, 2],
    "number": [0, 0.5, 1, -1], "string": ["", "a", "0", "A", " ", "-"],
    "array": [[]], "object": [{}],
}
_HINTS = (
    ("object", ("properties", "required", "additionalProperties", "patternProperties",
                "minProperties", "maxProperties", "propertyNames", "dependentRequired")),
    ("array", ("items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains")),
    ("string", ("minLength", "maxLength", "pattern", "format")),
    ("number", ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")),
)
_LOWER = ("minLength", "minItems", "minProperties", "minContains", "minimum", "exclusiveMinimum")
_UPPER = ("maxLength", "maxItems", "maxProperties", "maxContains", "maximum", "exclusiveMaximum")

ENUM_EXAMPLES = 32


def size(value) -> int:
    return len(canonical(value))


def longest_string(value, depth=0) -> int:
    """Length of the longest string (key or value) inside a JSON value."""
    if isinstance(value, str):
        return len(value)
    if depth > 64:
        return 0
    if isinstance(value, dict):
        return max([len(k) for k in value] + [longest_string(v, depth + 1) for v in value.values()],
                   default=0)
    if isinstance(value, list):
        return max((longest_string(v, depth + 1) for v in value), default=0)
    return 0


def _key(value):
    # scalars by type and value (cheap); containers by their canonical text
    if value is None or isinstance(value, (str, bool, int, float)):
        return (type(value).__name__, value)
    return (canonical(value), _kind(value))


def dedupe(values):
    return list(unique(values))


def unique(values, limit=None, value_of=None):
    """The distinct values in their order, at most ``limit``, one at a time
    (``value_of``: the value of each item, when the items carry more)."""
    seen = set()
    for item in values:
        if limit is not None and len(seen) >= limit:
            return
        key = _key(item if value_of is None else value_of(item))
        if key not in seen:
            seen.add(key)
            yield item


def _kind(value):
    return type(value).__name__


def is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def types_of(schema):
    """The types a schema admits, in preference order."""
    if not isinstance(schema, dict):
        return list(TYPE_ORDER) if schema is not False else []
    declared = schema.get("type")
    if isinstance(declared, str):
        declared = [declared]
    if isinstance(declared, list):
        return [t for t in TYPE_ORDER if t in declared]
    hinted = [t for t, keys in _HINTS if any(k in schema for k in keys)]
    return hinted + [t for t in TYPE_ORDER if t not in hinted]


def flatten(schema):
    """Fold ``allOf`` into the node (shallow and lossy: the validator decides)."""
    if not isinstance(schema, dict) or "allOf" not in schema:
        return schema
    merged = {k: v for k, v in schema.items() if k != "allOf"}
    for branch in schema["allOf"] if isinstance(schema["allOf"], list) else ():
        branch = flatten(branch)
        if branch is False:
            return False
        if isinstance(branch, dict):
            merged = merge(merged, branch)
    return merged


def merge(a: dict, b: dict) -> dict:
    out = dict(a)
    for key, value in b.items():
        if key not in out or out[key] == value:
            out[key] = value
        elif key == "properties" and isinstance(value, dict) and isinstance(out[key], dict):
            props = dict(out[key])
            for name, sub in value.items():
                props[name] = {"allOf": [props[name], sub]} if name in props and props[name] != sub else sub
            out[key] = props
        elif key == "required" and isinstance(value, list) and isinstance(out[key], list):
            out[key] = sorted(set(out[key]) | set(value), key=str)
        elif key == "type":
            ta, tb = set(types_of({"type": out[key]})), set(types_of({"type": value}))
            both = (ta & tb) | ({"integer"} if ("integer" in ta and "number" in tb)
                                or ("number" in ta and "integer" in tb) else set())
            out[key] = [t for t in TYPE_ORDER if t in both] or "null"
            if isinstance(out[key], list) and len(out[key]) == 1:
                out[key] = out[key][0]
        elif key == "enum" and isinstance(value, list) and isinstance(out[key], list):
            keep = {canonical(v) for v in value}
            out[key] = [v for v in out[key] if canonical(v) in keep]
        elif key in _LOWER and is_number(value) and is_number(out[key]):
            out[key] = max(out[key], value)
        elif key in _UPPER and is_number(value) and is_number(out[key]):
            out[key] = min(out[key], value)
        # anything else that disagrees: keep the first; the validator filters
    return out


# (id(schema), depth, limit) -> (schema, examples): the normalised schemas
# the witness work asks about are built once and never changed, and the same
# holder is asked for its examples once per candidate. The entry holds the
# schema, so its id stays unique while it is cached. Example values are
# shared, never mutated (callers copy what they change).
_EXAMPLES = {}


def examples(schema, depth=0, limit=8):
    """Candidate instances of ``schema``, valid ones first (smallest first)."""
    key = (id(schema), depth, limit)
    hit = _EXAMPLES.get(key)
    if hit is not None and hit[0] is schema:
        return list(hit[1])
    found = _examples(schema, depth, limit)
    if len(_EXAMPLES) >= 4096:
        _EXAMPLES.clear()
    _EXAMPLES[key] = (schema, found)
    return list(found)


def _examples(schema, depth, limit):
    if depth > MAX_DEPTH or schema is False:
        return []
    if schema is True or schema is None or schema == {}:
        return ["", 0, False, None, {}, []]
    if not isinstance(schema, dict):
        return []
    if "$ref" in schema and len(schema) == 1:
        return []  # a cycle the normaliser left as a name: do not expand
    node = flatten(schema)
    if node is False:
        return []
    out = []
    if "const" in node:
        out.append(node["const"])
    elif isinstance(node.get("enum"), list):
        out.extend(node["enum"][:ENUM_EXAMPLES])  # a few members suffice; a huge enum would cost its square
    else:
        for key in ("anyOf", "oneOf"):
            if isinstance(node.get(key), list):
                rest = {k: v for k, v in node.items() if k != key}
                for branch in node[key]:
                    if isinstance(branch, dict):
                        out.extend(examples(merge(rest, branch), depth + 1, 3))
                    elif branch is True:
                        out.extend(examples(rest, depth + 1, 3))
        if not out:
            for kind in types_of(node):
                out.extend(of_type(node, kind, depth))
    return _valid_first(schema, dedupe(out), limit)[:limit]


def _valid_first(schema, values, limit=None):
    good, unknown = [], []
    for value in values:
        verdict = quick(schema, value)
        if verdict:
            good.append(value)
            if limit is not None and len(good) >= limit:
                break  # enough valid ones: the rest would be cut anyway
        elif verdict is None:
            unknown.append(value)
    return good + unknown


def of_type(node, kind, depth=0):
    if kind == "string":
        return strings(node)
    if kind in ("integer", "number"):
        return numbers(node, kind == "integer")
    if kind == "array":
        return arrays(node, depth)
    if kind == "object":
        return objects(node, depth)
    return list(POOL[kind])


def _length_bounds(node, low="minLength", high="maxLength"):
    lo = node.get(low, 0)
    hi = node.get(high)
    lo = int(lo) if is_number(lo) and lo >= 0 else 0
    hi = int(hi) if is_number(hi) and hi >= 0 else None
    return lo, hi


def string_of_length(node, n, fill="a"):
    """A string of exactly ``n`` characters, honouring the pattern if it can."""
    if n < 0 or n > MAX_STRING:
        return None
    pattern = node.get("pattern") if isinstance(node, dict) else None
    fmt = node.get("format") if isinstance(node, dict) else None
    if fmt in FORMATS and len(FORMATS[fmt]) == n:
        return FORMATS[fmt]
    if isinstance(pattern, str):
        for alt in (0, 1):
            seed = shortest(pattern, alt)
            if seed is None or len(seed) > n:
                continue
            for text in (seed + fill * (n - len(seed)), fill * (n - len(seed)) + seed):
                if len(text) == n and matches(pattern, text):
                    return text
            for extra in range(1, min(n, 64) + 1):
                grown = shortest(pattern, alt, extra)
                if grown is None or len(grown) > n:
                    break
                if len(grown) == n:
                    return grown
        return None
    return fill * n


def strings(node):
    lo, hi = _length_bounds(node)
    out = []
    fmt = node.get("format")
    if isinstance(fmt, str) and fmt in FORMATS:
        out.append(FORMATS[fmt])
    pattern = node.get("pattern")
    if isinstance(pattern, str):
        for alt in (0, 1):
            seed = shortest(pattern, alt)
            if seed is not None:
                out.append(seed)
    lengths = [lo, lo + 1] + ([hi] if hi is not None else [])
    for n in lengths:
        if hi is not None and n > hi:
            continue
        for fill in ("a", "b", "c"):
            text = string_of_length(node, n, fill)
            if text is not None:
                out.append(text)
    if not isinstance(pattern, str):
        out.extend(POOL["string"])
    return out


def _numeric_bounds(node):
    lo = hi = None
    lo_x = hi_x = False
    for key, strict in (("minimum", False), ("exclusiveMinimum", True)):
        v = node.get(key)
        if is_number(v) and (lo is None or v > lo or (v == lo and strict)):
            lo, lo_x = v, strict
    for key, strict in (("maximum", False), ("exclusiveMaximum", True)):
        v = node.get(key)
        if is_number(v) and (hi is None or v < hi or (v == hi and strict)):
            hi, hi_x = v, strict
    return lo, lo_x, hi, hi_x


def near(bound):
    """Numbers around one bound: the bound, its neighbours, half steps."""
    if not is_number(bound) or not math.isfinite(bound):
        return []
    out = [bound, bound + 1, bound - 1, bound + 0.5, bound - 0.5]
    out += [math.floor(bound), math.ceil(bound), math.floor(bound) + 1, math.ceil(bound) - 1]
    return [tidy_number(v) for v in out]


def tidy_number(v):
    if isinstance(v, float) and v.is_integer() and abs(v) < 2 ** 53:
        return int(v)
    return v


def numbers(node, integer):
    lo, _lx, hi, _hx = _numeric_bounds(node)
    out = [0, 1, -1]
    out += near(lo) + near(hi)
    step = node.get("multipleOf")
    if is_number(step) and step > 0:
        for anchor in (0, lo, hi):
            if is_number(anchor) and math.isfinite(anchor / step):
                k = math.ceil(anchor / step)
                out += [tidy_number(k * step), tidy_number((k + 1) * step), tidy_number((k - 1) * step)]
    if not integer:
        out += [0.5, -0.5]
    out = [tidy_number(v) for v in out if is_number(v) and math.isfinite(v)]
    if integer:
        out = [v for v in out if isinstance(v, int)]
    out = [v for v in out if (lo is None or v >= lo) and (hi is None or v <= hi)]
    return sorted(dedupe(out), key=lambda v: (abs(v), v < 0, isinstance(v, float)))


def distinct(schema, n, depth=0):
    """``n`` distinct examples of ``schema`` (fewer if it has fewer)."""
    values = examples(schema, depth + 1, limit=max(n, 8))
    if len(values) < n and isinstance(schema, dict):
        for kind in types_of(schema):
            values = dedupe(values + [v for v in of_type(flatten(schema) or {}, kind, depth + 1)
                                      if quick(schema, v) is not False])
    return values[:n]


def arrays(node, depth, length=None):
    prefix = node.get("prefixItems") if isinstance(node.get("prefixItems"), list) else []
    items = node.get("items", {})
    lo, hi = _length_bounds(node, "minItems", "maxItems")
    n = lo if length is None else length
    if hi is not None and n > hi and length is None:
        return []
    out = []
    contains = node.get("contains")
    if contains is not None:
        merged = merge(items, contains) if isinstance(items, dict) and isinstance(contains, dict) else contains
        found = examples(merged, depth + 1, 1)
        if found:
            out.append(found[0])
    unique = node.get("uniqueItems") is True
    while len(out) < n:
        i = len(out)
        schema = prefix[i] if i < len(prefix) else items
        if schema is False:
            return []
        pool = distinct(schema, n, depth) if unique else examples(schema, depth + 1, 2)
        pool = [v for v in pool if not unique or canonical(v) not in {canonical(x) for x in out}]
        if not pool:
            return []
        out.append(pool[0])
    return [out]


FRESH_NAMES = ("extra", "extra1", "extra2", "x", "zz_extra")


def fresh_names(node, taken=()):
    """Property names no ``properties`` / ``patternProperties`` entry
    governs and ``taken`` (read as they are made) does not hold, in a fixed
    order: ``FRESH_NAMES``, then ``extra3``, ``extra4``, ... up to
    ``MAX_COUNT`` of them; they stop once as many names as ``FRESH_NAMES``
    holds have matched a pattern (the patterns likely govern every name)."""
    props = node.get("properties", {}) if isinstance(node, dict) else {}
    patterns = list(node.get("patternProperties", {})) if isinstance(node, dict) else []
    governed = 0
    numbered = (f"extra{i}" for i in range(3, MAX_COUNT + 3))
    for candidate in itertools.chain(FRESH_NAMES, numbered):
        if candidate in props or candidate in taken:
            continue
        if any(matches(p, candidate) is not False for p in patterns):
            governed += 1
            if governed >= len(FRESH_NAMES):
                return
            continue
        yield candidate


def fresh_name(node, taken=()):
    """The first of ``fresh_names``, or None."""
    return next(fresh_names(node, taken), None)


def governing(node, name):
    """The subschema that governs property ``name`` of an object ``node``."""
    if not isinstance(node, dict):
        return {} if node is not False else False
    props = node.get("properties", {})
    if isinstance(props, dict) and name in props:
        return props[name]
    matched = []
    for pattern, sub in sorted((node.get("patternProperties") or {}).items()):
        if matches(pattern, name):
            matched.append(sub)
    if matched:
        return matched[0] if len(matched) == 1 else {"allOf": matched}
    return node.get("additionalProperties", {})


MAX_VARIANTS = 12  # objects tried with one property's value changed


# keywords by which one property's value can rule out another's
_TIES = frozenset({"if", "then", "else", "dependentSchemas", "oneOf", "anyOf", "not"})


def _one_changed(node, out, depth):
    """Where ``out`` breaks a rule that ties properties together (an
    ``if``/``then``: ``didError: false`` wants ``error: null``), the same
    object with one property's value changed to another example, each
    property in turn; none when it passes."""
    if not out or _TIES.isdisjoint(node) or quick(node, out) is not False:
        return []
    variants = []
    for name in sorted(out):
        schema = governing(node, name)
        # the next examples, and one of each other type the property takes
        # (a null where a string came first)
        kinds = types_of(schema) if isinstance(schema, dict) and isinstance(schema.get("type"), list) else []
        others = examples(schema, depth + 1, 3)[1:] + [POOL[kind][0] for kind in kinds[1:]]
        for other in dedupe(others):
            if other != out[name]:
                variants.append({**out, name: other})
            if len(variants) >= MAX_VARIANTS:
                return variants
    return variants


def objects(node, depth, with_optional=False, fuller=True):
    props = node.get("properties", {}) if isinstance(node.get("properties"), dict) else {}
    required = [n for n in node.get("required", []) if isinstance(n, str)] \
        if isinstance(node.get("required"), list) else []
    names = sorted(set(required) | (set(props) if with_optional else set()))
    dependent = node.get("dependentRequired") if isinstance(node.get("dependentRequired"), dict) else {}
    changed = True
    while changed:
        changed = False
        for name in list(names):
            for extra in dependent.get(name, []) if isinstance(dependent.get(name), list) else []:
                if extra not in names:
                    names.append(extra)
                    changed = True
    lo, _hi = _length_bounds(node, "minProperties", "maxProperties")
    for name in sorted(props):
        if len(names) >= lo:
            break
        if name not in names:
            names.append(name)
    if lo > MAX_COUNT:
        return []
    fresh = fresh_names(node, set(names))
    while len(names) < lo:
        name = next(fresh, None)
        if name is None:
            return []
        names.append(name)
    out = {}
    for name in sorted(names):
        found = examples(governing(node, name), depth + 1, 1)
        if not found:
            if name in required:
                return []
            continue
        out[name] = found[0]
    results = [out] + _one_changed(node, out, depth)
    if not with_optional and props and fuller:
        results += objects(node, depth, with_optional=True)
    return results
