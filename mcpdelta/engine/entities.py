"""Prompts (by name), resources (by URI) and resource templates (by uriTemplate)."""

from mcpdelta.engine import prose
from mcpdelta.engine.change import Change, pointer
from mcpdelta.engine.equality import same

_ABSENT = object()


def _get(obj, key):
    value = obj.get(key, _ABSENT)
    return None if value is _ABSENT else value


def _differs(a: dict, b: dict, key) -> bool:
    """Does a field differ? A null and an absent field are one spelling."""
    return not same(a.get(key), b.get(key))


def _prose(rule, a, b, key, entity, path, changes, where="", label=""):
    """A prose field: classified when both sides are text (or absent)."""
    x, y = _get(a, key), _get(b, key)
    if not _differs(a, b, key):
        return
    if isinstance(x, (str, type(None))) and isinstance(y, (str, type(None))):
        severity, reason = prose.classify(x, y)
        detail = f"{label} ({reason})" if label else reason
        changes.append(Change(rule, entity, path, x, y, severity=severity, where=where, detail=detail))
    else:
        kind = rule.split(".")[0]
        changes.append(Change(f"{kind}.field.changed", entity, path, x, y, where=where or key))


def _match(old_list, new_list, key, kind, changes):
    """Yield (name, old, new) for members on both sides; report the rest."""
    old = {m[key]: m for m in old_list}
    new = {m[key]: m for m in new_list}
    for name in sorted(old.keys() - new.keys()):
        changes.append(Change(f"{kind}.removed", name, pointer(f"{kind}s", name), old[name], None))
    for name in sorted(new.keys() - old.keys()):
        changes.append(Change(f"{kind}.added", name, pointer(f"{kind}s", name), None, new[name]))
    for name in sorted(old.keys() & new.keys()):
        if not same(old[name], new[name]):
            yield name, old[name], new[name]


# --- prompts ----------------------------------------------------------------

PROMPT_MODELLED = frozenset({"name", "title", "description", "arguments"})
ARGUMENT_MODELLED = frozenset({"name", "title", "description", "required"})


def diff_prompts(old_list, new_list, changes):
    for name, old, new in _match(old_list, new_list, "name", "prompt", changes):
        base = pointer("prompts", name)
        _prose("prompt.description.changed", old, new, "description", name,
               base + pointer("description"), changes)
        _prose("prompt.title.changed", old, new, "title", name, base + pointer("title"), changes)
        _arguments(old.get("arguments") or [], new.get("arguments") or [], name, base, changes)
        _unmodelled("prompt", old, new, PROMPT_MODELLED, name, base, changes)


def _arguments(old_list, new_list, prompt, base, changes):
    old = {a["name"]: a for a in old_list}
    new = {a["name"]: a for a in new_list}
    for arg in sorted(old.keys() | new.keys()):
        path = base + pointer("arguments", arg)
        a, b = old.get(arg), new.get(arg)
        if b is None:
            changes.append(Change("prompt.argument.removed", prompt, path, a, None, where=arg))
            continue
        if a is None:
            rule = "prompt.argument.addedRequired" if b.get("required") is True else "prompt.argument.added"
            changes.append(Change(rule, prompt, path, None, b, where=arg))
            continue
        if same(a, b):
            continue
        # required false and absent are one contract, two spellings
        was, now = a.get("required") is True, b.get("required") is True
        if was != now:
            rule = "prompt.argument.nowRequired" if now else "prompt.argument.nowOptional"
            changes.append(Change(rule, prompt, path + pointer("required"),
                                  _get(a, "required"), _get(b, "required"), where=arg))
        elif not all(v in (None, False, True) and type(v) in (bool, type(None))
                     for v in (a.get("required"), b.get("required"))) and _differs(a, b, "required"):
            # neither true nor false: not a flag the engine can read
            changes.append(Change("prompt.field.changed", prompt, path + pointer("required"),
                                  _get(a, "required"), _get(b, "required"), where=f"{arg}/required"))
        for key in ("description", "title"):
            _prose("prompt.argument.description.changed", a, b, key, prompt, path + pointer(key),
                   changes, where=arg, label=key)
        for key in sorted((a.keys() | b.keys()) - ARGUMENT_MODELLED):
            if _differs(a, b, key):
                changes.append(Change("prompt.field.changed", prompt, path + pointer(key),
                                      _get(a, key), _get(b, key), where=f"{arg}/{key}"))


