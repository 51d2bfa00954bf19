import json

from mcpdelta.safe import json_text


def render(result, **_) -> str:
    return json_text(json.dumps(as_json(result), indent=2, ensure_ascii=False)) + "\n"


def as_json(result) -> dict:
    """``mcpdelta.diff/v1``; with an approvals file in use each change also
    carries its ``fingerprint`` and ``approval``, and the document the file's
    ``approvals`` tally (stale entries included)."""
    from mcpdelta.gate.verdict import of

    doc = result.as_json()
    gate = of(result)
    if gate.fail_on_security:
        doc["fail_on_security"] = True
    if gate.approvals is not None:
        from mcpdelta.gate.approvals import fingerprint, server_name

        server = server_name(result)
        for change, out in zip(result.changes, doc["changes"]):
            mark = gate.mark(change)
            out["fingerprint"] = mark.fingerprint if mark is not None else fingerprint(change, server)
            out["approval"] = mark.as_json() if mark is not None else None
        counts = gate.counts(result.changes)
        doc["approvals"] = {"file": gate.approvals.path, "approved": counts["approved"],
                            "expired": counts["expired"],
                            "stale": [a.as_json() for a in gate.approvals.stale()]}
    return doc
