"""Contract digests: RFC 8785 canonical JSON, SHA-256, a scheme prefix.

``contract_of`` is the only function that turns a tool into its contract;
a test proves no second one exists. The v2 recipe is byte-compatible with
the gateway that defined it: ``hex(SHA-256(scheme + b"\\x00" + JCS(P)))``.
"""

import hashlib

SCHEME_V2 = "mcp-contract-v2-sha256"
CONTRACT_FIELDS = ("name", "description", "inputSchema", "outputSchema", "annotations")


def jcs(value) -> bytes:
    """RFC 8785 canonical form."""
    import rfc8785

    return rfc8785.dumps(value)


def contract_of(tool: dict) -> dict:
    """The v2 projection of a tool: the five covered fields, absent ones absent."""
    return {k: tool[k] for k in CONTRACT_FIELDS if k in tool}


def _v2(value) -> str:
    digest = hashlib.sha256(SCHEME_V2.encode() + b"\x00" + jcs(value)).hexdigest()
    return f"{SCHEME_V2}:{digest}"


def tool_digest(tool: dict) -> str:
    return _v2(contract_of(tool))


def manifest_digest(manifest: dict) -> str:
    """A digest of a whole snapshot, independent of list order: each list of
    tools, prompts, resources and templates becomes a map keyed by identity."""
    from pipeline.engine.manifest import ENTITY_KEYS

    keyed = dict(manifest)
    for key, name in ENTITY_KEYS.items():
        if isinstance(keyed.get(key), list):
            keyed[key] = {m[name]: m for m in keyed[key]}
    return _v2(keyed)
