"""Contract digests: RFC 8785 canonical JSON, SHA-256, a scheme prefix.

``contract_of`` is the only function that turns a tool into its contract;
a test proves no second one exists. Two recipes, each named by its prefix:

- v2 ``mcp-contract-v2-sha256:``: ``hex(SHA-256(scheme + b"\\x00" + JCS(P)))``,
  P = {name, description, inputSchema, outputSchema, annotations}. The scheme
  is hashed too, so a digest cannot be checked against another recipe.
- v1 ``sha256:`` (legacy gateway baselines): ``hex(SHA-256(JCS(P1)))``, P1 also
  covering ``title``. Kept so an existing pin is never re-graded.

A digest with any other prefix has an *unknown* scheme: callers report it
and leave the tool ungated rather than fail (a newer build's lockfile must
not break a rollback).
"""

import json
import re

from mcpdelta.sha256 import sha256

SCHEME_V2 = "mcp-contract-v2-sha256"
SCHEME_V1 = "sha256"
DEFAULT_SCHEME = SCHEME_V2

# scheme -> the tool fields its contract covers (absent fields stay absent)
FIELDS = {
    SCHEME_V2: ("name", "description", "inputSchema", "outputSchema", "annotations"),
    SCHEME_V1: ("name", "title", "description", "inputSchema", "outputSchema", "annotations"),
}
CONTRACT_FIELDS = FIELDS[SCHEME_V2]

_HEX = re.compile(r"[0-9a-f]{64}")
_SAFE = 2**53 - 1


class CanonicalError(ValueError):
    """A value RFC 8785 cannot represent (NaN, infinity, a lone surrogate)."""


def jcs(value) -> bytes:
    """RFC 8785 canonical form, with every number an IEEE-754 double.

    Contracts are mostly strings, booleans and small integers. For those the
    stdlib encoder (in C) with sorted keys writes the very same bytes, so
    ``_fast`` prepares such values for it; anything it is not sure of goes to
    ``rfc8785``. A property test holds the two paths to each other."""
    try:
        prepared = _fast(value)
    except (_Slow, OverflowError):
        return _rfc8785(value)
    try:
        return _PLAIN.encode(prepared).encode("utf-8")
    except UnicodeEncodeError:
        raise CanonicalError("input contains non-UTF-8 codepoints (a lone surrogate)") from None


_PLAIN = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), sort_keys=True,
                          check_circular=False)


class _Slow(Exception):
    """This value needs the library."""


def _fast(node):
    """A copy the stdlib prints canonically, or ``_Slow``. Python's float repr
    and ECMAScript's agree for non-integral doubles in [1e-4, 1e16); integral
    doubles print as integers; integers past 2^53 print as their nearest
    double does. UTF-16 key order (RFC 8785's) differs from Python's code
    point order only for keys outside the BMP."""
    kind = type(node)
    if kind is str or kind is bool or node is None:
        return node
    if kind is int:
        if -_SAFE <= node <= _SAFE:
            return node
        double = float(node)  # OverflowError past ~1.8e308: JSON.parse gives Infinity
        if abs(double) < 1e21:  # ECMAScript prints it as digits padded with zeros: an integer
            return int(_rfc8785(double))
        raise _Slow
    if kind is float:
        if node.is_integer() and abs(node) <= _SAFE:
            return int(node)  # 1.0 and -0.0 print as 1 and 0
        if 1e-4 <= abs(node) < 1e16 and not node.is_integer():
            return node
        raise _Slow
    if kind is dict:
        out = {}
        for key, item in node.items():
            if type(key) is not str or not (key.isascii() or max(key) <= "\uffff"):
                raise _Slow
            # strings, the most common values, without a call each
            out[key] = item if type(item) is str else _fast(item)
        return out
    if kind is list:
        return [item if type(item) is str else _fast(item) for item in node]
    raise _Slow  # tuples, subclasses, anything else: the library decides


def _rfc8785(value) -> bytes:
    """``rfc8785`` refuses integers beyond 2^53 rather than rounding them, but
    int64 bounds do occur in generated schemas and JSON.stringify (the RFC's
    reference) prints them as the nearest double. So retry, only on that
    refusal, with out-of-range integers turned into doubles."""
    import rfc8785  # only values the stdlib path cannot print pay for its import

    try:
        return rfc8785.dumps(value)
    except rfc8785.IntegerDomainError:
        pass
    except rfc8785.CanonicalizationError as exc:
        raise CanonicalError(str(exc)) from None
    try:
        return rfc8785.dumps(_as_doubles(value))
    except (rfc8785.CanonicalizationError, OverflowError) as exc:
        raise CanonicalError(str(exc)) from None


def _as_doubles(value):
    if isinstance(value, dict):
        return {k: _as_doubles(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_as_doubles(v) for v in value]
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > _SAFE:
        return float(value)  # OverflowError past ~1.8e308: JSON.parse would give Infinity
    return value


def contract_of(tool: dict, scheme: str = DEFAULT_SCHEME) -> dict:
    """The contract of a tool under ``scheme``: the covered fields, absent ones absent."""
    return {k: tool[k] for k in FIELDS[scheme] if k in tool}


def digest_contract(contract: dict, scheme: str = DEFAULT_SCHEME) -> str:
    """The digest of an already projected contract (a lockfile's embedded one)."""
    if scheme == SCHEME_V2:
        data = SCHEME_V2.encode() + b"\x00" + jcs(contract)
    elif scheme == SCHEME_V1:
        data = jcs(contract)  # the legacy recipe hashed the bare canonical form
    else:
        raise ValueError(f"unknown digest scheme {scheme!r}")
    return f"{scheme}:{sha256(data).hexdigest()}"


def tool_digest(tool: dict, scheme: str = DEFAULT_SCHEME) -> str:
    return digest_contract(contract_of(tool, scheme), scheme)


def split_digest(digest: str):
    """``(scheme, hex)`` of a digest string; ``scheme`` is whatever precedes
    the last colon (None if there is none), known or not."""
    if not isinstance(digest, str) or ":" not in digest:
        return None, digest
    scheme, _, hexpart = digest.rpartition(":")
    return scheme, hexpart


def well_formed(digest: str) -> bool:
    """A known scheme followed by 64 lowercase hex digits."""
    scheme, hexpart = split_digest(digest)
    return scheme in FIELDS and isinstance(hexpart, str) and bool(_HEX.fullmatch(hexpart))

