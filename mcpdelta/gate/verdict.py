"""The gate: which changes fail the build, once the policy has spoken.

The policy (``mcpdelta.engine.policy``) sets severities, suppressions and the
failure threshold. Two project decisions then move the verdict, and only
the verdict:

- an approved change (``mcpdelta.gate.approvals``) never fails the build, and
  an expired approval fails again;
- with ``--fail-on-security``, a change a judge flagged as security-relevant
  fails the build whatever its severity.

Neither touches a severity, the grade, or the list of changes. Every report
asks ``of(result)`` what each change's standing is.
"""


class Gate:
    def __init__(self, marks=None, approvals=None, fail_on_security: bool = False):
        self.marks = marks or {}  # {change: approvals.Mark}
        self.approvals = approvals  # the Approvals file in use, or None
        self.fail_on_security = fail_on_security

    def mark(self, change):
        """The approval that names ``change`` (approved or expired), or None."""
        return self.marks.get(change)

    def approved(self, change) -> bool:
        mark = self.marks.get(change)
        return mark is not None and not mark.expired

    def fails(self, policy, change) -> bool:
        """Does this change fail the build?"""
        if change.suppressed or self.approved(change):
            return False
        return policy.fails(change) or (self.fail_on_security and security_relevant(change))

    def counts(self, changes) -> dict:
        return {"approved": sum(1 for c in changes if self.approved(c)),
                "expired": sum(1 for c in changes if c in self.marks and self.marks[c].expired),
                "security": sum(1 for c in changes if not c.suppressed and security_relevant(c))}


_OPEN = Gate()


def of(result) -> Gate:
    """The gate closed over ``result``, or the open one (policy alone)."""
    return getattr(result, "gate", None) or _OPEN


def fails(result, change) -> bool:
    return of(result).fails(result.policy, change)


def close(result, approvals=None, fail_on_security: bool = False, today=None):
    """Mark ``result``'s approved changes and set its verdict from the gate."""
    marks = approvals.marks(result, today) if approvals is not None else {}
    result.gate = Gate(marks, approvals, fail_on_security)
    result.verdict = "fail" if any(result.gate.fails(result.policy, c) for c in result.changes) else "pass"
    return result


def security_notes(change) -> list:
    """The judge notes on ``change`` that flag it security-relevant."""
    return [n for n in change.advisory if isinstance(n, dict) and n.get("security_relevant")]


def security_relevant(change) -> bool:
    return bool(security_notes(change))
