"""Security-relevant drift without a model: deterministic rules on what a
prose change *adds*.

``flags(old, new) -> [(rule, evidence)]`` looks for tool-poisoning patterns
in the new text that the old text did not have (a description that always
said "never read ~/.ssh" is not flagged for keeping it):

- ``instruction``: an imperative aimed at the model, not the user
  ("ignore previous instructions", "always call this tool first", "before
  using any other tool", "do not tell the user", ``<IMPORTANT>`` blocks);
- ``hidden-characters``: zero-width characters, bidirectional controls,
  Unicode tag characters and other invisible format or control characters;
- ``other-tools``: text that reaches past its own tool ("any other tool",
  "instead of the X tool", "change the behaviour of");
- ``secrets``: secret files and credentials (``~/.ssh``, ``id_rsa``,
  ``.env``, ``.aws/credentials``, ``/etc/passwd``, "API key", "private key");
- ``exfiltration``: sending data somewhere ("send ... to https://...", "post
  ... to the webhook", "include the contents of ... in the ... parameter").

Each rule's examples are the tests in ``tests/judge/test_security.py``; the
rules' precision on the committed corpus is in ``docs/survey.md``. Every
pattern is a bounded regular expression over a text the note's caller
already capped, so the cost is linear in the text.
"""

import re
import unicodedata

# in the offline judge's version, so a cached answer from other rules is asked again
RULES_VERSION = 1

_I = re.IGNORECASE

_SEND = r"(?:send|post|upload|forward|transmit|submit|exfiltrate|leak)"
# a verb that moves a secret, then whose it is: "include your API key", not "upload credentials are made"
_READ = (r"(?:read|include|send|upload|attach|append|pass|forward|post|leak|share|exfiltrate|copy)\s+"
         r"(?:the|your|their|its|any|all|my|our|user's|the\s+user's)\s+(?:[\w-]+\s+){0,2}?")
_SECRET_FILE = (r"(?:~/\.ssh\b|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|\.aws/credentials\b|"
                r"/etc/(?:passwd|shadow)\b)")
_SECRET = (r"(?:(?<![\w.])\.env\b|\.netrc\b|\.npmrc\b|\bmcp\.json\b|\bapi[\s_-]?keys?\b|"
           r"\bprivate[\s_-]keys?\b|\bssh[\s_-]keys?\b|\bsecret[\s_-]keys?\b|\bpasswords?\b|"
           r"\bcredentials\b|\baccess[\s_-]tokens?\b|\bbearer\s+tokens?\b)")
_OTHER_TOOL = r"(?:any|every|all)\s+other\s+tools?\b"

