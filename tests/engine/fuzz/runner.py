"""Pairs, verdicts and disagreements.

A pair is (old, new) on one side: a seed and its mutant, in either order.
The oracle's verdict comes from values alone: drawn from both sides (see
``oracle``), each checked by python-jsonschema against both schemas. On
the input side a value old accepts and new rejects is a break; on the
output side, a value new accepts and old rejects. A confirmed witness the
engine offers joins the values (python-jsonschema, not the engine, decides
what it shows).

Disagreements:

- ``a-missed-break``: the oracle holds a break value, the engine reports no
  BREAKING change;
- ``b-unproven-break``: a BREAKING schema change whose witness
  python-jsonschema does not confirm, or with neither a witness nor a
  named reason (``mcpdelta.witness.evidence.NAMED_REASONS``);
- ``c-keep-reported``: an operator that keeps the values (and no value
  tells the sides apart either way) for which the engine reports a change
  other than prose (``*.description.changed``: models read it, whatever the
  values) or an annotation/dialect rule at DOCUMENTATION severity (or the
  dialect rule where the declared ``$schema`` moved: the engine names what
  moved): any other rule or severity moves the grade past patch. An operator
  that did change the values on that schema, with ``format`` read as an
  annotation or asserted, is counted as value-changing instead.
"""

import collections
import copy
import json
import random
import re
import signal
import sys
import time

from mcpdelta.errors import InputError

from tests.engine.fuzz import engine as E
from tests.engine.fuzz.operators import OPERATORS, at, places, replaced
from tests.engine.fuzz.oracle import Undrawable, accepts, closed, draw, validator
from tests.engine.fuzz.seeds import canonical

BREAKING, DOCUMENTATION = "BREAKING", "DOCUMENTATION"
CLASSES = ("a-missed-break", "b-unproven-break", "c-keep-reported", "engine-error")
NOTATION_RULES = (".dialect.changed", ".deprecated.added", ".deprecated.removed", ".annotation.changed")
SEED_TRIES = 40  # seeds tried per pair for one where the operator applies
DRAW_SECONDS = 2.0  # CPU for one draw, then the schema counts as skipped
ENGINE_SECONDS = 20.0  # CPU for one diff with its witnesses, then it is an engine error


SAFE_INTEGER = 2 ** 53 - 1


def _past_safe_integers(value) -> bool:
    if isinstance(value, dict):
        return any(map(_past_safe_integers, value.values()))
    if isinstance(value, list):
        return any(map(_past_safe_integers, value))
    return isinstance(value, int) and not isinstance(value, bool) and abs(value) > SAFE_INTEGER


class TimedOut(Exception):
    pass


class deadline:
    """A bound on a block in CPU seconds (SIGPROF: the same bound on a busy
    machine as on an idle one; main thread only)."""

    def __init__(self, seconds):
        self.seconds = seconds

    def __enter__(self):
        def ring(signum, frame):
            raise TimedOut(f"over {self.seconds:g} CPU s")
        def unraisable(info, hook=sys.unraisablehook):
            if not isinstance(info.exc_value, TimedOut):  # a ring a gc hook swallowed says nothing
                hook(info)
        self.previous = signal.signal(signal.SIGPROF, ring), sys.unraisablehook
        sys.unraisablehook = unraisable
        # it rings again every 0.1 s: a callback that swallows one ring (a gc hook) does not end the bound
        signal.setitimer(signal.ITIMER_PROF, self.seconds, 0.1)

    def __exit__(self, *exc):
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, self.previous[0])
        sys.unraisablehook = self.previous[1]
        return False


def pointer(place) -> str:
    return "".join("/" + str(k).replace("~", "~0").replace("/", "~1") for k in place)


# --- drawing -----------------------------------------------------------------

def focused(schema, place):
    """What the oracle draws from: ``schema`` closed (the convention), and along
    the instance path to ``place`` each property made required, optional
    siblings of a closed object dropped and arrays made non-empty, so the
    values reach the place. A path step into a combinator ends the focus."""
    out = closed(schema)
    node, steps = out, list(place)
    while steps and isinstance(node, dict):
        key = steps.pop(0)
        if key == "properties" and steps and isinstance(node.get("properties"), dict):
            name = steps.pop(0)
            required = [n for n in node.get("required", []) if isinstance(n, str)] \
                if isinstance(node.get("required"), list) else []
            if node.get("additionalProperties") is False:
                node["properties"] = {k: v for k, v in node["properties"].items()
                                      if k in required or k == name}
            if name not in required:
                node["required"] = [*required, name]
            node = node["properties"].get(name)
        elif key == "items" and isinstance(node.get("items"), dict):
            if node.get("maxItems", 1) >= 1 and node.get("minItems", 0) < 1:
                node["minItems"] = 1
            node = node["items"]
        elif key == "prefixItems" and steps and isinstance(node.get("prefixItems"), list):
            index = steps.pop(0)
            if node.get("maxItems", index + 1) >= index + 1 and node.get("minItems", 0) < index + 1:
                node["minItems"] = index + 1
            node = node["prefixItems"][index]
        else:
            break
    return out


