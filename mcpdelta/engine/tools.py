"""Tools: matched by name; renames, prose, schemas, annotations, icons, _meta."""

from mcpdelta.engine import prose
from mcpdelta.engine.change import Change, pointer
from mcpdelta.engine.equality import canonical, same
from mcpdelta.engine.normalise import normalise_schema
from mcpdelta.engine.remember import memo, per_object, per_objects
from mcpdelta.engine.schema import diff_schema

MODELLED = frozenset({"name", "title", "description", "inputSchema", "outputSchema",
                      "annotations", "icons", "_meta"})

# The value of each hint that is a promise to the caller (the spec's defaults
# are the unpromising ones). Leaving that value withdraws the promise.
PROMISES = {"readOnlyHint": True, "idempotentHint": True,
            "destructiveHint": False, "openWorldHint": False}

UI_AUDIENCES = ("app", "model")  # MCP Apps: no visibility means both
_ABSENT = object()


def diff_tools(old_list, new_list, changes):
    old = {t["name"]: t for t in old_list}
    new = {t["name"]: t for t in new_list}
    removed = sorted(old.keys() - new.keys())
    added = sorted(new.keys() - old.keys())
    renames = _renames([old[n] for n in removed], [new[n] for n in added])
    # a caller that settles each change once is given a tool's changes met
    # before again (``remembered(settles_once=True)``)
    shared = memo("tool changes")
    for name in removed:
        if name not in renames:
            changes.extend(_made(shared, (old[name],), "removed", lambda: [
                Change("tool.removed", name, pointer("tools", name), old[name], None)]))
    renamed_to = set(renames.values())
    for name in added:
        if name not in renamed_to:
            changes.extend(_made(shared, (new[name],), "added", lambda: [
                Change("tool.added", name, pointer("tools", name), None, new[name])]))
    for before, after in sorted(renames.items()):
        changes.append(Change("tool.renamed", after, pointer("tools", before), before, after))
        changes.extend(_made(shared, (old[before], new[after]), after,
                             lambda: _diffed(old[before], new[after], after)))
    for name in sorted(old.keys() & new.keys()):
        if not same(old[name], new[name]):  # unchanged tools cost one equality check
            changes.extend(_made(shared, (old[name], new[name]), name,
                                 lambda: _diffed(old[name], new[name], name)))


def _made(shared, tools, how, make) -> list:
    return make() if shared is None else per_objects(shared, tools, how, make)


def _diffed(old, new, entity) -> list:
    changes = []
    diff_tool(old, new, entity, changes)
    return changes


def _fingerprint(tool):
    """The schemas a rename keeps. A tool with no arguments and no output
    schema has no fingerprint worth matching on."""
    schemas = {k: normalise_schema(tool[k])[0] for k in ("inputSchema", "outputSchema") if k in tool}
    inp = schemas.get("inputSchema")
    if not (isinstance(inp, dict) and inp.get("properties")) and "outputSchema" not in schemas:
        return None
    return canonical(schemas)


def _renames(removed, added) -> dict:
    """old name -> new name, where exactly one removed and exactly one added
    tool share a schema fingerprint."""
    if not removed or not added:
        return {}  # nothing to pair: no fingerprint worth computing
    known = memo("fingerprints")  # a tool removed or added in many pairs: worked out once

    def index(tools):
        found = {}
        for tool in tools:
            fp = _fingerprint(tool) if known is None else per_object(known, tool, _fingerprint)
            if fp is not None:
                found.setdefault(fp, []).append(tool["name"])
        return found
    gone, came = index(removed), index(added)
    return {gone[fp][0]: came[fp][0] for fp in gone
            if fp in came and len(gone[fp]) == 1 and len(came[fp]) == 1}


