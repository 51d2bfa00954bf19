"""The proof of one schema change, a chain: construct -> search -> shrink -> confirm.

``prove`` opens a ``Job`` (the change, its side, where it lives, the judges
of both schemas, the change's meter and limits) and passes it down the
chain, each step reading and setting the job's state (``found``, ``loose``,
``ignored``, ``tried``, ``searched``):

- ``by_construction``: candidates built at the change's place on the
  quick bases, then fuller ones, then bases inside the change's own union
  branch;
- ``only_formats``: a change no candidate shows unless ``format`` is read
  as an annotation has no witness to search for;
- ``by_search``: the seeded search, the last resort;
- ``shrink``: a clean witness made smaller, unless construction built it
  minimal;
- ``confirm``: the witness, named with the validator that confirmed it, or
  why there is none.

A step that ends the proof early (its budget spent, a format-only change)
returns the note. Every candidate is graded by ``Job.grade``: 2 when the
accepting side takes it, the rejecting side refuses it, and every refusal
comes from the changed keyword at the changed place (clean); 1 when only
some do (loose); 0 otherwise.
"""

from mcpdelta.engine.change import short
from mcpdelta.engine.equality import clone
from mcpdelta.engine.keywords import keyword_at
from mcpdelta.engine.meaning import names_of
from mcpdelta.engine.normalise import normalise_schema
from mcpdelta.witness import construct, search, validate
from mcpdelta.witness.instance import MAX_COUNT, governing, longest_string, size
from mcpdelta.witness.location import COMBINATORS, PROPERTY_RULES, get, locate
from mcpdelta.witness.undo import undone
from mcpdelta.witness.validate import (
    FANCY_TEXT,
    SchemaUnusable,
    fancy_patterns,
    judge,
    own_judge,
    validator_label,
)

LOOSE_TAIL = 24  # candidates still tried for a clean witness once a loose one is found
# a witness to an upper count bound holds bound + 1 items, properties or
# characters, whatever ``max_size`` says: at most this many per unit
COUNT_BOUNDS = ("maxItems", "maxProperties", "maxContains", "maxLength")
UNIT_SIZE = 256

_NORMALISED = {}  # schema text -> normalised schema (one tool's schema serves several changes)
_PER_PAIR = {}    # (accepting, rejecting) schema text -> quick bases
_FANCY = {}       # schema text -> holds a backtracking pattern


def prove(change, side, suffix, rel, schemas, limits, meter):
    """(witness dict or None, note or None) for one schema change that
    needs working out (``attach.witness_for`` has answered the rest):
    ``schemas`` is (old raw, new raw, old text, new text), ``limits``
    (max_candidates, max_constructive, max_shrink, max_size), ``meter`` the
    change's count of candidates against its budget."""
    old_raw, new_raw, old_text, new_text = schemas
    # the accepting side and the rejecting one: an input change's old
    # schema accepts its witness, an output change's new one does
    a = (old_raw, old_text) if side == "input" else (new_raw, new_text)
    r = (new_raw, new_text) if side == "input" else (old_raw, old_text)
    try:
        judges = judge(*a), judge(*r)
        judges[0].accepts(None), judges[1].accepts(None)  # compile refs early
    except SchemaUnusable as exc:
        # no tool named: the result is remembered for any tool with these schemas
        return None, f"no witness: jsonschema-rs cannot evaluate this {side}Schema ({exc})"
    job = Job(change, side, suffix, rel, a, r, judges, limits, meter)
    if job.closed_to_removed:
        return None, _none_found(job)  # no value can show it: none is sought
    note = by_construction(job) or only_formats(job) or by_search(job)
    if note is not None:
        return None, note
    shrink(job)
    return confirm(job)


def _count_size(change, side, rel) -> int:
    """The size a witness to a new upper count bound may need (0 for any
    other change): the bound plus one units, each at most ``UNIT_SIZE``
    long, for bounds construction builds to (``instance.MAX_COUNT``)."""
    bound = change.new if side == "input" else change.old
    if keyword_at(rel) not in COUNT_BOUNDS or type(bound) is not int \
            or not 0 <= bound < MAX_COUNT:
        return 0
    return (bound + 1) * UNIT_SIZE


