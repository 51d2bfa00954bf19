"""The structured schema walk: named rules with old and new values.

One walk serves both directions. The direction only picks the rule prefix
(``tool.input.`` or ``tool.output.``), and the catalog gives each prefixed
rule its severity: input is contravariant, output covariant. A keyword is
modelled by adding a row to ``HANDLERS``; whatever no handler explains is
caught by the completeness net (``net.py``) and reported as
``*.schema.changed``.
"""

from mcpdelta.engine import values
from mcpdelta.engine.change import Change, pointer
from mcpdelta.engine.equality import canonical, same
from mcpdelta.engine.handlers import DIRECTION, HANDLED, HANDLERS
from mcpdelta.engine.keywords import ACTS_ON, ANNOTATING, ANNOTATIONS, keyword_at
from mcpdelta.engine.meaning import of_types, pair_branches, takes, type_set
from mcpdelta.engine.net import MISSING, differences
from mcpdelta.engine.normalise import in_document, marker_target, normalise_schema
from mcpdelta.engine.remember import content_key, memo


def diff_schema(side: str, entity: str, base: str, old, new) -> list:
    """Every change between two schemas of one tool (``side``: input/output).
    While ``remembered`` lasts, two schemas met again (another pair, tool
    or server) are not walked again: their changes are made anew from what
    the first walk made, for this tool and place."""
    known = memo("schema diffs")
    if known is None:
        return _walked(side, entity, base, old, new).changes
    key = (side, content_key(old), content_key(new))
    made = known.get(key)
    if made is None:
        walk = _walked(side, entity, base, old, new)
        known[key] = [(walk.made[id(change)], change.probe) for change in walk.changes]
        return walk.changes
    return [_remade(side, entity, base, args, probe) for args, probe in made]


def _remade(side, entity, base, args, probe):
    """The change ``_Walk._made`` made with ``args``, for ``entity`` at ``base``."""
    suffix, shown, rel, old, new, detail, where, severity = args
    change = Change(f"tool.{side}.{suffix}", entity, base + shown, old, new,
                    severity=severity, where=where, detail=detail)
    change.schema_path = base + rel
    change.probe = probe
    return change


def _walked(side, entity, base, old, new):
    old_n, old_notation = normalise_schema(old)
    new_n, new_notation = normalise_schema(new)
    walk = _Walk(side, entity, base, old_n, new_n, new)
    old_dialect, new_dialect = _dialect(old_notation), _dialect(new_notation)
    if old_dialect != new_dialect:
        # the declared dialect moved; any other respelling (a $ref inlined,
        # definitions renamed $defs) is no change at all: the same values validate
        walk.emit("dialect.changed", (), {"$schema": old_dialect}, {"$schema": new_dialect},
                  detail=f"{old_dialect or 'none declared'} -> {new_dialect or 'none declared'}",
                  claim=False)
    walk.compare(old_n, new_n, ())
    return walk


def _dialect(forms):
    """The ``$schema`` a schema declares (its normaliser's record), or None."""
    return next((f[len("$schema="):] for f in forms if f.startswith("$schema=")), None)


def _vendor(parts) -> bool:
    """Is this place inside an ``x-`` vendor keyword (one the walk does not
    model)? Such a keyword validates nothing: no validator reads it."""
    keyword = keyword_at(parts)
    return isinstance(keyword, str) and keyword.startswith("x-") and keyword not in HANDLED


def label(rel) -> str:
    """A short human name for a place in a schema: ``filter.tag``, ``tags[]``."""
    out = ""
    parts = list(rel)
    if len(parts) >= 2 and parts[-2] in ("dependentRequired", "dependentSchemas"):
        parts = parts[:-1]  # a property's entry: the object it constrains is the place
    if parts and parts[-1] not in ("items", "additionalProperties") and (
            len(parts) < 2 or parts[-2] not in ("properties", "patternProperties", "prefixItems")):
        parts.pop()  # the keyword itself: name the place it constrains
    i = 0
    while i < len(parts):
        part = parts[i]
        if part in ("properties", "patternProperties", "prefixItems") and i + 1 < len(parts):
            name = parts[i + 1]
            if part == "properties":
                out += ("." if out else "") + str(name)
            elif part == "prefixItems":
                out += f"[{name}]"
            else:
                out += f"{{/{name}/}}"
            i += 2
            continue
        out += {"items": "[]", "additionalProperties": "{*}"}.get(part, f"/{part}")
        i += 1
    return out or "the root"