def instance_steps(place):
    """The part of ``place`` that is an instance location: (schema prefix,
    steps into a value: property names and array indexes). A step into a
    combinator, ``$defs`` or ``additionalProperties`` ends it."""
    steps, i = [], 0
    while i < len(place):
        key = place[i]
        if key == "properties" and i + 1 < len(place):
            steps.append(place[i + 1])
            i += 2
        elif key == "items" and (i + 1 == len(place) or not isinstance(place[i + 1], int)):
            steps.append(0)
            i += 1
        elif key == "prefixItems" and i + 1 < len(place):
            steps.append(place[i + 1])
            i += 2
        else:
            break
    return tuple(place[:i]), steps


def standalone(root, node):
    """``node`` as a schema of its own: the root's definitions and dialect go
    with it, so its references and keywords read as they did in place."""
    out = dict(node)
    for key in ("$defs", "definitions", "$schema"):
        if key in root and key not in out:
            out[key] = root[key]
    return out


def embedded(base, steps, value):
    out = copy.deepcopy(base)
    node = out
    for step in steps[:-1]:
        node = node[step]
    node[steps[-1]] = value
    return out


class Draws:
    """Values drawn once per (schema, place): a seed recurs across pairs.

    A place inside a value (under properties, items, tuple slots) is drawn
    alone, from its own subschema, and each value set into a base value of
    the whole schema that reaches it: small schemas draw fast, and every
    value exercises the place."""

    def __init__(self, count, seed_value):
        self.count, self.seed_value, self.cache = count, seed_value, {}

    def _draw(self, schema, count):
        key = (canonical(schema), count)
        if key not in self.cache:
            if len(self.cache) > 4096:
                self.cache.clear()
            try:
                with deadline(DRAW_SECONDS):
                    self.cache[key] = draw(schema, count, self.seed_value)
            except (Undrawable, TimedOut, RecursionError) as exc:
                self.cache[key] = Undrawable(str(exc))
        found = self.cache[key]
        if isinstance(found, Undrawable):
            raise found
        return found

    def values(self, pair):
        """Values from both sides of ``pair``: (from old, from new)."""
        prefix, steps = instance_steps(pair.place)
        try:
            subs = [at(pair.old, prefix), at(pair.new, prefix)]
        except (KeyError, IndexError, TypeError):
            prefix, steps = (), []
        if not steps:
            return tuple(self._draw(focused(s, pair.place), self.count) for s in (pair.old, pair.new))
        base_schema = replaced(focused(pair.old, prefix), prefix, {"const": None})
        bases = [b for b in self._draw(base_schema, 2) if _reaches(b, steps)]
        if not bases:
            raise Undrawable("no base value reaches the place")
        return tuple([embedded(bases[i % len(bases)], steps, v)
                      for i, v in enumerate(self._draw(closed(standalone(root, sub)), self.count))]
                     for root, sub in zip((pair.old, pair.new), subs))


def _reaches(value, steps) -> bool:
    for step in steps[:-1]:
        if isinstance(step, str) and isinstance(value, dict) and step in value:
            value = value[step]
        elif isinstance(step, int) and isinstance(value, list) and len(value) > step:
            value = value[step]
        else:
            return False
    last = steps[-1]
    return (isinstance(last, str) and isinstance(value, dict)) or (
        isinstance(last, int) and isinstance(value, list) and len(value) > last)


# --- pairs -------------------------------------------------------------------

class Pair:
    def __init__(self, index, seed, operator, place, reverse, mutant):
        self.index, self.seed, self.operator, self.place = index, seed, operator, place
        self.reverse = reverse
        self.side = seed.side
        self.old, self.new = (mutant, seed.schema) if reverse else (seed.schema, mutant)

    @property
    def name(self):
        return self.operator.name + (" (reversed)" if self.reverse else "")