class Job:
    """One change's proof: what the change is and where it lives, the
    judges of both sides, its limits and meter, and what the chain has
    found so far."""

    def __init__(self, change, side, suffix, rel, a, r, judges, limits, meter):
        self.change, self.side, self.suffix, self.rel = change, side, suffix, rel
        (self.a_raw, self.a_text), (self.r_raw, self.r_text) = a, r
        self.a_judge, self.r_judge = judges
        self.a_safe, self.r_safe = _safe(self.a_judge), _safe(self.r_judge)
        self.max_candidates, self.max_constructive, self.max_shrink, self.max_size = limits
        self.shrinks_up_to = self.max_size  # a longer witness is kept as built
        self.max_size = max(self.max_size, _count_size(change, side, rel))
        self.meter = meter
        self.clock = meter.tick  # before each candidate: True once the change's budget is spent
        self.a_n = _normalised(self.a_raw, self.a_text)
        self.r_n = _normalised(self.r_raw, self.r_text)
        self.loc = locate(rel, self.a_n, self.r_n, suffix, new_side="r" if side == "input" else "a")
        try:
            self.r_norm_judge = own_judge(self.r_n)
        except SchemaUnusable:
            self.r_norm_judge = None
        # a witness shows this change when the change is needed to reject it
        # (the rejecting side with this change alone taken back accepts it)
        # or enough (the accepting side with this change alone made rejects
        # it); a value neither holds for shows another change
        by_values = change.probe is not None
        branch = isinstance(change.old, dict) or isinstance(change.new, dict)
        self.back = undone(self.r_n, self.a_n, rel, suffix, by_values, branch)
        self.made = undone(self.a_n, self.r_n, rel, suffix, by_values, branch)
        # each compiled when a value first asks: most changes are shown by taking them back
        self.proof_judges = {}
        # backtracking patterns are never run on long texts (jsonschema-rs too)
        self.fancy = _fancy(self.a_raw, self.a_text) or _fancy(self.r_raw, self.r_text)
        self.branch = self._moved_branch()
        # an input property removed where the new object still takes it as an
        # unknown key rejects nothing by itself: no value shows it but one that
        # taking it back lets through (the old object's closing shows another change)
        self.open_to_removed = (suffix == "property.removed" and side == "input" and len(self.loc.tail) == 2
                                and governing(self.loc.r_node, self.loc.tail[1]) is not False)
        # an output property the old object took as optional, removed where the
        # new object refuses the key, lets no new result through: every value
        # the old side rejects it rejects for another change
        self.closed_to_removed = (
            suffix == "property.removed" and side == "output" and len(self.loc.tail) == 2
            and governing(self.loc.a_node, self.loc.tail[1]) is False
            and str(self.loc.tail[1]) not in names_of(self.loc.r_node.get("required")
                                                      if isinstance(self.loc.r_node, dict) else None))
        # error paths name a number-like key ("007") by the integer it reads
        # as; a place whose name a sibling's shares that way ("7") is never credited
        self.attributions = [validate.as_reported(prefix) for prefix in self.loc.attributions
                             if not validate.ambiguous(self.r_n, prefix)]
        self.varied = construct.varied_path(self.loc, suffix)
        # what the chain found so far
        self.found = self.loose = self.ignored = None
        self.tried = self.searched = 0
        self.fills_left = 2  # completions tried for an ignored property's value
        self.quick, self.bases = [], None
        self.shrink_it = suffix not in PROPERTY_RULES  # a property witness on a quick base is minimal

    def _moved_branch(self):
        """A combinator branch removed (input) or added (output) is shown by
        a value of that branch: another branch's value proves another
        change. Its judge, or None."""
        change, loc = self.change, self.loc
        if not (loc.tail and loc.tail[-1] in COMBINATORS and len(loc.tail) == 1):
            return None
        moved = change.old if self.side == "input" else change.new
        if isinstance(moved, dict) and (change.new if self.side == "input" else change.old) is None:
            try:
                return own_judge(moved)
            except SchemaUnusable:
                return None
        return None

    def proof_judge(self, schema):
        """The judge of ``back`` or ``made``, or None when it cannot be built."""
        if id(schema) not in self.proof_judges:
            try:
                self.proof_judges[id(schema)] = own_judge(schema)
            except SchemaUnusable:
                self.proof_judges[id(schema)] = None
        return self.proof_judges[id(schema)]

    def grade(self, value) -> int:
        """2: the old side accepts, the new side rejects, and every rejection
        comes from the changed keyword at the changed place (clean); 1: one
        of them does (loose); 0: no."""
        try:
            if size(value) > self.max_size or (self.fancy and longest_string(value) > FANCY_TEXT) \
                    or not self.a_judge.accepts(value) or self.r_judge.accepts(value):
                return 0
            if self.branch is not None and not self.branch.accepts(
                    get(value, self.loc.hops) if self.loc.hops else value):
                return 0
            shown = None  # None: the schemas cannot say
            back = None if self.back is None or self.made is None else self.proof_judge(self.back)
            if back is not None and back.accepts(value):
                shown = True  # the change is needed to reject it
            elif self.open_to_removed:
                return 0
            elif back is not None and self.proof_judge(self.made) is not None:
                shown = not self.proof_judge(self.made).accepts(value)  # or enough
                if not shown:
                    return 0  # it shows another change
        except (SchemaUnusable, ValueError, TypeError, RecursionError):
            return 0
        if self.r_norm_judge is None:
            return 2
        try:
            top, every = self.r_norm_judge.error_paths(value)
        except Exception:  # a cyclic $ref the normaliser left by name
            return 2
        if top and all(self.attributed(p) for p in top):
            return 2
        # shown by taking the change back or making it alone, whatever keyword
        # the errors name (a closed object's, for a property it now requires)
        return 1 if shown or any(self.attributed(p) for p in every) else 0

    def attributed(self, path) -> bool:
        path = validate.as_reported(path)
        return any(path[:len(prefix)] == prefix for prefix in self.attributions)

    def stuck(self, judge, value, counts=lambda path: False) -> bool:
        """Whether ``judge`` rejects ``value`` for an error (other than those
        ``counts``) that no other candidate of its group changes, so it
        rejects them all alike: the new required property a removed one's
        loose witness lacks, an old required one every candidate lacks."""
        try:
            errors = judge.top_errors(value)
        except Exception:
            return False
        return any(not counts(validate.schema_path(e)) and validate.unchanged_by(e, self.varied)
                   for e in errors)


