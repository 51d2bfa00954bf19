"""The advisory note: the one shape a judge leaves on a change.

A note is a plain dict, appended to ``Change.advisory`` and printed as is
in ``--format json``. It has exactly these keys, always present:

``judge``
    The judge's name (its ``name`` in the config, else ``model@host``), or
    ``"jury"`` for the combined note written when two or more judges are
    configured.
``verdict``
    One of :data:`VERDICTS`:

    - ``meaning_changed``: the meaning, the selection intent or the side
      effects the text describes moved.
    - ``equivalent``: the same meaning in other words.
    - ``needs_confirmation``: (jury only) the judges split; a human decides.
    - ``judge_error``: the judge failed (HTTP error after retries, timeout,
      a malformed answer); ``summary`` says how. Other judges still count.
    - ``budget_exhausted``: the judge's token budget could not cover this
      call, so it was not asked. Nothing was spent.
``security_relevant``
    ``True`` when the judge sees a rug-pull or an instruction aimed at the
    model in the new text (tool poisoning). For the jury: any judge said so.
``confidence``
    0.0 to 1.0. For one judge: how far its score sits from the fence,
    ``|2 * score - 1|``. For the jury: ``|mean(2 * score - 1)|`` over the
    judges that answered, so agreement raises it and a split cancels it out.
    0.0 for ``judge_error`` and ``budget_exhausted``.
``summary``
    One line of text (at most 300 characters), the judge's own reason or
    the failure.
``prompt_version``
    The version of the prompt template that produced the note.

A note has no severity and no field that a report could mistake for one:
no model participates in severity.
"""

MEANING_CHANGED = "meaning_changed"
EQUIVALENT = "equivalent"
NEEDS_CONFIRMATION = "needs_confirmation"
JUDGE_ERROR = "judge_error"
BUDGET_EXHAUSTED = "budget_exhausted"

VERDICTS = (MEANING_CHANGED, EQUIVALENT, NEEDS_CONFIRMATION, JUDGE_ERROR, BUDGET_EXHAUSTED)
NOTE_KEYS = ("judge", "verdict", "security_relevant", "confidence", "summary", "prompt_version")
JURY = "jury"
SUMMARY_LIMIT = 300


def one_line(text, limit: int = SUMMARY_LIMIT) -> str:
    """Collapse whitespace and control characters; cut to ``limit``."""
    text = " ".join("".join(ch if ch.isprintable() else " " for ch in str(text)).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def make_note(judge: str, verdict: str, *, security_relevant: bool = False,
              confidence: float = 0.0, summary: str = "", prompt_version: str) -> dict:
    """Build a note; the only place a note dict is made."""
    if verdict not in VERDICTS:
        raise ValueError(f"unknown verdict {verdict!r}")
    return {
        "judge": judge,
        "verdict": verdict,
        "security_relevant": bool(security_relevant),
        "confidence": round(min(1.0, max(0.0, float(confidence))), 3),
        "summary": one_line(summary),
        "prompt_version": prompt_version,
    }
