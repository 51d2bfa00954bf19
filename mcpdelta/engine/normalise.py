"""Notation is not contract: bring a JSON Schema to one dialect before the walk.

Real servers change how the same schema is written when their SDK changes
(zod 3 -> 4, draft-07 -> 2020-12). Each rewrite here keeps what the schema
accepts and records the notation it undid, so the engine can report a
dialect switch once (``*.dialect.changed``) instead of as breaking noise.

The result is a fresh tree (inputs are never mutated) in which:

- ``$schema`` is gone (recorded), ``$comment`` is gone;
- local ``$ref`` (``#``, ``#/$defs/X``, ``#/definitions/X``) are inlined;
  a reference back into its own expansion (a cycle) stays as
  ``{"$ref": "#/$defs/X"}``; ``$defs`` / ``definitions`` are then dropped;
- array-form ``items`` is ``prefixItems`` (and ``additionalItems`` is ``items``);
- draft-04 boolean ``exclusiveMinimum`` / ``exclusiveMaximum`` are numbers;
- Python's ``Optional[...]`` (Pydantic, FastMCP), ``anyOf: [S, {"type":
  "null"}]`` with S a typed schema whose keywords cannot reject a null, is S
  with ``null`` added to its ``type`` (and its ``enum``): one schema however a
  generator spells "or null", so not recorded as a dialect;
- an ``anyOf`` of bare ``{"type": T}`` branches is a ``type`` list;
- an ``anyOf`` / ``oneOf`` of branches that only list values (``const``,
  ``enum``) is an ``enum`` of them;
- on an integer, an exclusive bound is the inclusive bound a step in, and
  the bounds at exactly JavaScript's safe-integer limits, +-(2^53 - 1) (zod
  4's ``.int()``), are dropped; any other bound stays, however large;
- set-valued keywords (``type``, ``enum``, ``required``, ``allOf`` /
  ``anyOf`` / ``oneOf`` branches) are sorted and de-duplicated;
- no-op spellings are dropped: ``true`` / ``{}`` ``additionalProperties`` and ``items``,
  ``uniqueItems: false``, ``deprecated: false``, empty ``required`` and
  ``properties``; the boolean schema ``true`` is ``{}``;
- ``x-`` vendor keys are gone (no validator reads them), but ``x-mcp-header``,
  which the walk reports: ``items: {"x-order": 1}`` is ``items: {}``.
"""

from mcpdelta.engine.equality import canonical, same
from mcpdelta.engine.keywords import (
    ANNOTATIONS,
    READ_TOGETHER,
    SCHEMA_LISTS,
    SCHEMA_MAPS,
    SCHEMA_VALUES,
)
from mcpdelta.engine.meaning import branch_tags
from mcpdelta.engine.notation import UNORDERED_LISTS, is_null_branch, tidy
from mcpdelta.engine.remember import content_key, memo

_DROPPED = frozenset({"$ref", "$comment", "$defs", "definitions"})
# the one x- key the walk reads: it changes how a call travels over HTTP
_VENDOR_READ = frozenset({"x-mcp-header"})


_SUBSCHEMAS = SCHEMA_MAPS | SCHEMA_VALUES | SCHEMA_LISTS | _DROPPED


# Inlining stops this deep so a pathological ref chain cannot recurse forever,
# and after this many schema nodes so refs that fan out (each definition
# using the next one twice) cannot grow the tree exponentially. Past either
# bound a ref stays a ref, and the definitions stay in the tree for the net.
MAX_INLINE_DEPTH = 64


MAX_INLINED_NODES = 5000


# Marker targets worked out per schema (each at most once).
MAX_MARKED = 256


def normalise_schema(schema):
    """Return (normalised schema, notation) where notation is a sorted tuple of
    the notational forms the original used."""
    known = memo("normalised")
    if known is None or not isinstance(schema, dict):
        return _normalise_schema(schema)
    key = content_key(schema)  # two equal schemas (two tools, two releases) share one result
    found = known.get(key)
    if found is None:
        found = known[key] = _normalise_schema(schema)
    return found