# Marker pairs followed into their targets in one schema diff, and how many
# may be followed one inside another: past either, markers are compared as
# written (a difference the net reports).
MAX_EXPANSIONS = 1000


MAX_EXPANSION_DEPTH = 48


class _Walk:
    def __init__(self, side, entity, base, old_root=None, new_root=None, new_raw=None):
        self.prefix = f"tool.{side}."
        self.entity = entity
        self.base = base
        self.changes = []
        self.claims = []  # path parts whose subtree a change explains
        self.roots = (old_root, new_root)  # where markers lead (normalise.marker_target)
        self.assumed = set()  # marker pairs being compared: equal unless shown otherwise
        self.expansions = 0
        self.path = []  # the (old, new) nodes being walked, outermost first
        self.equivalence_checks = 0
        self.compared = set()  # marker pairs compared already
        self.kept = []
        self.dirty = _dirty_markers(old_root, new_root) if old_root is not new_root else ()
        self.new_raw = new_raw  # the new schema as sent: pointers number its branches
        self.branches = {}  # raw branch -> its normal form (normalise.in_document)
        self.made = {}  # id(change) -> the arguments that made it (``_made``)
        self.nesting = 0  # equivalence walks this one runs inside (``equivalent``)

    def in_document(self, rel):
        """``rel`` with union branches numbered as the new schema numbers
        them (a place inside a branch gets its index on the new side, where
        the engine paired it)."""
        if self.new_raw is not None and int in set(map(type, rel)):
            return in_document(self.new_raw, self.roots[1], rel, self.branches)
        return rel

    def _made(self, suffix, rel, old, new, detail, where=None, severity=None, shown=None):
        """A change at ``rel`` (``shown``: ``rel`` as the document numbers
        it); ``schema_path`` keeps the engine's own pointer (into the normal
        forms), where witnesses are sought."""
        shown = self.in_document(rel) if shown is None else shown
        rel_text = pointer(*rel)
        shown_text = rel_text if shown is rel else pointer(*shown)
        where = label(shown) if where is None else where
        change = Change(self.prefix + suffix, self.entity, self.base + shown_text, old, new,
                        severity=severity, where=where, detail=detail)
        change.schema_path = self.base + rel_text
        # what made it, so that ``diff_schema`` can make it again for another tool
        self.made[id(change)] = (suffix, shown_text, rel_text, old, new, detail, where, severity)
        return change

    def emit(self, suffix, rel, old, new, detail="", severity=None, claim=True, holder=False):
        """One change at ``rel``; ``holder``: the message names the schema
        holding the keyword at ``rel`` (the object ``additionalProperties``
        closes), not the values under it."""
        shown = self.in_document(rel)
        where = label(shown[:-1] + ("",)) if holder else label(shown)
        if where == "the root":
            where = "the arguments object" if self.prefix == "tool.input." else "the result object"
        self.changes.append(self._made(suffix, rel, None if old is MISSING else old,
                                       None if new is MISSING else new, detail, where, severity, shown))
        if claim:
            self.claims.append(rel)

    def compare(self, old, new, rel):
        """Walk, then net: report what the walk left unexplained."""
        first = len(self.claims)
        self.node(old, new, rel)
        claims = set(self.claims[first:])
        for parts, a, b in list(differences(old, new, rel)):
            # claimed: the place itself or a place holding it
            if not any(parts[:i] in claims for i in range(len(parts) + 1)) and not _vendor(parts):
                keyword = keyword_at(parts)
                # names or annotates: the same values validate (definitions a
                # kept reference may reach stay the net's)
                if keyword in ANNOTATING and keyword not in ("$defs", "definitions"):
                    self.emit("annotation.changed", parts, a, b, detail=keyword)
                else:
                    self.emit("schema.changed", parts, a, b)

    def node(self, old, new, rel):
        if not rel:
            self._claim_targets()
        if self._through_markers(old, new, rel):
            return
        if isinstance(old, bool) or isinstance(new, bool):
            if old is False and new is not False:
                self.emit("constraint.loosened", rel, old, new, detail="false schema")
            elif new is False and old is not False:
                self.emit("constraint.tightened", rel, old, new, detail="false schema")
            return
        if not isinstance(old, dict) or not isinstance(new, dict) or self._unchanged(old, new):
            return  # the net reports anything odd
        wrapped = self._wrapped(old, new)
        if wrapped is not None:
            # one side is the other as a single branch of a combinator: the
            # branch sets are compared, and explain the place whole
            self.claims.append(rel)
            self.compare(*wrapped, rel)
            return
        idle = moot(old, new)
        if idle:
            # keywords for a type one side does not admit: the type change says it
            self.claims += [rel + (k,) for k in idle]
            old = {k: v for k, v in old.items() if k not in idle}
            new = {k: v for k, v in new.items() if k not in idle}
        self.path.append((old, new))
        first = len(self.changes)
        try:
            keys = old.keys() | new.keys()
            for handler, handled in HANDLERS:
                if not keys.isdisjoint(handled):
                    handler(self, old, new, rel)
        finally:
            self.path.pop()
        self._by_values(old, new, rel, first)

    def _by_values(self, old, new, rel, first):
        """A scalar place is decided by the values each side accepts
        (``values.relation``): the keyword handlers' changes there are kept
        only where the sets bear them out, a difference they missed is
        added, and each change that claims a lost (input) or gained (output)
        value carries one (``probe``). Undecided places keep the handlers'
        reading."""
        moved = sorted(k for k in values.KEYWORDS if not same(old.get(k, MISSING), new.get(k, MISSING)))
        if not moved:
            return
        verdict, lost, gained = values.relation(old, new)
        if verdict is None:
            return
        here = self.base + pointer(*rel) + "/"  # keyword names need no escaping
        places = {here + k for k in values.KEYWORDS}
        mine = [c for c in self.changes[first:] if c.schema_path in places]
        others = [c for c in self.changes[first:] if c.schema_path not in places]
        keep = []
        for change in mine:
            kind = DIRECTION.get(change.rule[len(self.prefix):])
            if kind is None:
                keep.append(change)  # an annotation's change: no claim on values
            elif verdict == "same":
                continue
            elif kind == "changed":
                if verdict == "both":
                    keep.append(change)
                else:
                    keep.append(self._respelled(change, verdict, rel))
            elif (kind == "narrower" and lost is not None) or (kind == "wider" and gained is not None):
                keep.append(change)
        shown = {DIRECTION.get(c.rule[len(self.prefix):]) for c in keep}
        both_listed = all("enum" in side or "const" in side for side in (old, new))
        part = {k: old[k] for k in sorted(old) if k in values.KEYWORDS}, \
            {k: new[k] for k in sorted(new) if k in values.KEYWORDS}
        detail = ", ".join(moved)
        if lost is not None and not shown & {"narrower", "changed"}:
            keep.append(self._change("enum.narrowed" if both_listed else "constraint.tightened",
                                     rel + (moved[0],), *part, detail))
        if gained is not None and not shown & {"wider", "changed"}:
            keep.append(self._change("enum.widened" if both_listed else "constraint.loosened",
                                     rel + (moved[0],), *part, detail))
        probe = lost if self.prefix == "tool.input." else gained
        for change in keep:
            if DIRECTION.get(change.rule[len(self.prefix):]) is not None:
                change.probe = probe
        self.changes[first:] = others + keep
        self.claims += [rel + (k,) for k in values.KEYWORDS]

    def _change(self, suffix, rel, old, new, detail):
        if suffix.startswith("enum."):
            detail = canonical(new.get("enum", new.get("const")) if suffix == "enum.widened"
                               else old.get("enum", old.get("const")))
        return self._made(suffix, rel, old, new, detail)

    def _respelled(self, change, verdict, rel):
        """A "changed" claim at a keyword of ``rel`` where the sets moved one
        way only, named so."""
        suffix = change.rule[len(self.prefix):]
        family = suffix.split(".")[0]
        name = {("type", "wider"): "type.widened", ("type", "narrower"): "type.narrowed",
                ("constraint", "wider"): "constraint.loosened",
                ("constraint", "narrower"): "constraint.tightened"}[(family, verdict)]
        keyword = change.schema_path.rsplit("/", 1)[1]
        return self._made(name, rel + (keyword,), change.old, change.new, keyword)

    def equivalent(self, old, new) -> bool:
        """``equivalent`` within this diff's bound on such checks."""
        if same(old, new):
            return True
        if self.equivalence_checks >= MAX_EQUIVALENCE_CHECKS:
            return False
        self.equivalence_checks += 1
        return equivalent(old, new, self.roots, self.nesting + 1)

    def _wrapped(self, old, new):
        """(old, new) with the plain side written as a combinator, when the
        other side is that combinator beside keywords the plain side has
        alike (annotations aside) and a branch of it is a partner of the
        plain side (``meaning.pair_branches``): ``S`` against ``anyOf:
        [S, T]``, ``{type: object, properties: P}`` against ``{type:
        object, oneOf: [...]}``. A plain side of several types (``type:
        [array, null]``) is one branch per type, since it is that union.
        None otherwise (the keywords are compared as they stand)."""
        for key in ("anyOf", "oneOf", "allOf"):
            if (key in old) == (key in new):
                continue
            plain, wrap = (old, new) if key in new else (new, old)
            if not isinstance(wrap[key], list):
                continue
            shared = set(wrap) - ANNOTATIONS - {key}
            if any(k not in plain or not same(plain[k], wrap[k]) for k in shared):
                continue
            core = {k: v for k, v in plain.items() if k not in ANNOTATIONS}
            branches = by_type(core) if key == "anyOf" else [core]
            olds, news = (branches, wrap[key]) if plain is old else (wrap[key], branches)
            if not pair_branches(list(olds), list(news), self.equivalent) and not any(
                    takes(x, y) or takes(y, x) for x in branches for y in wrap[key]):
                continue
            one = {k: v for k, v in plain.items() if k in ANNOTATIONS or k in shared}
            one[key] = branches
            return (one, new) if plain is old else (old, one)
        return None

    def _claim_targets(self):
        """Recursion targets (``$defs`` entries named "@...") are compared
        where their markers lead, not where they are kept."""
        defs = [root.get("$defs") if isinstance(root, dict) else None for root in self.roots]
        names = [set(d) if isinstance(d, dict) else set() for d in defs]
        if all(n.startswith("@") for n in names[0] | names[1]):
            self.claims.append(("$defs",))
        else:
            self.claims += [("$defs", n) for n in sorted(names[0] | names[1]) if n.startswith("@")]

    def _through_markers(self, old, new, rel) -> bool:
        """A marker on either side is compared as what it leads to, whatever
        its name. A pair compared already, or being compared further up (by
        markers, or as the expansion the recursion started from), is not
        compared again: the recursion repeats a comparison made once, whose
        changes are reported once, at their first place. True if the place
        was handled here."""
        a = marker_target(old, self.roots[0])
        b = marker_target(new, self.roots[1])
        if a is None and b is None:
            return False
        if same(old, new) and (a is None or same(a, b)):
            return True
        if self.expansions >= MAX_EXPANSIONS or len(self.assumed) >= MAX_EXPANSION_DEPTH:
            return False
        pair = (canonical(old) if a is not None else id(old), canonical(new) if b is not None else id(new))
        a = old if a is None else a
        b = new if b is None else b
        self.claims.append(rel)
        if pair in self.assumed or pair in self.compared or any(
                same(x, a) and same(y, b) for x, y in self.path):
            return True
        self.expansions += 1
        self.assumed.add(pair)
        self.kept += (a, b)  # alive while the walk lasts: their ids key the pairs
        try:
            self.compare(a, b, rel)
        finally:
            self.assumed.discard(pair)
            self.compared.add(pair)
        return True

    def _unchanged(self, old, new) -> bool:
        """Equal subtrees hold no change, unless they hold a marker whose
        target differs between the sides (then the walk goes on to it)."""
        if not same(old, new):
            return False
        if not self.dirty:
            return True
        text = canonical(old)
        return not any(marker in text for marker in self.dirty)