def make_pair(index, seeds, texts, seed_value, place_cache, candidates):
    """Pair ``index`` of the run: operators in turn, a seed and a place at
    random (its own generator: one pair can be replayed alone)."""
    operator = OPERATORS[index % len(OPERATORS)]
    rnd = random.Random(f"{seed_value}/{index}")
    if operator.name not in candidates:
        pattern = re.compile(operator.needs) if operator.needs else None
        candidates[operator.name] = [n for n, text in enumerate(texts) if not pattern or pattern.search(text)]
    pool = candidates[operator.name]
    for _ in range(SEED_TRIES if pool else 0):
        n = pool[rnd.randrange(len(pool))]
        seed = seeds[n]
        if n not in place_cache:
            place_cache[n] = places(seed.schema)
        fits = [p for p in place_cache[n] if operator.applies(at(seed.schema, p), seed.schema, p)]
        if not fits:
            continue
        place = rnd.choice(fits)
        mutant = operator.apply(seed.schema, place, rnd)
        if mutant is None or json.dumps(mutant) == json.dumps(seed.schema):  # key order counts here
            continue
        return Pair(index, seed, operator, place, rnd.random() < 0.5, mutant)
    return None


# --- verdicts ----------------------------------------------------------------

def _subschema(schema, place):
    try:
        return at(schema, place)
    except (KeyError, IndexError, TypeError):
        return schema


def _compact(change):
    return {k: change[k] for k in ("rule", "severity", "path", "witness", "witness_note")}


def judge(pair, draws):
    """(outcome, disagreements) for one pair; outcome is one of "skipped",
    "refused" (by the engine's manifest check), "changed" (a value-changing
    operator), "kept" (a value-keeping one, and no value tells the sides
    apart), "reclassified" (a value-keeping one that did change the values)."""
    try:
        old_check, new_check = validator(pair.old), validator(pair.new)
        old_formats, new_formats = validator(pair.old, formats=True), validator(pair.new, formats=True)
        from_old, from_new = draws.values(pair)
        values = [v for v in from_old if accepts(old_check, v)] + [v for v in from_new if accepts(new_check, v)]
    except Undrawable:
        return "skipped", []
    except Exception:  # a schema python-jsonschema cannot even load
        return "skipped", []
    try:
        with deadline(ENGINE_SECONDS):
            result = E.run_diff(pair.side, pair.old, pair.new)
    except InputError:
        return "refused", []
    except Exception as exc:  # the engine must not raise on a manifest it accepted
        return "changed", [record(pair, "engine-error", detail=f"{type(exc).__name__}: {exc}"[:300])]
    changes = result["changes"]
    witnesses = [c["witness"]["value"] for c in changes
                 if isinstance(c.get("witness"), dict) and "value" in c["witness"]]

    def old_only(v):
        return accepts(old_check, v) and not accepts(new_check, v)

    def new_only(v):
        return accepts(new_check, v) and not accepts(old_check, v)

    def apart(v):  # told apart where formats are asserted (the engine's validator asserts them)
        return accepts(old_formats, v) != accepts(new_formats, v)

    def old_only_formats(v):
        return accepts(old_formats, v) and not accepts(new_formats, v)

    def new_only_formats(v):
        return accepts(new_formats, v) and not accepts(old_formats, v)

    # a value holding an integer past JavaScript's safe ones tells no sides
    # apart: the engine reads zod's +-(2^53 - 1) bounds as notation
    # (engine/notation.py), since no JavaScript server reads such a number exactly
    pool = [v for v in values + witnesses if not _past_safe_integers(v)]
    narrowing = next((v for v in pool if old_only(v)), None)
    widening = next((v for v in pool if new_only(v)), None)
    differs = narrowing is not None or widening is not None or any(apart(v) for v in pool)
    break_value = narrowing if pair.side == "input" else widening
    # a witness is confirmed as format is read either way (tests.truth counts both)
    shows_break = (lambda v: old_only(v) or old_only_formats(v)) if pair.side == "input" else (
        lambda v: new_only(v) or new_only_formats(v))
    found = []
    breaking = [c for c in changes if c["severity"] == BREAKING]
    if break_value is not None and not breaking:
        found.append(record(pair, "a-missed-break", changes, value=break_value))
    for c in breaking:
        if "/inputSchema" not in c["path"] and "/outputSchema" not in c["path"]:
            continue
        witness = c.get("witness")
        if isinstance(witness, dict) and "value" in witness:
            if not shows_break(witness["value"]):
                found.append(record(pair, "b-unproven-break", changes, detail="witness not confirmed: "
                                    + c["path"]))
        elif not (c.get("witness_note") or "").startswith(E.NAMED_REASONS):
            found.append(record(pair, "b-unproven-break", changes,
                                detail=f"no witness, no named reason: {c['path']}: {c.get('witness_note')}"))
    if pair.operator.keeps and not differs:
        # a declared $schema that moved is a change the engine names (docs/rules.md)
        declared = pair.old.get("$schema") != pair.new.get("$schema")
        loud = [c for c in changes if not c["rule"].endswith(".description.changed") and not (
            c["rule"].endswith(NOTATION_RULES) and c["severity"] == DOCUMENTATION) and not (
            declared and c["rule"].endswith(".dialect.changed"))]
        if loud:
            found.append(record(pair, "c-keep-reported", changes,
                                detail=", ".join(sorted({f"{c['rule']} {c['severity']}" for c in loud}))))
    if pair.operator.keeps:
        return ("reclassified" if differs else "kept"), found
    return "changed", found


