"""Python's own reading of a regular expression, and what it tells about
the pattern: which features a linear-time engine lacks.

Below both the generator (``regexgen``, which walks the parsed pattern and
confirms each string with ``validate.matches``) and the validator
(``validate``, which runs a pattern using those features on short texts
only), so neither imports the other back.
"""

try:  # Python 3.11+
    from re import _constants as sre_constants, _parser as sre_parse
except ImportError:  # pragma: no cover - older Pythons
    import sre_constants
    import sre_parse

_FEATURES = {}


def features(pattern: str) -> frozenset:
    """The regex features a pattern uses that a linear-time engine lacks:
    ``lookaround``, ``backreference``; ``unparsed`` if Python cannot read it."""
    found = _FEATURES.get(pattern)
    if found is None:
        out = set()
        try:
            _walk(sre_parse.parse(pattern), out)
        except Exception:  # re.error, RecursionError, ...
            out.add("unparsed")
        found = _FEATURES[pattern] = frozenset(out)
        if len(_FEATURES) > 4096:
            _FEATURES.clear()
    return found


def _walk(parsed, out):
    for op, arg in parsed:
        if op in (sre_constants.ASSERT, sre_constants.ASSERT_NOT):
            out.add("lookaround")
            _walk(arg[1], out)
        elif op in (sre_constants.GROUPREF, sre_constants.GROUPREF_EXISTS):
            out.add("backreference")
        elif op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT) or str(op) == "POSSESSIVE_REPEAT":
            _walk(arg[2], out)
        elif op is sre_constants.SUBPATTERN:
            _walk(arg[3], out)
        elif op is sre_constants.BRANCH:
            for branch in arg[1]:
                _walk(branch, out)