def _normalise_schema(schema):
    notation = set()
    if schema is True:
        return {}, ()
    if not isinstance(schema, dict):
        return schema, ()
    if "$schema" in schema:
        notation.add(f"$schema={schema['$schema']}")
    if isinstance(schema.get("definitions"), dict):
        notation.add("definitions")
    walker = _Normaliser(schema, notation)
    result = walker.node(schema, 0)
    if isinstance(result, dict):
        result.pop("$schema", None)
        defs = walker.targets()
        if walker.kept_refs:
            # a reference the normaliser cannot follow (remote, an anchor,
            # $dynamicRef) may lead into the definitions: keep them, so the
            # net sees what changes there
            for key in ("definitions", "$defs"):
                if isinstance(schema.get(key), dict):
                    for name, value in schema[key].items():
                        defs.setdefault(name, walker.node(value, MAX_INLINE_DEPTH + 1))
        if defs:
            result["$defs"] = defs
    return result, tuple(sorted(notation))


# A reference back into its own expansion (recursion, recognised by the
# target's identity, not its name), or past the inlining bounds, becomes a
# *marker*: ``{"$ref": "#/$defs/@<pointer>"}``, with the target's normal
# form under that name in the root's ``$defs`` (each target worked out once,
# so the tree stays linear in the schema's size), and the tree stays a
# schema a validator can read. The "@" keeps marker targets apart from a
# schema's own definitions; ``{"$ref": "#"}`` marks the root itself. The
# walk compares markers by what they lead to, never by name.
MARKER_PREFIX = "#/$defs/@"


def marker_name(ref):
    """The ``$defs`` key a marker ``$ref`` names ("#" for the root), or None
    if ``ref`` is no marker."""
    if ref == "#":
        return "#"
    if isinstance(ref, str) and ref.startswith(MARKER_PREFIX):
        return ref[len("#/$defs/"):].replace("~1", "/").replace("~0", "~")
    return None


def marker_target(node, root):
    """What a marker node stands for: its target's normal form from ``root``
    (a normalised schema), sibling keywords merged in; None if ``node`` is no
    marker or its target is missing."""
    if not isinstance(node, dict):
        return None
    name = marker_name(node.get("$ref"))
    if name is None:
        return None
    if name == "#":
        target = root
    else:
        defs = root.get("$defs") if isinstance(root, dict) else None
        target = defs.get(name) if isinstance(defs, dict) else None
        if target is None:
            return None
    siblings = {k: v for k, v in node.items() if k != "$ref"}
    return _merge(target, siblings) if siblings else target


def pointer_target(root, ref):
    """The value a local JSON pointer reference (``#/a/b``, percent-encoding
    allowed) names in ``root``; None if it names nothing."""
    from urllib.parse import unquote

    node = root
    for part in unquote(ref[2:]).split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and (part == "0" or part[0] != "0") \
                and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


