"""Did the contract move at all? The grade's last word when no rule fired.

CONTRACT.md grades a diff with no changes ``patch`` if the contract moved
anyway (a respelling the walk normalised away, a null field that was absent)
and ``none`` otherwise. Movement is read the way the engine reads a
manifest: only the surfaces both sides captured, lists keyed the way the
engine matches them (tools, prompts and their arguments by name, resources
by URI, templates by URI template, supported versions as a set), key order
and number spelling ignored, transport fields left out, and tool schemas
left to the walk, which reads them by the values they accept (a respelling
it finds nothing in grades ``none``). The per-tool
``mcp-contract-v2-sha256`` digests are another matter (the gateway's recipe)
and do not decide this.
"""

from mcpdelta.engine.behaviour import fingerprint
from mcpdelta.engine.equality import json_key, same
from mcpdelta.engine.manifest import ENTITY_KEYS
from mcpdelta.engine.server import TRANSPORT

SCHEMA_KEYS = ("inputSchema", "outputSchema")


def moved(old: dict, new: dict) -> bool:
    for key in sorted((old.keys() & new.keys()) - TRANSPORT):
        if not same(_keyed(key, old[key]), _keyed(key, new[key])):
            return True
    return False


def _keyed(key, value):
    if key == "probes":  # a probe's values are not contract: its outcome and shape are
        return {m["name"]: fingerprint(m) for m in value}
    if key == "tools":
        # schemas are read by the values they accept: a respelling the walk
        # found nothing in (a $ref inlined, integer as multipleOf 1) is no movement
        return {m["name"]: {k: v for k, v in m.items() if k not in SCHEMA_KEYS} for m in value}
    if key in ENTITY_KEYS:
        name = ENTITY_KEYS[key]
        return {m[name]: _prompt(m) if key == "prompts" else m for m in value}
    if key == "supportedVersions" and isinstance(value, list):
        return sorted({json_key(v) for v in value})
    return value


def _prompt(prompt):
    args = prompt.get("arguments")
    if not isinstance(args, list):
        return prompt
    return {**prompt, "arguments": {a["name"]: a for a in args}}
