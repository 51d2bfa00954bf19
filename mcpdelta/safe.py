"""Strings a server, a folder or a file chose, made safe for one output medium.

Tool names, descriptions, server ids, versions, paths, error texts and judge
notes are untrusted: no output lets one of them move the cursor, recolour
or retitle a terminal, start a new line, reorder text (bidi controls), start
a GitHub workflow command, or break the syntax of the file it lands in.
Every command passes each such string through the one function of its
medium, and only that:

    visible(text)            terminal text (and the base of every other medium)
    md_text(text)            Markdown prose and table cells: literal, one line
    md_code(text)            a Markdown code span (table-safe)
    html_text(text)          HTML element text and attribute values
    workflow_message(text)   the message of a GitHub workflow command
    workflow_property(text)  a property (file=, title=) of a workflow command
    json_text(text)          JSON text, printable as it is
    no_command_lines(text)   a human format never starts a workflow command

JUnit XML passes values through ``visible`` (XML 1.0 cannot carry most
control characters at all) and ElementTree escapes the markup.
"""

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


# --- Markdown -------------------------------------------------------------------

_HTML = {"<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&#x27;"}
_MD_PUNCT = str.maketrans({**{ch: "\\" + ch for ch in "\\`*_[]#|~!$"}, "<": "&lt;", ">": "&gt;", "&": "&amp;"})


def md_text(value) -> str:
    """An untrusted value as literal Markdown on one line: control characters
    escaped, Markdown punctuation backslashed (a pipe cannot end a table
    cell, a ``#`` cannot start a heading, ``[x](y)`` is no link), HTML
    special characters as entities (``<script>`` is text)."""
    text = visible(value)
    if text.isalnum():
        return text
    return text.translate(_MD_PUNCT)


def md_code(value) -> str:
    """An untrusted value in a code span, fenced past any backticks in it
    (a pipe keeps its backslash, which GitHub's tables read before the span)."""
    body = visible(value).replace("|", "\\|")
    longest = run = 0
    for char in body:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    fence = "`" * (longest + 1)
    pad = " " if body.startswith("`") or body.endswith("`") else ""
    return f"{fence}{pad}{body}{pad}{fence}"


# --- HTML -----------------------------------------------------------------------

def html_text(value) -> str:
    """An untrusted value as HTML text or a quoted attribute value: control
    characters escaped, ``<>&"'`` as entities."""
    text = visible(value)
    if text.isalnum():
        return text
    return "".join(_HTML.get(char, char) for char in text)


# --- GitHub workflow commands ---------------------------------------------------

def workflow_message(value) -> str:
    """The message part of ``::error ...::MESSAGE``: one line (the runner
    reads a command to the end of its line), ``%`` encoded as the runner
    decodes it."""
    return visible(value).replace("%", "%25")


def workflow_property(value) -> str:
    """A property value (``file=``, ``title=``): also ``:`` and ``,``, which end it."""
    return workflow_message(value).replace(":", "%3A").replace(",", "%2C")


def no_command_lines(text: str) -> str:
    """A line that starts with ``::`` is a GitHub Actions workflow command
    (the runner ignores leading blanks): a human format never begins one."""
    return "\n".join("· " + line if line.lstrip().startswith("::") else line
                     for line in text.split("\n"))


# --- JSON -----------------------------------------------------------------------

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