class _Normaliser:
    def __init__(self, root, notation):
        self.root = root
        self.notation = notation
        self.nodes = 0           # schema nodes built so far
        self.kept_refs = False   # a reference left as it was (remote, anchor, dynamic)
        self.on_path = set()     # ids of the raw schemas being normalised (recursion by identity)
        self.marked = {}         # marker name -> raw target, in order of first use

    def _target(self, ref):
        """(marker name, raw target) of a local reference, or (None, None)."""
        if ref == "#":
            return "#", self.root
        if ref.startswith("#/"):
            target = pointer_target(self.root, ref)
            if isinstance(target, (dict, bool)):
                from urllib.parse import unquote

                return "@" + unquote(ref[1:]), target
        return None, None

    def targets(self) -> dict:
        """Every marker's target in normal form, by name (targets that mark
        further targets included, up to MAX_MARKED of them: a marker past
        that has no target, and is compared as written)."""
        done = {}
        pending = [n for n in self.marked if n != "#"]
        while pending and len(done) < MAX_MARKED:
            name = pending.pop(0)
            done[name] = self.node(self.marked[name], 0)
            pending += [n for n in self.marked if n != "#" and n not in done and n not in pending]
        return done

    def _marker(self, name, target):
        self.marked.setdefault(name, target)
        if name == "#":
            return "#"
        return MARKER_PREFIX + name[1:].replace("~", "~0").replace("/", "~1")

    def node(self, schema, depth):
        if schema is True:
            return {}
        if not isinstance(schema, dict):
            return schema
        self.nodes += 1
        key = id(schema)
        self.on_path.add(key)  # a reference back to it, from inside, is a cycle
        try:
            return self._node(schema, depth)
        finally:
            self.on_path.discard(key)

    def _node(self, schema, depth):
        out = {}
        ref = schema.get("$ref")
        if "$dynamicRef" in schema or "$recursiveRef" in schema:
            self.kept_refs = True
        if isinstance(ref, str):
            name, found = self._target(ref)
            if name is None:
                out["$ref"] = ref  # an anchor, a remote schema: as written
                self.kept_refs = True
            elif id(found) in self.on_path or depth > MAX_INLINE_DEPTH or self.nodes > MAX_INLINED_NODES:
                # back into its own expansion, or past the bounds: a marker
                out["$ref"] = self._marker(name, found)
            else:
                self.notation.add("$ref")
                inlined = self.node(found, depth + 1)
                siblings = {k: v for k, v in schema.items() if k != "$ref"}
                return _merge(inlined, self.node(siblings, depth + 1)) if siblings else inlined
        for key, value in schema.items():
            if key not in _SUBSCHEMAS:  # a plain keyword (most of them)
                if key[:2] != "x-" or key in _VENDOR_READ:
                    out[key] = value
                continue  # a vendor's x- key validates nothing: no validator reads it
            if key in _DROPPED:
                continue
            if key in SCHEMA_MAPS and isinstance(value, dict):
                out[key] = {k: self.node(v, depth + 1) for k, v in value.items()}
            elif key in SCHEMA_VALUES:
                if key == "items" and isinstance(value, list):
                    self.notation.add("items-array")
                    out["prefixItems"] = [self.node(v, depth + 1) for v in value]
                    if "additionalItems" in schema:
                        out["items"] = self.node(schema["additionalItems"], depth + 1)
                elif key == "additionalItems" and isinstance(schema.get("items"), list):
                    continue  # folded into items above
                else:
                    out[key] = self.node(value, depth + 1)
            elif key in SCHEMA_LISTS and isinstance(value, list):
                out[key] = [self.node(v, depth + 1) for v in value]
            else:
                out[key] = value
        return tidy(out, self.notation)


def _merge(inlined, siblings):
    """A ``$ref`` with sibling keywords, read as 2020-12 reads it (both
    apply): annotations override, constraints the target lacks join it,
    constraints that disagree or read the target's keywords are kept as an
    ``allOf`` (both must hold)."""
    if not siblings:
        return inlined
    if not isinstance(inlined, dict):
        return {"allOf": [inlined, siblings]}
    merged = dict(inlined)
    rest = {}
    apart = set()
    for group in READ_TOGETHER:
        if not group.isdisjoint(siblings) and not group.isdisjoint(inlined):
            apart |= group
    for key, value in siblings.items():
        if key in ANNOTATIONS:
            merged[key] = value
        elif key in merged and same(merged[key], value):
            continue  # said twice
        elif key in apart or key in merged:
            rest[key] = value
        else:
            merged[key] = value
    if rest:
        return {"allOf": sorted([merged, rest], key=canonical)}
    return merged


