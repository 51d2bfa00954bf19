"""Ask every judge about every prose change; combine their answers.

``judge_changes(changes, judges, cache) -> notes`` is the whole API a
caller needs (``annotate`` for one diff, a batch stage for a survey):
``notes[i]`` is the list of advisory notes for ``changes[i]`` (empty for a
change whose rule is not a prose rule). It reads the changes and never
writes to them; the caller appends the notes to ``advisory``.

Per change: one note per judge, in config order, then, when two or more
judges are configured, one ``jury`` note. A judge that fails gives a
``judge_error`` note and the others still count; a judge whose budget
cannot cover the call gives ``budget_exhausted`` and is not asked.

Judges run side by side; each judge works through its questions in
change order with up to ``CONCURRENCY`` calls in flight, so which
questions a budget covers does not depend on timing. The offline member
(``offline.OfflineJudge``) answers every question it has no cached answer
for in one batch, in this process, with no budget.
"""

import threading
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

from mcpdelta.engine.catalog import RULES
from mcpdelta.judge import note as N
from mcpdelta.judge.budget import Budget
from mcpdelta.judge.cache import cache_key
from mcpdelta.judge.client import JudgeCallError, JudgeClient, Ticket
from mcpdelta.judge.prompt import PROMPT_VERSION, MalformedAnswer, estimate_tokens, parse_answer, render

CONCURRENCY = 4


class Judge:
    """A configured judge: its spec, its client and its budget for this run."""

    def __init__(self, spec, api_key: str | None, budget: Budget | None = None, attempts: int | None = None):
        self.spec = spec
        self.name = spec.name
        self.client = JudgeClient(spec, api_key, **({"attempts": attempts} if attempts else {}))
        self.budget = budget or Budget(spec.budget_tokens)
        self.prompt_version = PROMPT_VERSION


def _field(change, name):
    return change.get(name) if isinstance(change, dict) else getattr(change, name)


def is_judged(change) -> bool:
    rule = RULES.get(_field(change, "rule"))
    return rule is not None and rule.prose


class _Question:
    __slots__ = ("messages", "texts", "key", "outcome")

    def __init__(self, messages, texts, key):
        self.messages, self.texts, self.key, self.outcome = messages, texts, key, None


def _answer_note(judge, answer) -> dict:
    score = answer["meaning_score"]
    verdict = N.MEANING_CHANGED if score >= 0.5 else N.EQUIVALENT
    security = answer["security_relevant"] or answer.get("injected_instruction", False)
    return N.make_note(judge.name, verdict, security_relevant=security,
                       confidence=abs(2 * score - 1), summary=answer["summary"],
                       prompt_version=judge.prompt_version)


def _failure_note(judge_name, verdict, summary) -> dict:
    return N.make_note(judge_name, verdict, summary=summary, prompt_version=PROMPT_VERSION)


def _ask(judge, question, estimate, cache):
    """One question to one judge (in a worker thread); sets ``question.outcome``
    to ("answer", dict) or (verdict, message). Never raises.

    Charged: the tokens the endpoint reported (the whole estimate when it
    reported none), plus one estimate per timed-out attempt, which may have
    been billed. An HTTP error status is charged nothing."""
    ticket = Ticket(estimate, judge.budget.reserve)
    ticket.reserved = estimate          # reserved by the dispatcher
    reply = None
    try:
        reply = judge.client.ask(question.messages, ticket)
        answer = parse_answer(reply.content)
    except JudgeCallError as exc:
        question.outcome = (N.JUDGE_ERROR, f"{judge.name}: {exc}")
        return
    except MalformedAnswer as exc:
        question.outcome = (N.JUDGE_ERROR, f"{judge.name}: malformed answer: {exc}")
        return
    except Exception as exc:   # a bug or a surprise from a library: a note, not a crash
        question.outcome = (N.JUDGE_ERROR, f"{judge.name}: {type(exc).__name__}: {exc}")
        return
    finally:
        used = ticket.uncertain * estimate
        if reply is not None:
            used += estimate if reply.tokens is None else reply.tokens
        judge.budget.settle(ticket.reserved, used)
    cache.put(question.key, answer)
    question.outcome = ("answer", answer)


def _run_judge(judge, questions, cache):
    """Settle every question for one judge, in order, never past its budget."""
    try:
        (_run_offline if getattr(judge, "offline", False) else _dispatch)(judge, questions, cache)
    except Exception as exc:   # never a crash; whatever is unsettled becomes a judge_error
        for question in questions:
            if question.outcome is None:
                question.outcome = (N.JUDGE_ERROR, f"{judge.name}: {type(exc).__name__}: {exc}")


