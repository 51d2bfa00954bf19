"""SARIF 2.1.0: rule metadata from the catalog, one result per change."""

import json

from mcpdelta import ENGINE_NAME, __version__
from mcpdelta.engine.catalog import RULES
from mcpdelta.gate.verdict import fails, of, security_relevant
from mcpdelta.safe import json_text

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def level(result, change) -> str:
    """error at or above the failure threshold, warning for other possible
    breaks, note for the rest."""
    if fails(result, change) or (not change.suppressed and change.severity == "BREAKING"
                                       and result.fail_on != "never"):
        return "error"
    if change.severity in ("BREAKING", "POTENTIALLY_BREAKING"):
        return "warning"
    return "note"


def _rule(rule) -> dict:
    default = {"BREAKING": "error", "POTENTIALLY_BREAKING": "warning", "PROSE": "warning"}
    return {
        "id": rule.id,
        "name": rule.id.replace(".", "_"),
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.summary},
        "help": {"text": rule.note},
        "defaultConfiguration": {"level": default.get(rule.severity, "note")},
        "properties": {"category": rule.category, **rule.as_json()},
    }


def _driver() -> dict:
    return {"name": ENGINE_NAME, "version": __version__, "semanticVersion": __version__,
            "rules": [_rule(rule) for rule in RULES.values()]}


def empty_log() -> dict:
    """A log of one run with no results (nothing was compared)."""
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": [{"tool": {"driver": _driver()}, "results": []}]}


def render(result, **_) -> str:
    ids = list(RULES)
    gate = of(result)
    results = []
    for change in result.changes:
        mark = gate.mark(change)
        entry = {
            "ruleId": change.rule,
            "ruleIndex": ids.index(change.rule),
            "level": level(result, change),
            "message": {"text": change.message},
            "locations": [{
                "physicalLocation": {"artifactLocation": {"uri": result.new_source}},
                "logicalLocations": [{"fullyQualifiedName": change.path,
                                      "name": change.entity or "server"}],
            }],
            "properties": {"severity": change.severity,
                           "default_severity": change.default_severity,
                           "entity": change.entity, "path": change.path,
                           "old": change.old, "new": change.new,
                           "witness": change.witness, "witness_note": change.witness_note,
                           "advisory": change.advisory, "security_relevant": security_relevant(change),
                           "approval": mark.as_json() if mark is not None else None},
        }
        if change.suppressed:
            entry["suppressions"] = [{"kind": "external", "justification": change.suppressed_reason}]
        elif mark is not None and not mark.expired:  # approved: still listed, not an alert
            entry["suppressions"] = [{"kind": "external", "status": "accepted",
                                      "justification": f"approved: {mark.approval.reason}"}]
        results.append(entry)
    log = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": _driver()},
            "results": results,
            "properties": {"grade": result.grade, "verdict": result.verdict,
                           "fail_on": result.fail_on, "summary": result.summary,
                           "fail_on_security": gate.fail_on_security},
        }],
    }
    return json_text(json.dumps(log, indent=2, ensure_ascii=False)) + "\n"
