"""The behavioural dimension: what the same probe call returned, old and new.

A manifest's top-level ``probes`` list holds one entry per probe call made at
capture time: ``{name, tool, arguments, outcome, shape, result}``
(``outcome`` one of result, tool_error, protocol_error, timeout; ``shape`` the
fingerprint of ``result``, see ``fingerprint.py``; ``unavailable`` when the
server did not list the tool). Probes are matched by name and compared only
when both sides ran them; an unavailable probe counts as none. Responses are compared
covariantly, like an output schema: the caller reads them. A shape change is
reported; a value-only change is not.

Null carries no type information here: a field that was null in one run and
a string in the other is a value that varied, not a type that changed.
"""

from mcpdelta.engine.change import Change, pointer
from mcpdelta.engine.equality import same
from mcpdelta.engine.fingerprint import result_shape, types_of

OUTCOMES = ("result", "tool_error", "protocol_error", "timeout", "unavailable")


def _shape_of(probe: dict) -> dict:
    """The stored shape, or the shape of the stored result (a hand-made
    manifest may carry only one of them)."""
    if isinstance(probe.get("shape"), dict) and "content" in probe["shape"]:
        return probe["shape"]
    return result_shape(probe.get("result"))


def fingerprint(probe: dict) -> dict:
    """What of a probe is contract: the call, its outcome, its response's shape."""
    return {"tool": probe.get("tool"), "arguments": probe.get("arguments"), "outcome": _outcome(probe),
            "shape": _shape_of(probe) if _outcome(probe) == "result" else None}


def _outcome(probe: dict) -> str:
    outcome = probe.get("outcome")
    if outcome == "result" and isinstance(probe.get("result"), dict) and probe["result"].get("isError") is True:
        return "tool_error"
    return outcome if outcome in OUTCOMES else "protocol_error"


def diff_probes(old_list, new_list, new_tools, changes) -> None:
    old = {p["name"]: p for p in old_list if p.get("outcome") != "unavailable"}
    new = {p["name"]: p for p in new_list if p.get("outcome") != "unavailable"}
    for name in sorted(old.keys() - new.keys()):
        probe = old[name]
        changes.append(Change("tool.behaviour.probe.removed", probe.get("tool"), pointer("probes", name),
                              {"tool": probe.get("tool"), "arguments": probe.get("arguments")}, None,
                              where=name))
    for name in sorted(old.keys() & new.keys()):
        if not same(old[name], new[name]):  # the same call, answered alike: no change
            _probe(name, old[name], new[name], new_tools, changes)


def _probe(name, old, new, new_tools, changes) -> None:
    tool = new.get("tool") or old.get("tool")
    base = pointer("probes", name)
    was, now = _outcome(old), _outcome(new)
    if was == "result" and now != "result":
        changes.append(Change("tool.behaviour.error.started", tool, base + "/outcome", was, now,
                              where=name, detail=_error_text(new)))
        return
    if was != "result" and now == "result":
        changes.append(Change("tool.behaviour.error.stopped", tool, base + "/outcome", was, now, where=name))
    if was != "result" or now != "result":
        return
    a, b = _shape_of(old), _shape_of(new)
    report = _Reporter(tool, name, base + "/response", changes)
    for kind in sorted(a["content"].keys() - b["content"].keys()):
        report("tool.behaviour.content.removed", f"/content/{kind}", kind, None)
    for kind in sorted(b["content"].keys() - a["content"].keys()):
        report("tool.behaviour.content.added", f"/content/{kind}", None, kind)
    for kind in sorted(a["content"].keys() & b["content"].keys()):
        x, y = a["content"][kind], b["content"][kind]
        if "json" in x and "json" not in y:
            report("tool.behaviour.type.changed", f"/content/{kind}", "JSON text", "plain text")
        elif "json" in x:
            _compare(x["json"], y["json"], f"/content/{kind}", report)
    if "structuredContent" in a and "structuredContent" not in b:
        report("tool.behaviour.content.removed", "/structuredContent", "structuredContent", None)
    elif "structuredContent" not in a and "structuredContent" in b:
        report("tool.behaviour.content.added", "/structuredContent", None, "structuredContent")
    elif "structuredContent" in a:
        _compare(a["structuredContent"], b["structuredContent"], "/structuredContent", report)
    _conformance(old, new, new_tools.get(tool), report)