# --- construct ------------------------------------------------------------------

def by_construction(job):
    """Candidates built at the change's place: on the quick bases first,
    then, if they witness nothing, on fuller bases, then on bases inside
    the change's own union branch. None, or the note when the change's
    budget ran out."""
    job.quick = clone(_quick_bases(job))
    phases = [job.quick] if job.quick else []
    phases.append(None)  # the fuller bases, built only if the quick ones witness nothing
    if job.loc.branched:
        phases.append("branch")  # then bases inside the change's own union branch
    for phase in phases:
        if phase is None or phase == "branch":
            job.shrink_it = True
            if job.found is not None or job.loose is not None or job.ignored is not None:
                break
            if phase is None:
                job.bases = construct.bases(job.a_n, job.r_n, job.a_safe, job.r_safe,
                                            job.a_judge.top_errors)
            else:
                inside = construct.branch_bases(job.loc, job.quick + job.bases, job.a_safe)
                if not inside:
                    break  # the search starts from the fuller bases
                job.bases = inside
        else:
            job.bases = phase
        if _ran_out_on_bases(job):
            return _cut_short(job)
        if job.found is not None:
            break
    return None


def _quick_bases(job):
    key = (job.a_text, job.r_text)
    quick = _PER_PAIR.get(key)
    if quick is None:
        quick = construct.quick_bases(job.a_n, job.r_n, job.a_safe, job.r_safe)
        if len(_PER_PAIR) >= 512:
            _PER_PAIR.clear()
        _PER_PAIR[key] = quick
    return quick


