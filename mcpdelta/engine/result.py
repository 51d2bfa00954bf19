"""A diff with its policy applied: what every report renders."""

from mcpdelta import ENGINE_NAME, __version__
from mcpdelta.engine import diff
from mcpdelta.engine.movement import moved
from mcpdelta.engine.policy import Policy, grade, summary

FORMAT = "mcpdelta.diff/v1"


class DiffResult:
    def __init__(self, old: dict, new: dict, policy: Policy | None = None,
                 old_source: str = "old", new_source: str = "new"):
        self.old, self.new = old, new
        self.old_source, self.new_source = old_source, new_source
        self.policy = policy or Policy()
        self.changes = diff(old, new)
        self.settle()

    def settle(self) -> None:
        """Effective severities, summary, grade and verdict from the changes'
        default severities (again, once proofs have moved one)."""
        self.policy.apply(self.changes)
        self.summary = summary(self.changes)
        # a contract that moved with no change to show still grades a patch;
        # only worth asking when nothing else decides
        self.grade = grade(self.changes, movement=not self.changes and moved(self.old, self.new))
        self.verdict = self.policy.verdict(self.changes)

    @property
    def fail_on(self) -> str:
        return self.policy.fail_on

    @property
    def exit_code(self) -> int:
        return 1 if self.verdict == "fail" else 0

    def digests(self) -> tuple:
        """(old, new) manifest digests; a value RFC 8785 cannot represent (a
        lone surrogate, a number beyond a double) is an InputError."""
        from mcpdelta.contract import CanonicalError  # digests cost: only who asks pays
        from mcpdelta.engine.digest import manifest_digest
        from mcpdelta.errors import InputError

        out = []
        for manifest, source in ((self.old, self.old_source), (self.new, self.new_source)):
            try:
                out.append(manifest_digest(manifest))
            except CanonicalError as exc:
                raise InputError(source, f"cannot compute the contract digest: {exc}") from None
        return tuple(out)

    def as_json(self) -> dict:
        old_digest, new_digest = self.digests()
        return {
            "format": FORMAT,
            "engine": {"name": ENGINE_NAME, "version": __version__},
            "old": {"digest": old_digest},
            "new": {"digest": new_digest},
            "changes": [c.as_json() for c in self.changes],
            "summary": self.summary,
            "grade": self.grade,
            "fail_on": self.fail_on,
            "verdict": self.verdict,
        }