def _dirty_markers(old_root, new_root) -> tuple:
    """The marker texts (``$ref`` values) whose targets differ between the
    two sides although named alike."""
    if not isinstance(old_root, dict) or not isinstance(new_root, dict):
        return ()
    # ("#" marks the root: its pair is the walk's first, compared anyway)
    found = []
    defs_a, defs_b = old_root.get("$defs"), new_root.get("$defs")
    if isinstance(defs_a, dict) and isinstance(defs_b, dict):
        for name in sorted(defs_a.keys() & defs_b.keys()):
            if name.startswith("@") and not same(defs_a[name], defs_b[name]):
                escaped = name.replace("~", "~0").replace("/", "~1")
                found.append(canonical("#/$defs/" + escaped))
    return tuple(found)


# Rules that say nothing about which values validate.
ANNOTATION_RULES = ("description.changed", "default.changed", "deprecated.added",
                    "deprecated.removed", "dialect.changed", "annotation.changed")


# Equivalence checks one schema diff may make (each a walk of its own), and
# how deep such walks may nest: a check inside a recursive schema's
# expansion asks again inside its own (mcp-z-mcp-pdf 3.2.1's pdf-layout),
# and each walk has bounds of its own.
MAX_EQUIVALENCE_CHECKS = 200
MAX_EQUIVALENCE_NESTING = 12