# (rule, pattern): a pattern's match is the evidence; it counts only when the
# old text holds no such words (case and spacing aside). Each is narrowed to
# what a description says *to the model*: the committed corpus's own
# descriptions ("Requires an API key", "every other tool takes the cluster
# id") are not flagged (docs/survey.md, "Security flags").
PATTERNS = (
    ("instruction", re.compile(
        r"\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+|the\s+)?"
        r"(?:previous|prior|above|earlier|other|existing|system)\s+"
        r"(?:instructions?|rules|directions|prompts?|guidelines)", _I)),
    ("instruction", re.compile(
        r"\b(?:always|must|first)\s+(?:call|invoke|run|use|execute)\s+"
        r"(?:this|the\s+[\w.-]+)\s+tool\s+(?:first|before)\b", _I)),
    ("instruction", re.compile(r"\bbefore\s+(?:using|calling|invoking|running)\s+" + _OTHER_TOOL, _I)),
    ("instruction", re.compile(
        r"\b(?:do\s+not|don't|never)\s+(?:mention|reveal|disclose|show)\s+(?:this|these|it|that|them|anything)\b"
        r"[^.\n]{0,30}?\bto\s+the\s+(?:user|human)\b", _I)),
    ("instruction", re.compile(
        r"\b(?:do\s+not|don't|never)\s+(?:tell|inform|notify)\s+the\s+(?:user|human)\s+"
        r"(?:about|of)\s+(?:this|these|it|that)\b", _I)),
    ("instruction", re.compile(
        r"\bwithout\s+(?:telling|informing|asking|notifying|alerting)\s+(?:the\s+)?(?:user|human)\b", _I)),
    ("instruction", re.compile(r"<\s*/?\s*(?:important|system|instructions?|secret)\s*>", _I)),
    ("instruction", re.compile(r"\bhidden\s+instructions?\b", _I)),
    ("other-tools", re.compile(
        r"\b(?:when|after|instead\s+of|rather\s+than)\s+(?:using|calling|invoking)\s+" + _OTHER_TOOL, _I)),
    ("other-tools", re.compile(
        r"\b(?:change|modify|override|alter)\s+the\s+(?:behaviou?r|parameters?|arguments?)\s+of\s+"
        r"(?:the\s+|any\s+|all\s+|every\s+)?(?:other\s+)?[\w.-]*\s*tools?\b", _I)),
    ("secrets", re.compile(_SECRET_FILE, _I)),
    ("secrets", re.compile(r"\b" + _READ + _SECRET, _I)),
    ("exfiltration", re.compile(
        r"\b" + _SEND + r"\b[^.\n]{0,80}?\bto\s+(?:https?://\S+|[\w.+-]+@[\w-]+\.[\w.]+|"
        r"(?:the|this|our|a|an)\s+(?:url|webhook|external\s+\w+|remote\s+(?:url|endpoint|host)))", _I)),
    ("exfiltration", re.compile(
        r"\b(?:include|put|pass|append|embed|insert|copy)\s+(?:the\s+|its\s+|their\s+)?"
        r"(?:full\s+|entire\s+|whole\s+)?contents?\b[^.\n]{0,80}?\b(?:in|into|as)\s+(?:the\s+)?"
        r"[`'\"]?[\w-]*[`'\"]?\s*(?:parameter|argument|field)\b", _I)),
)

# Characters a reader cannot see or that reorder what a reader sees.
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_ZERO_WIDTH = frozenset("\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff\u180e")


def _hidden(ch: str) -> str | None:
    """The kind of invisible character ``ch`` is, or None."""
    if ch in _ZERO_WIDTH:
        return "zero-width"
    if ch in _BIDI:
        return "bidi control"
    if "\U000e0000" <= ch <= "\U000e007f":
        return "tag character"
    if ch in "\n\r\t":
        return None
    category = unicodedata.category(ch)
    if category in ("Cc", "Cf", "Co"):
        return "control or format character"
    return None


def hidden_characters(text: str) -> dict:
    """``{"U+200B zero-width": count, ...}`` for the invisible characters in ``text``."""
    found = {}
    for ch in text:
        kind = _hidden(ch)
        if kind:
            label = f"U+{ord(ch):04X} {kind}"
            found[label] = found.get(label, 0) + 1
    return found


def _as_text(value) -> str:
    return value if isinstance(value, str) else ""


def flags(old, new) -> list:
    """``[(rule, evidence)]`` for what ``new`` adds over ``old``, in rule order,
    at most one per distinct evidence; ``[]`` when nothing is flagged."""
    old, new = _as_text(old), _as_text(new)
    out, seen = [], set()
    before, after = hidden_characters(old), hidden_characters(new)
    added = sorted(label for label, n in after.items() if n > before.get(label, 0))
    if added:
        out.append(("hidden-characters", ", ".join(f"{after[label]} x {label}" for label in added)))
    old_words = " ".join(old.lower().split())
    for rule, pattern in PATTERNS:
        for match in pattern.finditer(new):
            evidence = " ".join(match.group(0).split())
            key = (rule, evidence.lower())
            if key in seen or key[1] in old_words:   # the old text said it already
                continue
            seen.add(key)
            out.append((rule, evidence))
    return out


def summary(found) -> str:
    """One line naming each flag and its evidence."""
    return "; ".join(f"{rule}: {evidence!r}" for rule, evidence in found)
