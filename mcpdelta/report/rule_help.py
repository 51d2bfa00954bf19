"""``mcpdelta rules RULE``: one rule explained, with an example pair and its output.

The examples are the engine's own rule cases (``tests/engine/cases``, carried
in the wheel): small named manifest pairs, each stating which rules it fires.
A rule's example is the smallest case that fires it, preferring a case
whose expectations are the whole diff.
"""

import fnmatch
import functools
import json
import re

from mcpdelta.engine.catalog import RULES
from mcpdelta.errors import InputError

DIRECTIONS = {
    "tool.input": "input schema, contravariant: the caller writes it, so tightening breaks callers",
    "tool.output": "output schema, covariant: the caller reads it, so loosening breaks callers",
}


def matching(patterns) -> list:
    """Rule ids matching any of ``patterns`` (ids or globs), in catalog order."""
    chosen = []
    for pattern in patterns:
        found = [r for r in RULES if fnmatch.fnmatchcase(r, pattern)]
        if not found:
            raise InputError(pattern, "no rule has this id or matches this glob (`mcpdelta rules` lists them)")
        chosen += found
    return list(dict.fromkeys(r for r in RULES if r in chosen))


@functools.cache
def _cases() -> tuple:
    """(name, text) of every rule case, read once."""
    from mcpdelta.resources import RULE_CASES

    return tuple((p.stem, p.read_text(encoding="utf-8")) for p in sorted(RULE_CASES.glob("*.yaml")))


def example(rule_id: str) -> dict | None:
    """The case chosen as ``rule_id``'s example (with ``name``), or None."""
    from mcpdelta.inputs import load_yaml

    fires = re.compile(r"rule:\s*" + re.escape(rule_id) + r"(?=[\s,}])")
    found = []
    for name, text in _cases():
        if not fires.search(text):  # most cases do not name the rule: skip the parse
            continue
        case = load_yaml(text, f"{name}.yaml")
        if any(want.get("rule") == rule_id for want in case.get("expect") or []):
            found.append(((not case.get("exact"), len(case["expect"]), len(text), name), name, case))
    if not found:
        return None
    _, name, case = min(found, key=lambda item: item[0])
    return {"name": name, **case}


def severity_text(rule) -> str:
    if rule.prose:
        return "DOCUMENTATION or POTENTIALLY_BREAKING (the prose classifier decides per change)"
    return rule.severity


def _result(case):
    from mcpdelta.engine.manifest import validate_manifest
    from mcpdelta.engine.result import DiffResult
    from mcpdelta.witness import attach_witnesses

    result = DiffResult(validate_manifest(case["old"], "old"), validate_manifest(case["new"], "new"),
                        old_source="old", new_source="new")
    attach_witnesses(result, min_severity="BREAKING")
    return result


def explain(rule_id: str) -> str:
    """The text ``mcpdelta rules RULE`` prints for one rule."""
    from mcpdelta.report import render

    rule = RULES[rule_id]
    lines = [f"{rule.id}  ({severity_text(rule)})",
             f"  category:    {rule.category}"]
    if rule.category in DIRECTIONS:
        lines.append(f"  direction:   {DIRECTIONS[rule.category]}")
    lines += [f"  fires when:  {rule.summary}", f"  what to do:  {rule.note}"]
    case = example(rule_id)
    if case is None:
        return "\n".join(lines + ["  example:     none"]) + "\n"
    output = render("text", _result(case)).rstrip("\n").split("\n")
    output = [line for line in output if not line.startswith("(mcpdelta rules RULE")]
    lines += [f"  example:     {case['shows']} (case {case['name']})",
              "    old: " + json.dumps(case["old"], ensure_ascii=False, sort_keys=True),
              "    new: " + json.dumps(case["new"], ensure_ascii=False, sort_keys=True),
              "  output of mcpdelta diff old new:"]
    lines += [f"    {line}".rstrip() for line in output]
    return "\n".join(lines) + "\n"


def explain_json(rule_id: str) -> dict:
    out = RULES[rule_id].as_json()
    case = example(rule_id)
    if case is not None:
        result = _result(case)
        out["example"] = {"case": case["name"], "shows": case["shows"], "old": case["old"], "new": case["new"],
                          "changes": [c.as_json() for c in result.changes]}
    else:
        out["example"] = None
    return out