def diff_tool(old, new, entity, changes):
    base = pointer("tools", entity)
    for key, rule in (("title", "tool.title.changed"), ("description", "tool.description.changed")):
        a, b = old.get(key), new.get(key)
        if same(a, b):
            continue
        if isinstance(a, (str, type(None))) and isinstance(b, (str, type(None))):  # text
            severity, reason = prose.classify(a, b)
            changes.append(Change(rule, entity, base + pointer(key), a, b,
                                  severity=severity, detail=reason))
        else:
            changes.append(Change("tool.field.changed", entity, base + pointer(key), a, b, where=key))
    for side, key in (("input", "inputSchema"), ("output", "outputSchema")):
        a, b = old.get(key, _ABSENT), new.get(key, _ABSENT)
        if a is _ABSENT and b is not _ABSENT:
            changes.append(Change(f"tool.{side}.added", entity, base + pointer(key), None, b))
        elif b is _ABSENT and a is not _ABSENT:
            changes.append(Change(f"tool.{side}.removed", entity, base + pointer(key), a, None))
        elif not same(a, b):
            changes.extend(diff_schema(side, entity, base + pointer(key), a, b))
    _annotations(old.get("annotations"), new.get("annotations"), entity, base, changes)
    if not same(old.get("icons"), new.get("icons")):
        changes.append(Change("tool.icons.changed", entity, base + pointer("icons"),
                              old.get("icons"), new.get("icons")))
    _meta(old.get("_meta"), new.get("_meta"), entity, base, changes)
    for key in sorted((old.keys() | new.keys()) - MODELLED):
        if not same(old.get(key), new.get(key)):  # null and absent: one spelling
            changes.append(Change("tool.field.changed", entity, base + pointer(key),
                                  old.get(key), new.get(key), where=key))


def _annotations(old, new, entity, base, changes):
    if same(old, new):
        return
    if not isinstance(old or {}, dict) or not isinstance(new or {}, dict):
        changes.append(Change("tool.annotations.changed", entity, base + pointer("annotations"),
                              old, new, where="annotations"))
        return
    old, new = old or {}, new or {}
    for key in sorted(old.keys() | new.keys()):
        a, b = old.get(key, _ABSENT), new.get(key, _ABSENT)
        if same(a, b):
            continue
        path = base + pointer("annotations", key)
        va, vb = (None if a is _ABSENT else a), (None if b is _ABSENT else b)
        if key in PROMISES and a == PROMISES[key] and type(a) is bool and b is not a:
            rule = "tool.annotations.safetyWeakened"
        elif a is _ABSENT:
            rule = "tool.annotations.added"
        elif b is _ABSENT:
            rule = "tool.annotations.removed"
        else:
            rule = "tool.annotations.changed"
        changes.append(Change(rule, entity, path, va, vb, where=key))


def _ui(meta):
    """(resourceUri, visibility) of a tool's MCP Apps metadata."""
    if not isinstance(meta, dict):
        return None, None
    ui = meta.get("ui") if isinstance(meta.get("ui"), dict) else {}
    uri = ui.get("resourceUri", meta.get("ui/resourceUri"))
    visibility = ui.get("visibility")
    return uri, visibility


def _meta(old, new, entity, base, changes):
    if same(old, new):
        return
    a = old if isinstance(old, dict) else {}
    b = new if isinstance(new, dict) else {}
    if not isinstance(old or {}, dict) or not isinstance(new or {}, dict):
        changes.append(Change("tool.meta.changed", entity, base + pointer("_meta"), old, new,
                              where="_meta"))
    else:
        for key in sorted(a.keys() | b.keys()):
            if not same(a.get(key), b.get(key)):
                changes.append(Change("tool.meta.changed", entity, base + pointer("_meta", key),
                                      a.get(key), b.get(key), where=key))
    uri_a, vis_a = _ui(a)
    uri_b, vis_b = _ui(b)
    ui_path = base + pointer("_meta", "ui")
    if not same(uri_a, uri_b):
        rule = ("tool.ui.resourceUri.added" if uri_a is None else
                "tool.ui.resourceUri.removed" if uri_b is None else "tool.ui.resourceUri.changed")
        changes.append(Change(rule, entity, ui_path + pointer("resourceUri"), uri_a, uri_b))
    seen_a, seen_b = _audiences(vis_a), _audiences(vis_b)
    shown_a, shown_b = sorted(seen_a), sorted(seen_b)
    if seen_a - seen_b:
        changes.append(Change("tool.ui.visibility.narrowed", entity, ui_path + pointer("visibility"),
                              shown_a, shown_b))
    if seen_b - seen_a:
        changes.append(Change("tool.ui.visibility.widened", entity, ui_path + pointer("visibility"),
                              shown_a, shown_b))


def _audiences(visibility) -> set:
    if not isinstance(visibility, list):
        return set(UI_AUDIENCES)
    return {v for v in visibility if isinstance(v, str)}