def _ran_out_on_bases(job) -> bool:
    """Tries the candidates of one phase's bases, until a clean witness, the
    phase's share of candidates, or the tail after a loose one; True when
    the change's budget ran out first."""
    change, loc = job.change, job.loc
    after_loose = job.tried + LOOSE_TAIL
    seen, left = set(), job.max_constructive
    for base in job.bases:
        dead, probed = set(), set()  # groups of this base given up, and looked into
        for group, candidate in construct.candidates(loc, job.suffix, base, left, seen=seen,
                                                      hints=(change.old, change.new), dead=dead,
                                                      probe=change.probe):
            if job.clock():
                return True
            job.tried += 1
            left -= 1
            grade = job.grade(candidate)
            if grade == 2:
                job.found = candidate
                break
            if grade == 1 and job.loose is None:
                # refused also for an old required property it lacks: filled in, it may show
                # its own change alone
                mended = construct.filled_at(candidate, loc, job.r_judge.top_errors)
                if mended is not None and job.grade(mended) == 2:
                    job.found = mended
                    break
                job.loose = candidate
                after_loose = job.tried + LOOSE_TAIL
                if job.r_norm_judge is not None and job.stuck(job.r_norm_judge, candidate,
                                                              job.attributed):
                    dead.add(group)  # no clean witness in this group; another may hold one
            elif grade == 0 and group not in probed and not job.a_safe(candidate):
                probed.add(group)
                if job.stuck(job.a_judge, candidate):
                    dead.add(group)  # the old side rejects every candidate of this group
            if job.loose is not None and job.tried >= after_loose:
                break  # a clean witness seldom comes late; the loose one stands
            if job.ignored is None and job.suffix == "property.removed":
                _ignored(job, candidate)
        if job.found is not None or left <= 0 or (job.loose is not None and job.tried >= after_loose):
            break
    return False


def _ignored(job, candidate):
    """Keep ``candidate`` as ``job.ignored`` when it carries the removed
    property and both sides accept it: the new side takes the old key as
    an unknown one."""
    if not (_present(candidate, job.loc) and job.a_safe(candidate)):
        return
    if job.r_safe(candidate):
        job.ignored = candidate
    elif job.fills_left > 0:  # the new side may want its new required ones beside it
        job.fills_left -= 1
        filled = construct.completed_at(candidate, job.loc, job.r_judge.top_errors)
        if filled is not None and job.a_safe(filled) and job.r_safe(filled):
            job.ignored = filled


def only_formats(job):
    """Before the search: a change only a format tells apart has no witness
    to find. Its note, or None."""
    if job.found is not None or job.loose is not None or (
            '"format"' not in job.a_text and '"format"' not in job.r_text):
        return None
    shown = _without_formats(job)
    if shown is None:
        return None
    return (f"format-only: {short(shown)} shows the change only where `format` is "
            "read as an annotation (the 2020-12 default); a validator that asserts "
            "formats takes it on neither side or on both")


def _without_formats(job):
    """A candidate that shows the change once ``format`` asserts nothing, or
    None: the constructive candidates again, judged with formats off."""
    try:
        a_judge = judge(job.a_raw, job.a_text, formats=False)
        r_judge = judge(job.r_raw, job.r_text, formats=False)
    except SchemaUnusable:
        return None
    a_safe, r_safe = _safe(a_judge), _safe(r_judge)
    for base in job.quick or [None]:
        for _, candidate in construct.candidates(job.loc, job.suffix, base, 100,
                                                 hints=(job.change.old, job.change.new)):
            if job.clock():
                return None
            if a_safe(candidate) and not r_safe(candidate):
                return candidate
    return None


# --- search ---------------------------------------------------------------------

def by_search(job):
    """The seeded search, when construction found neither a witness nor
    (for a removed input property) that the new side ignores it. None, or
    the note when a budget ran out."""
    if job.found is not None or job.loose is not None or (
            job.side == "input" and job.suffix == "property.removed" and job.ignored is not None):
        return None
    meter = job.meter
    if meter.search_limit is not None and meter.search_limit <= 0:
        meter.spent.append("search")  # cut short, so never remembered
        return _cut_short(job, search=True)
    job.shrink_it = True
    # no tool name in the seed: memoised results stay the same
    seed = search.seed_for(job.change.rule, list(job.rel), job.a_n, job.r_n)
    starts = job.bases if job.bases is not None else job.quick or [None]
    job.found, job.searched = search.search(lambda v: job.grade(v) == 2, job.a_n, job.r_n, starts,
                                            seed, job.max_candidates, meter.search_tick)
    if job.found is None and meter.spent:
        return _cut_short(job, search="search" in meter.spent)
    return None


