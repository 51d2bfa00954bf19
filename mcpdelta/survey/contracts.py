"""A batch's stored contracts, read from the lake once: each stored text
decoded and checked once, however many pairs hold it (the lake may come
from anyone: every decode is bounded and every failure a line)."""

import marshal

from mcpdelta.errors import InputError
from mcpdelta.inputs import load_json


class Contracts:
    """The stored contracts of some servers, loaded for one batch.

    A pair is diffed on reduced manifests: both surfaces (the capture
    without its tools) plus only the tools whose whole-tool hash differs
    between the two sides, and those a probe of the new side called (its
    answer is checked against the tool's outputSchema). Any other unchanged
    tool can produce no change, so the result is the same as diffing the
    whole manifests, at the cost of the tools that moved."""

    def __init__(self, lake, servers):
        from mcpdelta.lake import texts

        stored = lake.read_servers("manifests", servers,
                                   ["server_id", "manifest_digest", "surface_json", "tool_hashes"],
                                   dictionary=("server_id", "manifest_digest", "surface_json"))
        self.surfaces = {}
        for server_id, digest, surface, hashes in zip(*(texts(c) for c in stored.columns)):
            if digest is not None:
                self.surfaces[(server_id, digest)] = (surface, hashes)
        tools = lake.read_servers("tools", servers, ["server_id", "manifest_digest", "name", "tool_json"],
                                  dictionary=("server_id", "manifest_digest", "name", "tool_json"))
        self.tools = {(s, d, n): t for s, d, n, t in zip(*(texts(c) for c in tools.columns))}
        self._hashes = {}
        self._surfaces = {}  # surface text -> decoded and checked (or the InputError)
        # tool text -> decoded and checked (or the InputError): a tool's new
        # side is the next pair's old side
        self._tools = {}

    def hashes(self, server_id, digest):
        key = (server_id, digest)
        if key not in self._hashes:
            text = self.surfaces[key][1]
            try:
                self._hashes[key] = None if text is None else dict(load_json(text, "a lake cell"))
            except (TypeError, ValueError, InputError):
                self._hashes[key] = {}  # unreadable: every tool reads as moved, and is looked up
        return self._hashes[key]

    def surface(self, server_id, digest, source):
        """The stored surface, decoded and checked for shape once per batch
        and text: most releases leave the surface as it was, so both sides
        of a pair (and the server's other captures) share one object, which
        the engine's equality check passes at once. The engine never
        changes what it is given."""
        def check(found):
            from mcpdelta.engine.manifest import validate_manifest

            if not isinstance(found, dict):
                raise InputError(source, "stored manifest is not a JSON object")
            # validated whole at ingest, nesting limit included: check shape only
            return validate_manifest(found, source, max_depth=None)
        return _decoded_once(self._surfaces, self.surfaces[(server_id, digest)][0], source,
                             "stored manifest", check)

    def _tool(self, text, name, source):
        """A stored tool decoded and checked for shape once per batch and
        text (shared, like the surfaces: the engine never changes what it is
        given); it must be the tool its row names, so no two tools of a
        reduced manifest share a name."""
        def check(found):
            from mcpdelta.engine.manifest import validate_manifest

            validate_manifest({"tools": [found]}, source, max_depth=None)
            return found
        found = _decoded_once(self._tools, text, source, "a stored tool", check)
        if found["name"] != name:
            raise InputError(source, f"the stored tool {name!r} is named {found['name']!r}")
        return found

    def pair(self, server_id, old_digest, new_digest, sources):
        """(old, new) reduced manifests, validated for shape."""
        manifests = []
        for digest, source in zip((old_digest, new_digest), sources):
            if (server_id, digest) not in self.surfaces:
                raise InputError(source, "manifest missing from the lake")
        old_h, new_h = self.hashes(server_id, old_digest), self.hashes(server_id, new_digest)
        moved = {n for n in (old_h or {}).keys() | (new_h or {}).keys()
                 if (old_h or {}).get(n) != (new_h or {}).get(n)}
        probes = self.surface(server_id, new_digest, sources[1]).get("probes")
        if isinstance(probes, list):
            moved |= {p.get("tool") for p in probes if isinstance(p, dict)}
        for digest, hashes, source in ((old_digest, old_h, sources[0]), (new_digest, new_h, sources[1])):
            manifest = dict(self.surface(server_id, digest, source))  # its own tools list
            if hashes is not None:
                try:
                    tools = [self._tool(self.tools[(server_id, digest, n)], n, source)
                             for n in sorted(moved) if n in hashes]
                except KeyError:
                    raise InputError(source, "a tool is missing from the lake") from None
                manifest["tools"] = tools
            manifests.append(manifest)
        if "tools" in manifests[0] and "tools" in manifests[1]:
            _share_schemas(manifests[0]["tools"], manifests[1]["tools"])
        return manifests


def _share_schemas(old_tools, new_tools) -> None:
    """Give each tool's new side the very schema objects of its old side
    where they are exactly the same (decoded from two texts, as when only
    the description changed, they are two equal trees): the engine then
    sees the identity at once, and normalises one tree once a batch
    (``remembered``). The decoded tool keeps an equal value; equal by
    marshal's typed bytes, so not even ``1`` against ``1.0`` is merged."""
    before = {tool["name"]: tool for tool in old_tools}
    for tool in new_tools:
        old = before.get(tool["name"])
        if old is None:
            continue
        for key in ("inputSchema", "outputSchema"):
            a, b = old.get(key), tool.get(key)
            if a is not b and isinstance(a, dict) and a == b \
                    and marshal.dumps(a, 2) == marshal.dumps(b, 2):
                tool[key] = a


def _decoded_once(cache, text, source, what, check):
    """``check(text decoded)``, worked out once per text (a failure too, as
    the InputError it raised, said again for each source that meets it). The
    decode is bounded (``mcpdelta.inputs.load_json``): the lake may come from anyone."""
    found = cache.get(text)
    if found is None:
        try:
            found = check(load_json(text, what))
        except InputError as exc:
            found = exc if exc.where != what else InputError(source, f"{what} is not valid JSON ({exc.problem})")
        except TypeError as exc:  # not text at all
            found = InputError(source, f"{what} is not valid JSON ({exc})")
        cache[text] = found
    if isinstance(found, InputError):
        raise InputError(source, found.problem)
    return found
