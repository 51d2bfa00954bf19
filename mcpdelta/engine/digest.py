"""A whole snapshot's digest. The recipe is the contract's (canonical JSON,
SHA-256, the v2 scheme); what identifies each entity and what of a probe is
contract is the engine's, so the function lives here, above both."""

from mcpdelta.contract import SCHEME_V2, digest_contract
from mcpdelta.engine.behaviour import fingerprint
from mcpdelta.engine.manifest import ENTITY_KEYS


def manifest_digest(manifest: dict) -> str:
    """A digest of a whole snapshot, independent of list order: each list of
    tools, prompts, resources and templates becomes a map keyed by identity."""
    keyed = dict(manifest)
    for key, name in ENTITY_KEYS.items():
        if isinstance(keyed.get(key), list):
            keyed[key] = {m[name]: m for m in keyed[key]}
    if isinstance(keyed.get("probes"), dict):  # a probe's values are not contract: its shape is
        keyed["probes"] = {n: fingerprint(p) for n, p in keyed["probes"].items()}
    return digest_contract(keyed, SCHEME_V2)
