"""Policy: applied after the diff, never inside it.

Profiles, severity overrides, ignores and the failure threshold turn raw
changes into effective severities, suppressions, a verdict and a grade.
Precedence: command line > config file > profile > catalog.
"""

import fnmatch

from mcpdelta.engine.catalog import (
    BREAKING, DOCUMENTATION, NON_BREAKING, POTENTIALLY_BREAKING, RANK, RULES, SEVERITIES,
)
from mcpdelta.errors import InputError

PROFILES = ("strict", "balanced", "advisory")
NEVER = "never"
THRESHOLDS = SEVERITIES + (NEVER,)


class Ignore:
    __slots__ = ("rule", "entity", "reason")

    def __init__(self, rule=None, entity=None, reason=None):
        self.rule = rule
        self.entity = entity
        self.reason = reason

    def matches(self, change) -> bool:
        if self.rule is not None and not fnmatch.fnmatchcase(change.rule, self.rule):
            return False
        if self.entity is not None:
            return change.entity is not None and fnmatch.fnmatchcase(change.entity, self.entity)
        return True


class Policy:
    """What a project decided about severities. Built from the config file and
    the command line; the engine's raw output never depends on it."""

    def __init__(self, profile=None, fail_on=None, overrides=None, ignores=(),
                 cli_profile=None, cli_fail_on=None, cli_overrides=None, witness="BREAKING"):
        self.profile = cli_profile or profile or "balanced"
        # the lowest severity that gets a witness (evidence only), or never
        self.witness = witness
        self.overrides = dict(overrides or {})
        self.overrides.update(cli_overrides or {})
        self.ignores = list(ignores)
        self.fail_on = cli_fail_on or fail_on or (NEVER if self.profile == "advisory" else BREAKING)

    def severity(self, change) -> str:
        if change.rule in self.overrides:
            return self.overrides[change.rule]
        if self.profile == "strict" and change.default_severity == POTENTIALLY_BREAKING:
            return BREAKING
        return change.default_severity

    def apply(self, changes) -> list:
        """Set each change's effective severity and suppression; return them."""
        for change in changes:
            change.severity = self.severity(change)
            for ignore in self.ignores:
                if ignore.matches(change):
                    change.suppressed = True
                    change.suppressed_reason = ignore.reason or f"ignored by config (rule {ignore.rule or '*'}, entity {ignore.entity or '*'})"
                    break
        return changes

    def fails(self, change) -> bool:
        """Is this change at or above the failure threshold?"""
        return (not change.suppressed and self.fail_on != NEVER
                and RANK[change.severity] >= RANK[self.fail_on])

    def verdict(self, changes) -> str:
        return "fail" if any(self.fails(c) for c in changes) else "pass"


# opens the witness note of a schema change the engine called BREAKING that no
# witness nor named reason bore out (reported POTENTIALLY_BREAKING)
UNPROVEN = "unproven: "


def summary(changes) -> dict:
    counts = {s: 0 for s in SEVERITIES}
    suppressed = unproven = 0
    for change in changes:
        if change.suppressed:
            suppressed += 1
        else:
            counts[change.severity] += 1
            unproven += bool(change.witness_note and change.witness_note.startswith(UNPROVEN))
    counts["suppressed"] = suppressed
    counts["unproven"] = unproven
    return counts


def grade(changes, movement: bool = False) -> str:
    """major / minor / patch / none, from the unsuppressed changes; any
    contract movement at all (suppressed changes, a digest that moved) is
    at least a patch."""
    live = {c.severity for c in changes if not c.suppressed}
    if BREAKING in live:
        return "major"
    if POTENTIALLY_BREAKING in live or NON_BREAKING in live:
        return "minor"
    if DOCUMENTATION in live or changes or movement:
        return "patch"
    return "none"


# --- parsing policy from text -------------------------------------------

def parse_severity(value, where: str, allow_never: bool = False) -> str:
    choices = THRESHOLDS if allow_never else SEVERITIES
    text = str(value).strip()
    for choice in choices:
        if text.upper().replace("-", "_") == choice.upper():
            return choice
    raise InputError(where, f"unknown severity {text!r} (expected one of {', '.join(choices)})")


def parse_rule(value, where: str, allow_glob: bool = False) -> str:
    text = str(value).strip()
    if text in RULES:
        return text
    if allow_glob and any(ch in text for ch in "*?[") and any(
            fnmatch.fnmatchcase(r, text) for r in RULES):
        return text
    raise InputError(where, f"unknown rule id {text!r} (see `mcpdelta rules`)")


def parse_override(text: str) -> tuple:
    """``RULE=SEVERITY`` from the command line."""
    if "=" not in text:
        raise InputError("--severity-override", f"expected RULE=SEVERITY, got {text!r}")
    rule, _, severity = text.partition("=")
    where = f"--severity-override {text}"
    return parse_rule(rule, where), parse_severity(severity, where)