# --- shrink and confirm ---------------------------------------------------------

def shrink(job):
    """A clean witness made smaller, each step still clean. A loose one is
    kept as built (shrinking adds stray errors), and so is one construction
    built minimal (a property witness on a quick base) and one built long to
    cross a count bound (each shrink step would copy all of it)."""
    if job.found is not None and job.shrink_it and size(job.found) <= job.shrinks_up_to:
        job.found = search.shrink(job.found, lambda v: job.grade(v) >= 2, job.max_shrink, job.clock)


def confirm(job):
    """(witness, None): the clean witness, else the loose one, as the
    validator confirmed it; or (None, why there is none)."""
    found = job.found if job.found is not None else job.loose
    if found is not None:
        return {"kind": "rejected" if job.side == "input" else "accepted", "value": _sorted(found),
                "validator": validator_label(job.a_judge, job.r_judge)}, None
    return None, _none_found(job)


def _none_found(job) -> str:
    rel, side, suffix, tried, searched = job.rel, job.side, job.suffix, job.tried, job.searched
    name = str(rel[-1]) if rel else ""
    if suffix == "schema.changed":
        return (f"unmodelled keyword {keyword_at(rel)!r}: reported because the engine "
                "does not model it (unmodelled means breaking); no value showing the "
                f"change was found within the bounds ({tried} constructed and "
                f"{searched} searched candidates)")
    if suffix == "property.removed" and side == "input" and job.ignored is not None:
        return (f"accepted but ignored: the new inputSchema still accepts {name!r} as an "
                "unknown key, so old calls that send it validate and the value is "
                "silently dropped; no validation witness exists")
    if suffix == "property.removed" and side == "output":
        return (f"no witness: every result the new schema accepts, the old one "
                f"accepted ({name!r} was optional); consumers that read it now find it "
                "missing")
    if job.change.default_severity == "NON_BREAKING":
        direction = ("every arguments object the old schema accepts, the new one accepts"
                     if side == "input" else
                     "every result the new schema accepts, the old one accepted")
        return f"none by nature: {direction} ({tried + searched} candidates checked)"
    return (f"no witness found within the bounds: {tried} constructed and {searched} "
            "searched candidates, none confirmed by the validator")


def _cut_short(job, search=False) -> str:
    budget = job.meter.budget
    if search:
        what = f"the per-change search budget of {budget.search} candidates"
    else:
        what = f"the per-change budget of {budget.change} candidates"
    return (f"no witness: cut short, {what} was spent ({job.tried} constructed and {job.searched} "
            "searched candidates tried, none confirmed)")


# --- helpers --------------------------------------------------------------------

def _safe(j):
    def accepts(value):
        try:
            return j.accepts(value)
        except Exception:  # SchemaUnusable
            return False
    return accepts


def _present(candidate, loc):
    name = str(loc.tail[1]) if len(loc.tail) > 1 else None
    holder = get(candidate, loc.hops) if loc.hops else candidate
    return isinstance(holder, dict) and name in holder


def _sorted(value):
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted(v) for v in value]
    return value


def _fancy(raw, text):
    if '"pattern' not in text:  # no pattern or patternProperties key: no walk
        return False
    found = _FANCY.get(text)
    if found is None:
        if len(_FANCY) >= 512:
            _FANCY.clear()
        found = _FANCY[text] = fancy_patterns(raw)
    return found


def _normalised(raw, text):
    if raw is None:
        return {}
    found = _NORMALISED.get(text)
    if found is None:
        if len(_NORMALISED) >= 512:
            _NORMALISED.clear()
        found = _NORMALISED[text] = normalise_schema(raw)[0]
    return found