def in_document(raw, normal, rel, memo):
    """``rel``, a place in ``normal`` (``raw``'s normal form), with each
    ``allOf`` / ``anyOf`` / ``oneOf`` branch numbered as ``raw`` numbers it:
    the normal form sorts branches, and a user reads the pointer in the
    schema the server sent (``_branch_at`` says how a branch is found).
    An "S or null" the normal form folded into S is followed into S (the
    pointer names S's place, as the walk does). Where the two trees part
    otherwise (a branch folded away, a reference merged with siblings), the
    rest of ``rel`` stays as it is. ``memo`` (a dict kept for
    one schema) holds each raw branch's normal form."""
    root = memo.setdefault("#", raw)
    out = list(rel)
    hops = 0
    i = 0
    while i < len(rel):
        part = rel[i]
        if isinstance(raw, list) and isinstance(normal, list) and isinstance(part, int):
            raw, normal = (raw[part], normal[part]) if part < min(len(raw), len(normal)) else (None, None)
            i += 1
            continue
        if not (isinstance(raw, dict) and isinstance(normal, dict)):
            break
        ref = raw.get("$ref")
        if part not in raw and isinstance(ref, str) and ref.startswith("#") and hops < MAX_INLINE_DEPTH:
            raw = root if ref == "#" else pointer_target(root, ref)
            hops += 1
            continue
        held = _folded_branch(root, raw, part) if part not in raw and hops < MAX_INLINE_DEPTH else None
        if held is not None:  # "S or null" folded into S: the place is S's
            raw = held
            hops += 1
            continue
        raw_next, normal_next = raw.get(part), normal.get(part)
        if part in UNORDERED_LISTS and i + 1 < len(rel) and isinstance(raw_next, list) \
                and isinstance(normal_next, list) and isinstance(rel[i + 1], int) \
                and 0 <= rel[i + 1] < len(normal_next):
            wanted = normal_next[rel[i + 1]]
            at = _branch_at(root, raw_next, wanted, memo)
            if at is None:
                break
            out[i + 1] = at
            raw, normal = raw_next[at], wanted
            i += 2
            continue
        raw, normal = raw_next, normal_next
        i += 1
    return tuple(out)


def _folded_branch(root, raw, part):
    """The one ``anyOf`` branch of ``raw`` that holds ``part``, when the
    others accept null alone (the fold's own test): the ``Optional[...]``
    spelling the normal form folds into its non-null branch. None otherwise."""
    branches = raw.get("anyOf")
    if not isinstance(branches, list):
        return None
    shown = [_pointed(root, branch) for branch in branches]
    holding = [b for b in shown if isinstance(b, dict) and part in b]
    rest = [b for b in shown if not any(b is h for h in holding)]
    if len(holding) == 1 and all(is_null_branch(b) for b in rest):
        return holding[0]
    return None


def _branch_at(root, branches, wanted, memo):
    """The index of the raw branch whose normal form is ``wanted``: the one
    alone in carrying its tag (a tagged union's), else alone in declaring
    its property names, else the one that normalises to it; None if none."""
    key = ("read", id(branches))
    if key not in memo:  # each raw list read once per schema: many changes sit in one union
        shown = [_pointed(root, branch) for branch in branches]
        memo[key] = (branches, [branch_tags(b) for b in shown], [_property_names(b) for b in shown])
    _, tags_of, names_of = memo[key]
    tags = branch_tags(wanted)
    if tags:
        mates = [j for j, theirs in enumerate(tags_of) if tags & theirs]
        if len(mates) == 1:
            return mates[0]
    names = _property_names(wanted)
    if names:
        mates = [j for j, theirs in enumerate(names_of) if theirs == names]
        if len(mates) == 1:
            return mates[0]
    return next((j for j, branch in enumerate(branches) if same(_branch_normal(branch, memo), wanted)), None)


def _property_names(node) -> set:
    properties = node.get("properties") if isinstance(node, dict) else None
    return set(properties) if isinstance(properties, dict) else set()


def _pointed(root, node):
    """``node``, or what its local ``$ref`` leads to."""
    ref = node.get("$ref") if isinstance(node, dict) else None
    if isinstance(ref, str) and ref.startswith("#/"):
        return pointer_target(root, ref)
    return node


def _branch_normal(branch, memo):
    """A raw branch's normal form, in the context of its root (``memo["#"]``)."""
    key = id(branch)
    if key not in memo:
        walker = _Normaliser(memo["#"], set())
        memo[key] = (branch, walker.node(branch, 1))  # holding the branch keeps its id unique
    return memo[key][1]