def equivalent(old, new, roots=(None, None), nesting=0) -> bool:
    """Do two normalised schemas accept the same values? True when the walk
    and the net between them find nothing but annotations (recursion
    compared by what it leads to; ``roots``: where each side's markers
    lead). Sound, not complete: False means "not shown equivalent"."""
    if same(old, new):
        return True
    if nesting >= MAX_EQUIVALENCE_NESTING:
        return False
    probe = _Walk("input", None, "", *roots)
    probe.nesting = nesting
    probe.compare(old, new, ())
    return all(c.rule.endswith(ANNOTATION_RULES) for c in probe.changes)


def moot(old, new) -> set:
    """Keywords that changed but act only on types one side does not admit
    (a ``minimum`` added where a string became an integer, the properties
    of what is no longer an object): the type change is the whole story."""
    kinds_a, kinds_b = type_set(old.get("type", MISSING)), type_set(new.get("type", MISSING))
    if kinds_a is False or kinds_b is False or kinds_a == kinds_b:
        return set()
    return {k for k in (old.keys() | new.keys()) & ACTS_ON.keys()
            if not same(old.get(k, MISSING), new.get(k, MISSING))
            and not (admits(kinds_a, ACTS_ON[k]) and admits(kinds_b, ACTS_ON[k]))}


def admits(kinds, acts_on) -> bool:
    return kinds is None or any(t in kinds for t in acts_on) or (
        "integer" in kinds and "number" in acts_on)


def by_type(core):
    """A schema of several types as one schema per type, each with the
    keywords that act on its type (``type: [array, null], items: X`` is
    ``[{type: array, items: X}, {type: null}]``); ``[core]`` if it is not
    one such."""
    kinds = type_set(core.get("type", MISSING))
    if not kinds or len(kinds) < 2 or not set(core) <= set(ACTS_ON) | {"type", "enum"}:
        return [core]
    out = []
    for kind in sorted(kinds):
        branch = {"type": kind}
        for key, value in core.items():
            if key == "enum":
                values = [v for v in value if of_types(v, {kind})] if isinstance(value, list) else None
                if values is None:
                    return [core]
                if not values:
                    branch = None
                    break
                branch["enum"] = values
            elif key != "type" and kind in ACTS_ON[key]:
                branch[key] = value
        if branch is not None:
            out.append(branch)
    return out