def _dispatch(judge, questions, cache):
    pending = set()
    with ThreadPoolExecutor(max_workers=CONCURRENCY, thread_name_prefix="judge") as pool:
        for question in questions:
            hit = cache.get(question.key)
            if hit is not None:
                try:
                    question.outcome = ("answer", parse_answer_cached(hit))
                    continue
                except MalformedAnswer:
                    pass   # a foreign or stale row: ask again
            cost = estimate_tokens(question.messages, judge.spec.max_tokens, judge.client.structured)
            # Wait for calls in flight to settle before calling the budget spent,
            # so the outcome does not depend on timing.
            while not judge.budget.reserve(cost):
                if not pending:
                    if judge.budget.spent == 0:  # not spent: too small for even one call
                        why = (f"budget_tokens {judge.budget.limit} is too small for this call, which could "
                               f"need up to {cost} tokens (raise budget_tokens)")
                    else:
                        why = (f"token budget spent ({judge.budget.spent} of {judge.budget.limit} used; "
                               f"this call could need up to {cost})")
                    question.outcome = (N.BUDGET_EXHAUSTED, f"{judge.name}: {why}; not asked")
                    break
                _, pending = wait(pending, return_when=FIRST_COMPLETED)
            if question.outcome is not None:
                continue
            pending.add(pool.submit(_ask, judge, question, cost, cache))
            if len(pending) >= CONCURRENCY:
                _, pending = wait(pending, return_when=FIRST_COMPLETED)


def _run_offline(judge, questions, cache):
    from mcpdelta.judge.offline import valid

    todo = []
    for question in questions:
        hit = cache.get(question.key)
        if valid(hit):
            question.outcome = ("answer", hit)
        else:
            todo.append(question)
    for question, answer in zip(todo, judge.answers([q.texts for q in todo])):
        cache.put(question.key, answer)
        question.outcome = ("answer", answer)


def parse_answer_cached(value) -> dict:
    """A cached answer back to the normal form (validated like a fresh one)."""
    import json

    return parse_answer(json.dumps(value))


def combine(notes: list[dict]) -> dict:
    """The jury note from the judges' notes for one change."""
    answered = [n for n in notes if n["verdict"] in (N.MEANING_CHANGED, N.EQUIVALENT)]
    failed = len(notes) - len(answered)
    if not answered:
        return N.make_note(N.JURY, N.JUDGE_ERROR, prompt_version=PROMPT_VERSION,
                           summary=f"no judge answered ({failed} of {len(notes)} failed or skipped)")
    # Signed scores: +confidence for "moved", -confidence for "same".
    signed = [n["confidence"] if n["verdict"] == N.MEANING_CHANGED else -n["confidence"] for n in answered]
    confidence = abs(sum(signed) / len(signed))
    verdicts = {n["verdict"] for n in answered}
    security = {n["security_relevant"] for n in answered}
    tail = f"; {failed} of {len(notes)} judges failed or were skipped" if failed else ""
    if len(verdicts) > 1 or len(security) > 1:
        votes = ", ".join(f"{n['judge']}: {n['verdict']}{' (security)' if n['security_relevant'] else ''}"
                          for n in answered)
        return N.make_note(N.JURY, N.NEEDS_CONFIRMATION, security_relevant=True in security,
                           confidence=confidence, prompt_version=PROMPT_VERSION,
                           summary=f"the jury is split ({votes}){tail}")
    verdict = verdicts.pop()
    words = "the meaning moved" if verdict == N.MEANING_CHANGED else "the meaning is unchanged"
    flag = "; security-relevant" if True in security else ""
    return N.make_note(N.JURY, verdict, security_relevant=True in security, confidence=confidence,
                       prompt_version=PROMPT_VERSION,
                       summary=f"{len(answered)} of {len(notes)} judges agree {words}{flag}{tail}")


def judge_changes(changes, judges, cache) -> list[list[dict]]:
    """Advisory notes for each change (``[]`` for a non-prose change).

    ``changes``: ``Change`` objects or dicts with rule, entity, path, old,
    new. ``judges``: :class:`Judge` list (see ``load_judges``). ``cache``:
    any object with ``get`` / ``put``. Reads the changes, never writes them."""
    changes = list(changes)
    notes = [[] for _ in changes]
    if not judges:
        return notes
    targets = [i for i, c in enumerate(changes) if is_judged(c)]
    if not targets:
        return notes
    prompts = {i: render(_field(changes[i], "rule"), _field(changes[i], "entity"), _field(changes[i], "path"),
                         _field(changes[i], "old"), _field(changes[i], "new")) for i in targets}
    per_judge = {}   # judge name -> (questions in order, change index -> question)
    for judge in judges:
        by_key, order, index = {}, [], {}
        for i in targets:
            c = changes[i]
            key = cache_key(judge.spec.model, judge.spec.base_url, judge.prompt_version, _field(c, "rule"),
                            _field(c, "entity"), _field(c, "path"), _field(c, "old"), _field(c, "new"))
            if key not in by_key:
                by_key[key] = _Question(prompts[i], (_field(c, "old"), _field(c, "new")), key)
                order.append(by_key[key])
            index[i] = by_key[key]
        per_judge[judge.name] = (order, index)
    if len(judges) == 1:
        _run_judge(judges[0], per_judge[judges[0].name][0], cache)
    else:
        threads = [threading.Thread(target=_run_judge, args=(j, per_judge[j.name][0], cache),
                                    name=f"jury-{j.name}", daemon=True) for j in judges]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    for i in targets:
        judge_notes = []
        for judge in judges:
            question = per_judge[judge.name][1][i]
            kind, payload = question.outcome or (N.JUDGE_ERROR, f"{judge.name}: no outcome")
            if kind == "answer":
                judge_notes.append(_answer_note(judge, payload))
            else:  # scrubbed whole, before the note folds and cuts its text
                judge_notes.append(_failure_note(judge.name, kind, judge.client.scrub(payload)))
        notes[i] = judge_notes + ([combine(judge_notes)] if len(judges) > 1 else [])
    return notes
