"""A diff with its policy applied: what every report renders."""

from pipeline import ENGINE_NAME, __version__
from pipeline.engine import diff
from pipeline.engine.policy import Policy, grade, summary

FORMAT = "mcpdelta.diff/v1"


class DiffResult:
    def __init__(self, old: dict, new: dict, policy: Policy | None = None,
                 old_source: str = "old", new_source: str = "new"):
        self.old, self.new = old, new
        self.old_source, self.new_source = old_source, new_source
        self.policy = policy or Policy()
        self.changes = self.policy.apply(diff(old, new))
        self.summary = summary(self.changes)
        self.grade = grade(self.changes)
        self.verdict = self.policy.verdict(self.changes)

    @property
    def fail_on(self) -> str:
        return self.policy.fail_on

    @property
    def exit_code(self) -> int:
        return 1 if self.verdict == "fail" else 0

    def as_json(self) -> dict:
        from pipeline.contract import manifest_digest  # digests cost; only JSON pays

        return {
            "format": FORMAT,
            "engine": {"name": ENGINE_NAME, "version": __version__},
            "old": {"digest": manifest_digest(self.old)},
            "new": {"digest": manifest_digest(self.new)},
            "changes": [c.as_json() for c in self.changes],
            "summary": self.summary,
            "grade": self.grade,
            "fail_on": self.fail_on,
            "verdict": self.verdict,
        }
