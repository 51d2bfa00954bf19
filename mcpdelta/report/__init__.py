"""Renderings of a DiffResult. Each format is a module with ``render(result)``."""

import importlib

FORMATS = ("text", "json", "markdown", "sarif", "github", "junit", "changelog")


def render(fmt: str, result, **options) -> str:
    module = importlib.import_module(f"mcpdelta.report.{fmt}_format")
    return module.render(result, **options)


def groups(result):
    """Changes grouped by entity, most severe group first, most severe change
    first inside each group; server-level changes form the group ``None``."""
    from mcpdelta.engine.catalog import RANK

    by_entity = {}
    for change in result.changes:
        by_entity.setdefault(change.entity, []).append(change)

    def worst(changes):
        live = [RANK[c.severity] for c in changes if not c.suppressed]
        return max(live, default=0)

    for changes in by_entity.values():
        changes.sort(key=lambda c: (c.suppressed, -RANK[c.severity], c.path, c.rule))
    order = sorted(by_entity, key=lambda e: (-worst(by_entity[e]), e is not None, e or ""))
    return [(entity, by_entity[entity]) for entity in order]


def headline(result) -> str:
    """One line: how many changes of each severity, or why there are none."""
    total = len(result.changes)
    suppressed = result.summary["suppressed"]
    if total == 0:
        return "no changes" if result.grade == "none" else "no classified changes, but the contract digest moved"
    if suppressed == total:
        return f"all {total} changes suppressed" if total > 1 else "the only change is suppressed"
    parts = severity_counts(result.summary)
    text = f"{total - suppressed} change{'s' if total - suppressed != 1 else ''} ({parts})"
    if suppressed:
        text += f", {suppressed} suppressed"
    return text + gate_counts(result)


def severity_counts(summary) -> str:
    """``5 BREAKING, 3 POTENTIALLY_BREAKING (2 unproven)``: the unsuppressed
    changes by severity; unproven ones are BREAKING claims no proof bore out."""
    from mcpdelta.engine.catalog import POTENTIALLY_BREAKING, SEVERITIES

    parts = []
    for severity in SEVERITIES:
        if summary.get(severity):
            unproven = summary.get("unproven", 0) if severity == POTENTIALLY_BREAKING else 0
            parts.append(f"{summary[severity]} {severity}" + (f" ({unproven} unproven)" if unproven else ""))
    return ", ".join(parts)


def gate_counts(result) -> str:
    """``, 2 approved, 1 approval expired, 1 security-relevant``: what the
    gate (approvals, judges' security flags) made of the changes; '' for none."""
    from mcpdelta.gate.verdict import of

    counts = of(result).counts(result.changes)
    words = {"approved": "approved", "expired": "approval{s} expired", "security": "security-relevant"}
    return "".join(f", {n} {words[k].format(s='s' if n != 1 else '')}" for k, n in counts.items() if n)