def _unmodelled(kind, old, new, modelled, entity, base, changes):
    for key in sorted((old.keys() | new.keys()) - modelled):
        if _differs(old, new, key):
            changes.append(Change(f"{kind}.field.changed", entity, base + pointer(key),
                                  _get(old, key), _get(new, key), where=key))


# --- resources and templates ---------------------------------------------

RESOURCE_MODELLED = frozenset({"uri", "uriTemplate", "name", "title", "description", "mimeType",
                               "annotations", "_meta"})
CSP_LISTS = ("connectDomains", "resourceDomains", "frameDomains", "baseUriDomains")
WIDGET_DESCRIPTION = "openai/widgetDescription"


def diff_resources(old_list, new_list, changes):
    for uri, old, new in _match(old_list, new_list, "uri", "resource", changes):
        _resource_like("resource", uri, pointer("resources", uri), old, new, changes)
        _ui(old.get("_meta"), new.get("_meta"), uri, pointer("resources", uri, "_meta"), changes)


def diff_templates(old_list, new_list, changes):
    for template, old, new in _match(old_list, new_list, "uriTemplate", "resourceTemplate", changes):
        _resource_like("resourceTemplate", template, pointer("resourceTemplates", template),
                       old, new, changes)


def _resource_like(kind, entity, base, old, new, changes):
    for key in ("name", "mimeType"):
        if _differs(old, new, key):
            changes.append(Change(f"{kind}.{key}.changed", entity, base + pointer(key),
                                  _get(old, key), _get(new, key)))
    for key in ("title", "description"):
        _prose(f"{kind}.{key}.changed", old, new, key, entity, base + pointer(key), changes)
    for key, rule in (("annotations", f"{kind}.annotations.changed"), ("_meta", f"{kind}.meta.changed")):
        a, b = old.get(key), new.get(key)
        if same(a, b):
            continue
        if isinstance(a or {}, dict) and isinstance(b or {}, dict):
            a, b = a or {}, b or {}
            for sub in sorted(a.keys() | b.keys()):
                if _differs(a, b, sub):
                    changes.append(Change(rule, entity, base + pointer(key, sub),
                                          _get(a, sub), _get(b, sub), where=sub))
        else:
            changes.append(Change(rule, entity, base + pointer(key), a, b, where=key))
    _unmodelled(kind, old, new, RESOURCE_MODELLED, entity, base, changes)


def _ui_part(meta, key):
    ui = meta.get("ui") if isinstance(meta, dict) else None
    return ui.get(key) if isinstance(ui, dict) else None


def _strings(value) -> set:
    if isinstance(value, dict):
        return {k for k in value}
    if isinstance(value, list):
        return {v for v in value if isinstance(v, str)}
    return set()


def _ui(old_meta, new_meta, uri, base, changes):
    """The MCP Apps keys of a ``ui://`` template's _meta."""
    csp_a, csp_b = _ui_part(old_meta, "csp"), _ui_part(new_meta, "csp")
    for name in CSP_LISTS:
        a = _strings(csp_a.get(name) if isinstance(csp_a, dict) else None)
        b = _strings(csp_b.get(name) if isinstance(csp_b, dict) else None)
        path = base + pointer("ui", "csp", name)
        for origin in sorted(a - b):
            changes.append(Change("resource.ui.csp.narrowed", uri, path, sorted(a), sorted(b),
                                  where=name, detail=origin))
        for origin in sorted(b - a):
            changes.append(Change("resource.ui.csp.widened", uri, path, sorted(a), sorted(b),
                                  where=name, detail=origin))
    dom_a, dom_b = _ui_part(old_meta, "domain"), _ui_part(new_meta, "domain")
    if not same(dom_a, dom_b):
        changes.append(Change("resource.ui.domain.changed", uri, base + pointer("ui", "domain"),
                              dom_a, dom_b))
    perm_a = _strings(_ui_part(old_meta, "permissions"))
    perm_b = _strings(_ui_part(new_meta, "permissions"))
    path = base + pointer("ui", "permissions")
    for perm in sorted(perm_b - perm_a):
        changes.append(Change("resource.ui.permissions.added", uri, path, sorted(perm_a),
                              sorted(perm_b), detail=perm))
    for perm in sorted(perm_a - perm_b):
        changes.append(Change("resource.ui.permissions.removed", uri, path, sorted(perm_a),
                              sorted(perm_b), detail=perm))
    a = old_meta if isinstance(old_meta, dict) else {}
    b = new_meta if isinstance(new_meta, dict) else {}
    _prose("resource.ui.widgetDescription.changed", a, b, WIDGET_DESCRIPTION, uri,
           base + pointer(WIDGET_DESCRIPTION), changes)
