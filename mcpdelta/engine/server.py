"""Server-level surfaces: identity, capabilities, extensions, instructions,
protocol versions, cache hints, pagination.

Every top-level key is compared only when both manifests carry it: a missing
key means "not captured" (CONTRACT.md). A capture that asked and got nothing
says so with an explicit null (``"instructions": null``: the server sent
none), which is compared like any other value."""

from mcpdelta.engine import prose
from mcpdelta.engine.change import Change, pointer
from mcpdelta.engine.equality import same

# Top-level manifest keys the engine models (lists are diffed elsewhere).
MODELLED = frozenset({"protocolVersion", "serverInfo", "capabilities", "instructions",
                      "supportedVersions", "cacheScope", "ttlMs", "resultType", "nextCursor",
                      "tools", "prompts", "resources", "resourceTemplates", "probes", "_meta"})
# Where the 2026-07-28 revision repeats the server's identity in a result's
# ``_meta``: the identity, compared as ``serverInfo`` is.
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"
# What a result says about itself for the transport, not the server's
# contract (2026-07-28: every result names its kind).
TRANSPORT = frozenset({"resultType"})
LISTS = frozenset({"tools", "prompts", "resources", "resourceTemplates", "probes"})  # diffed elsewhere
_ABSENT = object()


def diff_server(old, new, changes):
    truncated = [side for side, m in (("old", old), ("new", new)) if m.get("nextCursor") is not None]
    if truncated:  # unsound even against itself: the rest of the list was never seen
        a, b = old.get("nextCursor"), new.get("nextCursor")
        changes.append(Change("server.manifest.truncated", None, "/nextCursor", a, b,
                              where=" and ".join(truncated),
                              detail=" / ".join(repr(m.get("nextCursor")) for m in (old, new)
                                                if m.get("nextCursor") is not None)))
    differs = {key for key in (old.keys() & new.keys()) - LISTS if not same(old[key], new[key])}
    if "protocolVersion" in differs:
        changes.append(Change("server.protocolVersion.changed", None, "/protocolVersion",
                              old["protocolVersion"], new["protocolVersion"]))
    if "serverInfo" in differs:
        _identity(old["serverInfo"], new["serverInfo"], changes)
    if "_meta" in differs:
        _meta(old, new, changes)
    if "capabilities" in differs:
        _capabilities(old["capabilities"], new["capabilities"], changes)
    if "instructions" in differs:
        a, b = old["instructions"], new["instructions"]
        if isinstance(a, (str, type(None))) and isinstance(b, (str, type(None))):
            severity, reason = prose.classify(a, b)
            changes.append(Change("server.instructions.changed", None, "/instructions", a, b,
                                  severity=severity, detail=reason))
        else:
            changes.append(Change("server.field.changed", None, "/instructions", a, b,
                                  where="instructions"))
    if "supportedVersions" in differs:
        a, b = _strings(old["supportedVersions"]), _strings(new["supportedVersions"])
        if a is None or b is None:  # not a list of versions: nothing the engine can read
            changes.append(Change("server.field.changed", None, "/supportedVersions",
                                  old["supportedVersions"], new["supportedVersions"],
                                  where="supportedVersions"))
            a = b = set()
        for version in sorted(a - b):
            changes.append(Change("server.version.dropped", None, pointer("supportedVersions", version),
                                  version, None))
        for version in sorted(b - a):
            changes.append(Change("server.version.added", None, pointer("supportedVersions", version),
                                  None, version))
    if "cacheScope" in differs:
        a, b = old["cacheScope"], new["cacheScope"]
        rule = ("server.surface.scopeNarrowed" if (a, b) == ("public", "private")
                else "server.field.changed")
        changes.append(Change(rule, None, "/cacheScope", a, b, where="cacheScope"))
    if "ttlMs" in differs:  # a cache hint: how long a list may be reused, not what it holds
        changes.append(Change("server.cache.ttlChanged", None, "/ttlMs", old["ttlMs"], new["ttlMs"]))
    for key in sorted(differs - MODELLED):
        changes.append(Change("server.field.changed", None, pointer(key), old[key], new[key],
                              where=key))