def record(pair, kind, changes=(), value=None, detail=None):
    return {
        "class": kind, "operator": pair.name, "keeps": pair.operator.keeps, "side": pair.side,
        "pair": pair.index, "origin": pair.seed.origin, "place": pointer(pair.place),
        "old": _subschema(pair.old, pair.place), "new": _subschema(pair.new, pair.place),
        "value": value, "detail": detail, "changes": [_compact(c) for c in changes],
    }


# --- a run ---------------------------------------------------------------------

class Report:
    def __init__(self):
        self.pairs = 0
        self.seconds = 0.0
        self.seeds = 0
        self.unplaced = 0  # pair numbers for which no seed had a place the operator fits
        self.outcomes = collections.Counter()
        self.per_operator = collections.defaultdict(collections.Counter)
        self.disagreements = []

    def as_json(self):
        return {"pairs": self.pairs, "seconds": round(self.seconds, 1), "seeds": self.seeds,
                "unplaced": self.unplaced, "outcomes": dict(self.outcomes),
                "operators": {k: dict(v) for k, v in sorted(self.per_operator.items())},
                "disagreements": self.disagreements}


def run(seeds, pairs, seed_value=1, values_per_side=15, max_schema_chars=None, progress=None):
    """Run ``pairs`` pairs over ``seeds`` (those at most ``max_schema_chars``
    long as JSON, when given)."""
    texts = [canonical(s.schema) for s in seeds]
    if max_schema_chars:
        kept = [n for n, text in enumerate(texts) if len(text) <= max_schema_chars]
        seeds, texts = [seeds[n] for n in kept], [texts[n] for n in kept]
    report, draws, place_cache, candidates = Report(), Draws(values_per_side, seed_value), {}, {}
    report.seeds = len(seeds)
    started = time.perf_counter()
    for index in range(pairs):
        pair = make_pair(index, seeds, texts, seed_value, place_cache, candidates)
        if pair is None:
            report.unplaced += 1
            continue
        outcome, found = judge(pair, draws)
        report.pairs += 1
        report.outcomes[outcome] += 1
        counts = report.per_operator[pair.operator.name]
        counts[outcome] += 1
        for item in found:
            counts[item["class"]] += 1
        report.disagreements.extend(found)
        if progress and (index + 1) % 500 == 0:
            progress(f"{index + 1} pairs, {len(report.disagreements)} disagreements, "
                     f"{time.perf_counter() - started:.0f} s")
    report.seconds = time.perf_counter() - started
    return report


def summary(report, shown=40) -> str:
    """Counts per operator, then the disagreements grouped by class and
    operator (at most ``shown`` of them in full)."""
    lines = [f"{report.pairs} pairs over {report.seeds} seeds in {report.seconds:.0f} s; "
             + ", ".join(f"{k} {v}" for k, v in sorted(report.outcomes.items()))
             + (f"; {report.unplaced} pair numbers with no seed that fits" if report.unplaced else "")]
    lines.append("operator (keeps or changes values): pairs by outcome, disagreements by class")
    for o in OPERATORS:
        counts = report.per_operator.get(o.name, {})
        lines.append(f"  {o.name} ({'keeps' if o.keeps else 'changes'}): "
                     + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    groups = collections.defaultdict(list)
    for d in report.disagreements:
        groups[(d["class"], d["operator"].split(" (")[0])].append(d)
    lines.append(f"{len(report.disagreements)} disagreements")
    left = shown
    for (kind, name), items in sorted(groups.items()):
        lines.append(f"[{kind}] {name}: {len(items)}")
        for d in items[:3]:
            if left <= 0:
                break
            left -= 1
            lines.append("    " + one_line(d))
    return "\n".join(lines)


def one_line(d) -> str:
    changes = "; ".join(f"{c['rule']} {c['severity']} {c['path']}"
                        + (" witness" if c["witness"] else f" ({(c['witness_note'] or '')[:60]})")
                        for c in d["changes"]) or "no changes"
    text = (f"pair {d['pair']} {d['side']} {d['operator']} at {d['place'] or '/'} of {d['origin']}: "
            f"old {json.dumps(d['old'], sort_keys=True)[:160]} new {json.dumps(d['new'], sort_keys=True)[:160]}"
            f" | engine: {changes[:300]}")
    if d["value"] is not None:
        text += f" | value {json.dumps(d['value'], sort_keys=True)[:120]}"
    if d["detail"]:
        text += f" | {d['detail'][:200]}"
    return text
