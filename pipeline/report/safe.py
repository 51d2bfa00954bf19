"""Values from a manifest are untrusted: no report lets one of them move the
cursor, start a new line, reorder text (bidi controls) or break the file's
syntax. Every format passes names, paths, messages and values through here."""

import re

# C0 and C1 controls, DEL, line and paragraph separators, bidi embeddings,
# overrides and isolates, the byte-order mark, lone surrogates and the two
# code points XML 1.0 forbids. Patterns, not compiled ones: ``re`` compiles
# each on first use (a millisecond each) and only text beyond printable
# ASCII ever needs them.
_UNSAFE = ("[\x00-\x1f\x7f-\x9f\u200e\u200f\u2028\u2029\u202a-\u202e"
           "\u2066-\u2069\ufeff\ufffe\uffff\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text) -> str:
    """The text on one line with every control character shown as its escape
    (``\\n``, ``\\x1b``, ``\\u202e``)."""
    text = str(text)
    if text.isascii() and text.isprintable():
        return text
    return re.sub(_UNSAFE, _escape, text)


# what json.dumps(ensure_ascii=False) leaves raw; C0 it escapes itself
_JSON_RAW = ("[\x7f-\x9f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
             "\ufeff\ufffe\uffff\ud800-\udfff]")


def json_text(text: str) -> str:
    """JSON text with the characters json.dumps leaves raw written as \\u
    escapes: the same document, safe to print. Valid anywhere in the text,
    since such characters can only occur inside strings."""
    if text.isascii() and "\x7f" not in text:  # the rest of what it leaves raw is beyond ASCII
        return text
    return re.sub(_JSON_RAW, lambda m: f"\\u{ord(m.group()):04x}", text)


def no_command_lines(text: str) -> str:
    """A line that starts with ``::`` is a GitHub Actions workflow command
    (the runner ignores leading blanks): a human format never begins one."""
    return "\n".join("· " + line if line.lstrip().startswith("::") else line
                     for line in text.split("\n"))