def _both(old, new, key) -> bool:
    return key in old and key in new


def _strings(value):
    """A list of version strings as a set; None if it is anything else."""
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return set(value)
    return None


def _identity(old, new, changes, at=("serverInfo",)):
    if not isinstance(old, dict) or not isinstance(new, dict):
        changes.append(Change("server.identity.changed", None, pointer(*at), old, new,
                              where=at[-1]))
        return
    for key in sorted(old.keys() | new.keys()):
        a, b = old.get(key), new.get(key)
        if not same(a, b):
            changes.append(Change("server.identity.changed", None, pointer(*at, key), a, b,
                                  where=key))


def _meta(old, new, changes):
    """The result's ``_meta``: the identity stamp is the identity (said once
    where it only repeats ``serverInfo``), any other key a field."""
    a, b = old["_meta"], new["_meta"]
    if not isinstance(a, dict) or not isinstance(b, dict):
        changes.append(Change("server.field.changed", None, "/_meta", a, b, where="_meta"))
        return
    stamp_a, stamp_b = a.get(META_SERVER_INFO, _ABSENT), b.get(META_SERVER_INFO, _ABSENT)
    repeats = all(stamp is not _ABSENT and same(stamp, manifest.get("serverInfo", _ABSENT))
                  for stamp, manifest in ((stamp_a, old), (stamp_b, new)))
    if not same(stamp_a, stamp_b) and not repeats:
        _identity({} if stamp_a is _ABSENT else stamp_a, {} if stamp_b is _ABSENT else stamp_b,
                  changes, at=("_meta", META_SERVER_INFO))
    rest_a = {k: v for k, v in a.items() if k != META_SERVER_INFO}
    rest_b = {k: v for k, v in b.items() if k != META_SERVER_INFO}
    if not same(rest_a, rest_b):
        changes.append(Change("server.field.changed", None, "/_meta", rest_a, rest_b, where="_meta"))


def _capabilities(old, new, changes):
    if not isinstance(old, dict) or not isinstance(new, dict):
        if not same(old, new):
            changes.append(Change("server.capability.changed", None, "/capabilities", old, new,
                                  where="capabilities"))
        return
    old_ext, new_ext = _extensions(old), _extensions(new)
    old_exp, new_exp = _extensions(old, "experimental"), _extensions(new, "experimental")
    for key in sorted(old.keys() | new.keys()):
        if key == "extensions" and old_ext is not None and new_ext is not None:
            continue
        if key == "experimental" and old_exp is not None and new_exp is not None:
            # a map of experimental features: {} advertises none, so each
            # feature is the capability
            for name in sorted(old_exp.keys() | new_exp.keys()):
                _member("server.capability", pointer("capabilities", key, name), f"experimental/{name}",
                        {f"experimental/{name}": v for name, v in old_exp.items()},
                        {f"experimental/{name}": v for name, v in new_exp.items()}, changes)
            continue
        _member("server.capability", pointer("capabilities", key), key, old, new, changes)
    if old_ext is not None and new_ext is not None:
        for key in sorted(old_ext.keys() | new_ext.keys()):
            _member("server.extension", pointer("capabilities", "extensions", key), key,
                    old_ext, new_ext, changes)


def _extensions(capabilities, key="extensions"):
    """A map of advertised extensions (or experimental features) by id:
    absent is none, a non-object is unreadable (None: reported as a
    capability change)."""
    value = capabilities.get(key, {})
    return value if isinstance(value, dict) else None


def _member(kind, path, key, old, new, changes):
    a, b = old.get(key, _ABSENT), new.get(key, _ABSENT)
    if same(a, b):
        return
    if a is _ABSENT:
        changes.append(Change(f"{kind}.added", None, path, None, b, where=key))
    elif b is _ABSENT:
        changes.append(Change(f"{kind}.removed", None, path, a, None, where=key))
    else:
        changes.append(Change(f"{kind}.changed", None, path, a, b, where=key))
