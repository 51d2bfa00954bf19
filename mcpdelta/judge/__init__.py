"""Judges: advisory notes on prose changes.

Two kinds of judge: the offline member (``offline.py``, the ``jury`` extra:
a static-embedding model shipped in its wheel, no key, no network), on
wherever its extra is installed; and bring-your-own-key judges, each an
OpenAI-compatible chat-completions endpoint named in the ``judges:`` list of
the config file (see ``config.py``), which add to it. For every change
the engine already produced whose rule is a prose rule (descriptions,
titles, instructions, argument and property descriptions, widget
descriptions) each judge is asked whether the meaning, the selection intent
or the side effects moved and whether the new text carries an instruction
to the model. The answers become advisory notes (``note.py``) appended to
``Change.advisory``. No model participates in severity: a judge cannot
raise, lower, add or remove a change.

Entry points:

- ``annotate(result, config)``: what ``mcpdelta diff --semantic`` calls.
- ``members(config)`` (the offline member, then ``load_judges(config)``) +
  ``judge_changes(changes, judges, cache)``: for a batch stage;
  ``judge_changes`` returns the notes and writes nothing.
- ``lakestage.judge_lake(lake, config, engine, policy_id)``: the survey's
  judge stage (``mcpdelta.survey.judge_stage``): notes into the lake's
  ``notes`` table, which is also its cache.

Modules: ``config`` (entries), ``prompt`` (the one versioned template and
the answer parser), ``client`` (the endpoint, retries), ``http`` (one
deadline for a whole answer, a cap on its bytes), ``budget``, ``cache``,
``jury`` (asking and combining), ``note`` (the note's shape), ``lakestage``
(the survey stage), ``offline`` (the offline member), ``security`` (its
deterministic security rules).
"""

import os
import sys



def load_judges(config, environ=None, attempts=None) -> list:
    """The configured judges, ready to ask; ``[]`` when none are configured.
    Raises ``InputError`` (file:line) for a bad entry or an unset key variable."""
    from mcpdelta.judge.config import parse_judges, read_key

    specs = parse_judges(getattr(config, "judges", None) or [])
    if not specs:
        return []
    # judges configured without the judges extra: a ModuleNotFoundError the
    # command line turns into one line naming the extra (exit 2), before any
    # change is judged, rather than a judge_error note on every change
    import openai  # noqa: F401

    from mcpdelta.judge.jury import Judge

    environ = os.environ if environ is None else environ
    keys = [read_key(spec, environ) for spec in specs]   # every key checked before any call
    return [Judge(spec, key, attempts=attempts) for spec, key in zip(specs, keys)]


def members(config, environ=None) -> list:
    """Every judge of a run: the offline member when its extra is installed,
    then the configured judges (which add to it, never replace it)."""
    from mcpdelta.judge import offline

    configured = load_judges(config, environ)
    return ([offline.OfflineJudge()] if offline.available() else []) + configured


def judge_changes(changes, judges, cache):
    from mcpdelta.judge.jury import judge_changes as run

    return run(changes, judges, cache)


def annotate(result, config, cache=None, environ=None, stderr=None) -> dict:
    """Append judge notes to the unsuppressed prose changes of ``result``.

    With no judge at all (no extra, none configured): one line on stderr,
    changes untouched. Returns counts (judged changes, notes, requests)."""
    stderr = stderr or sys.stderr
    judges = members(config, environ)
    if not judges:
        print("mcpdelta: --semantic: no judges configured and the offline judge needs the jury extra "
              "(pip install 'mcpdelta[jury]'); severities and changes are as the engine gave them",
              file=stderr)
        return {"changes": 0, "notes": 0, "requests": 0}
    from mcpdelta.judge.cache import DiskCache
    from mcpdelta.judge.jury import judge_changes as run

    if cache is None:
        cache = DiskCache.default(environ)
    changes = [c for c in result.changes if not c.suppressed]
    notes = run(changes, judges, cache)
    problems = 0
    for change, change_notes in zip(changes, notes):
        change.advisory.extend(change_notes)
        problems += sum(1 for n in change_notes if n["judge"] != "jury"
                        and n["verdict"] in ("judge_error", "budget_exhausted"))
    if problems:
        print(f"mcpdelta: --semantic: {problems} judge note(s) are judge_error or budget_exhausted; "
              "see the advisory notes", file=stderr)
    return {"changes": sum(1 for n in notes if n), "notes": sum(len(n) for n in notes),
            "requests": sum(j.client.requests for j in judges)}