def _error_text(probe) -> str:
    result = probe.get("result")
    if isinstance(result, dict):
        for block in result.get("content") or []:
            if isinstance(block, dict) and isinstance(block.get("text"), str):
                return block["text"][:120]
    error = probe.get("error")
    return str(error)[:120] if error else probe.get("outcome", "")


class _Reporter:
    def __init__(self, tool, probe, base, changes):
        self.tool, self.probe, self.base, self.changes = tool, probe, base, changes

    def __call__(self, rule, at, old, new):
        self.changes.append(Change(rule, self.tool, self.base + at, old, new, where=self.probe,
                                   detail=at or "/"))


def _compare(a, b, at: str, report) -> None:
    """Two shapes at one place in the response, covariantly."""
    if a is None or b is None:  # an empty array on one side: nothing is known
        return
    old_types = [t for t in types_of(a) if t != "null"]
    new_types = [t for t in types_of(b) if t != "null"]
    if not old_types or not new_types or "truncated" in old_types + new_types:
        return
    if not set(new_types) <= set(old_types):  # a narrowing is safe for a reader
        report("tool.behaviour.type.changed", at, " | ".join(old_types), " | ".join(new_types))
        return
    for kind in new_types:
        x, y = _member(a, kind), _member(b, kind)
        if kind == "object":
            _object(x, y, at, report)
        elif kind == "array":
            _compare(x["items"], y["items"], at + "/*", report)
        elif kind == "string" and x.get("format") and x.get("format") != y.get("format"):
            report("tool.behaviour.format.changed", at, x["format"], y.get("format") or "plain string")


def _member(s: dict, kind: str) -> dict:
    return next(m for m in s["anyOf"] if m["type"] == kind) if s["type"] == "anyOf" else s


def _object(a: dict, b: dict, at: str, report) -> None:
    pa, pb = a["properties"], b["properties"]
    for key in sorted(pa.keys() - pb.keys()):
        if key not in a["optional"]:  # a key some elements lacked already: readers cope
            report("tool.behaviour.field.removed", at + pointer(key), key, None)
    for key in sorted(pb.keys() - pa.keys()):
        report("tool.behaviour.field.added", at + pointer(key), None, key)
    for key in sorted(pa.keys() & pb.keys()):
        if key not in a["optional"] and key in b["optional"]:
            report("tool.behaviour.field.nowOptional", at + pointer(key), key, key)
        _compare(pa[key], pb[key], at + pointer(key), report)


def _conformance(old, new, tool, report) -> None:
    """structuredContent that no longer conforms to the tool's own declared
    outputSchema (the specification says it MUST)."""
    schema = tool.get("outputSchema") if isinstance(tool, dict) else None
    result = new.get("result")
    if not isinstance(schema, dict) or not isinstance(result, dict) or "structuredContent" not in result:
        return
    problem = _violation(schema, result["structuredContent"])
    if problem is None:
        return
    old_result = old.get("result")
    if isinstance(old_result, dict) and "structuredContent" in old_result \
            and _violation(schema, old_result["structuredContent"]) is not None:
        return  # it did not conform before either: not a change
    report("tool.behaviour.outputSchema.violated", "/structuredContent", None, problem)


def _violation(schema: dict, value) -> str | None:
    """The first validation error's text, or None when ``value`` conforms."""
    import jsonschema_rs

    try:
        validator = jsonschema_rs.validator_for(schema)
    except Exception:  # noqa: BLE001 - a schema the validator cannot compile proves nothing
        return None
    for error in validator.iter_errors(value):
        where = "/" + "/".join(str(p) for p in error.instance_path)
        return f"{error.message} at {where}"[:200]
    return None
