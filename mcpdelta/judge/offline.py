"""The offline jury member: a static-embedding model shipped in its wheel.

No key, no network, no torch. ``wordllama`` (the ``jury`` extra) ships a
16 MB table of token embeddings and its tokenizer inside its wheel; a text's
vector is the mean of its tokens' vectors, and the member's *semantic
distance* is one minus the cosine of the two texts' vectors. Beside it the
note gives the engine's own character similarity (``engine.prose.ratio``, the
rapidfuzz Indel ratio of the normalised texts), so a reader sees both.

It answers like any judge (``jury.judge_changes`` asks it; same note, same
cache, under its own name and ``prompt_version``) and, like any judge,
never alters a severity:

- ``meaning_changed`` when the distance is at least :data:`THRESHOLD`,
  ``equivalent`` below it; ``confidence`` grows with the distance from the
  threshold;
- ``security_relevant`` when a rule of ``security.py`` flags what the new
  text adds (an instruction to the model, invisible characters, other tools,
  secrets, exfiltration); the summary names each rule and its evidence.

It is on wherever the extra is installed (``members`` in ``__init__``); a
configured judge adds its own note and the jury's combined note.

Determinism: a text's vector is the float64 mean of the same float16 rows
in the same order, computed text by text, and the distance is rounded to 4
places before it is used.
"""

import threading

from mcpdelta.judge import security

NAME = "wordllama"
EXTRA = "jury"
# the distance from which the member calls the meaning moved: the named
# rewordings of tests/judge/test_offline.py score 0.02-0.08, a changed verb
# 0.20-0.45; a static model is coarse on short texts (one letter, "timezones"
# -> "timezone", scores 0.27), so the verdict is a hint, the distance the figure
THRESHOLD = 0.15
# a text longer than this is cut before it is tokenised (a description is a
# few hundred characters; the cap bounds time and memory on a hostile one)
MAX_CHARS = 20_000
_CONFIG = "l2_supercat"
_DIM = 256

_lock = threading.Lock()
_model = None


class MissingExtra(ImportError):
    pass


def available() -> bool:
    """Is the extra installed? (without loading the model)"""
    import importlib.util

    return importlib.util.find_spec("wordllama") is not None


def version() -> str:
    from importlib.metadata import version as installed

    return (f"mcpdelta-offline/1+rules-{security.RULES_VERSION}"
            f"+wordllama-{installed('wordllama')}-{_CONFIG}-{_DIM}")


def load():
    """The model, loaded once per process from the files inside the wheel.

    Read directly: ``WordLlama.load`` looks for the tokenizer under a folder
    name the wheel does not use and then downloads it."""
    global _model
    with _lock:
        if _model is None:
            try:
                import wordllama
                from safetensors import safe_open
                from tokenizers import Tokenizer
            except ImportError as exc:
                raise MissingExtra(
                    f"the offline jury member needs the {EXTRA} extra: "
                    f"pip install 'mcpdelta[{EXTRA}]' ({exc.name} is not installed)") from None
            from pathlib import Path

            root = Path(wordllama.__file__).parent
            tokenizer = Tokenizer.from_file(str(root / "tokenizers" / f"{_CONFIG}_tokenizer_config.json"))
            with safe_open(str(root / "weights" / f"{_CONFIG}_{_DIM}.safetensors"), framework="np") as f:
                table = f.get_tensor("embedding.weight")
            _model = (tokenizer, table)
    return _model


def _vectors(texts) -> dict:
    """Each text's unit vector: the float64 mean of its tokens' rows, text by
    text, so a text's vector does not depend on what it was batched with
    (wordllama's own batches pad to the longest text, which moves the sums)."""
    import numpy as np

    tokenizer, table = load()
    out = {}
    for text, encoding in zip(texts, tokenizer.encode_batch(texts, add_special_tokens=False)):
        ids = [i for i, keep in zip(encoding.ids, encoding.attention_mask) if keep]
        if not ids:
            continue
        vector = table[np.clip(ids, 0, len(table) - 1)].astype(np.float64).mean(axis=0)
        norm = float(np.linalg.norm(vector))
        if norm:
            out[text] = vector / norm
    return out


def _text(value) -> str:
    return value[:MAX_CHARS] if isinstance(value, str) else ""


def _form(value) -> str:
    """What is embedded: the engine's normal form (lowercase, whitespace
    collapsed, trailing punctuation gone), so re-indenting or re-casing a
    text moves it nowhere (``"docs_service"`` and ``"Docs Service"`` still
    tokenise apart)."""
    from mcpdelta.engine.prose import normalise

    return normalise(_text(value))


def distances(pairs) -> list:
    """Semantic distance (0 to 2, rounded to 4 places) of each (old, new) pair,
    in normal form (``_form``). An empty text against a non-empty one is 1.0."""
    import numpy as np

    pairs = [(_form(a), _form(b)) for a, b in pairs]
    index = _vectors(sorted({t for pair in pairs for t in pair if t}))
    out = []
    for a, b in pairs:
        if a == b:
            out.append(0.0)
        elif a not in index or b not in index:   # a text added or removed, or nothing to embed
            out.append(1.0)
        else:
            out.append(round(1.0 - float(np.dot(index[a], index[b])), 4))
    return out


def similarity(old, new) -> float:
    """The engine's character similarity (0 to 100) of the normalised texts."""
    from mcpdelta.engine.prose import ratio

    return round(ratio(_form(old), _form(new)), 1)


def answer(old, new, distance: float) -> dict:
    """The member's answer for one change (what the cache stores)."""
    found = security.flags(_text(old), _text(new))
    chars = similarity(old, new)
    score = min(1.0, distance / (2 * THRESHOLD))   # 0.5 at the threshold
    words = "moved" if distance >= THRESHOLD else "unchanged"
    summary = (f"meaning {words}: semantic distance {distance:.3f} (threshold {THRESHOLD}), "
               f"character similarity {chars:.0f}")
    if found:
        summary += "; security: " + security.summary(found)
    return {"meaning_score": round(score, 4), "semantic_distance": distance,
            "similarity": chars,
            "security_relevant": bool(found),
            "injected_instruction": any(rule == "instruction" for rule, _ in found),
            "flags": [list(f) for f in found], "summary": summary}


def valid(value) -> bool:
    """Is a cached value one of this member's answers?"""
    return (isinstance(value, dict) and isinstance(value.get("semantic_distance"), (int, float))
            and isinstance(value.get("meaning_score"), (int, float))
            and isinstance(value.get("security_relevant"), bool)
            and isinstance(value.get("summary"), str))


class Spec:
    """What the cache key and the lake's notes read of a judge's spec."""
    model = NAME
    base_url = "offline:"


class Client:
    """Nothing is sent: no requests, nothing to scrub."""
    requests = 0

    @staticmethod
    def scrub(text):
        return text


class OfflineJudge:
    """The offline member, as ``jury.judge_changes`` asks it."""
    offline = True

    def __init__(self):
        self.name = NAME
        self.spec = Spec()
        self.client = Client()
        self.prompt_version = version()

    def answers(self, changes) -> list:
        """An answer for each (old, new) pair, in order."""
        return [answer(old, new, d) for (old, new), d in zip(changes, distances(changes))]
