"""Placeholder values for the environment variables a server says it lacks.

Many servers exit at start when a variable they want is unset ("Error:
GITHUB_TOKEN environment variable is required"), though listing their tools
needs no real key. When a local server exits so, the runner starts it once
more with each variable its stderr names set to an obviously fake value,
and again (up to ``MAX_ROUNDS`` rounds, ``MAX_NAMES`` names in all) for a
server that asks for one variable at a time. The capture's recipe then
carries the names (``recipe.with_placeholders``) and a warning says why.

Conservative on purpose: a name counts only when it looks like a variable
(UPPER_SNAKE_CASE, with an underscore), is not already set, is no error
code, and a cue word ("required", "missing", "not set", "environment",
"API key", "token", ...) stands within ``NEAR`` characters of it on the same
line. A server that dies naming no such variable is started no more often
than before.
"""

from __future__ import annotations

import re
from typing import Mapping

MAX_ROUNDS = 3       # extra starts, for servers that ask for one variable at a time
MAX_NAMES = 8        # variables set to placeholders for one capture, at most
NEAR = 100           # characters between a name and its cue word, at most

PLACEHOLDER = "mcpdelta-placeholder"
# a value of the form the name asks for, that fails fast and offline:
# port 9 (discard) on the loopback refuses at once
SHAPED = (
    (("_URL", "_URI", "_ENDPOINT"), "http://127.0.0.1:9"),
    (("_HOST", "_HOSTNAME"), "127.0.0.1"),
    (("_PORT",), "9"),
    (("_EMAIL",), "mcpdelta-placeholder@example.invalid"),
)

# UPPER_SNAKE_CASE not inside a path, a word, a call or an example value ("<YOUR_KEY>", "X=Y_Z"),
# nor a switch shown with its value ("set ALLOW_HTTP=true to override": an option, not a want)
_NAME = re.compile(r"(?<![\w/<=-])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(?![\w(>-])(?!=(?i:true|false|yes|no|on|off|1|0)\b)")
_CUE = re.compile(r"(?i)\b(?:required|requires|missing|not set|not defined|undefined|not provided|not configured|"
                  r"must be (?:set|provided|specified)|environment|env|environ|getenv|api[ _-]?key|token|"
                  r"credentials?)\b|env ?var")
# error codes, not variables (Node's ERR_MODULE_NOT_FOUND, a CLI_ARGS_ERROR)
_CODE = re.compile(r"^ERR_|_(?:ERROR|FAILED|NOT_FOUND|EXCEPTION)$")


def wanted(stderr: str, env: Mapping[str, str]) -> dict[str, str]:
    """The variables ``stderr`` says are wanted and ``env`` does not set, in
    the order they first appear, each with the words around it that ask
    for it (a line may be a whole minified script)."""
    found: dict[str, str] = {}
    for line in (stderr or "").splitlines():
        for match in _NAME.finditer(line):
            name = match.group(1)
            if name in env or name in found or _CODE.search(name):
                continue
            around = line[max(0, match.start() - NEAR):match.start()] + " " + line[match.end():match.end() + NEAR]
            if _CUE.search(around):
                found[name] = line[max(0, match.start() - NEAR):match.end() + NEAR].strip()
    return found


def value_for(name: str) -> str:
    """The placeholder of one variable: a loopback URL, host or port, a fake
    address, or ``PLACEHOLDER``."""
    for suffixes, value in SHAPED:
        if name.endswith(suffixes):
            return value
    return PLACEHOLDER
