"""Hypothesis strategies: JSON Schemas, manifests, and mutations of both.

Input object schemas are generated closed (``additionalProperties: false``)
and output object schemas open. The catalog calls an added optional property
NON_BREAKING on both sides, which holds for a closed input (on an open one an
old caller may already send that key with another type) and for an open
output (a reader that rejects unknown keys is the case the catalog excludes).
"""

import copy
import json

from hypothesis import strategies as st

NAMES = st.sampled_from(["q", "limit", "mode", "tags", "path", "when", "filter", "id"])
WORDS = st.sampled_from(["Search", "the", "catalog", "for", "items", "matching", "a", "query",
                         "returns", "rows", "by", "keyword"])
TEXT = st.lists(WORDS, min_size=1, max_size=6).map(" ".join)


def _string_schema():
    return st.fixed_dictionaries({"type": st.just("string")}, optional={
        "minLength": st.integers(0, 3), "maxLength": st.integers(4, 12),
        "enum": st.lists(st.sampled_from(["a", "bb", "ccc", "dddd"]), min_size=1, max_size=4, unique=True),
        "description": TEXT,
    })


def _number_schema():
    return st.fixed_dictionaries({"type": st.sampled_from(["integer", "number"])}, optional={
        "minimum": st.integers(-5, 0), "maximum": st.integers(1, 50), "default": st.integers(0, 5),
    })


def _leaf():
    return st.one_of(_string_schema(), _number_schema(), st.just({"type": "boolean"}))


def _object(children, closed):
    def build(props, required_mask, description):
        names = sorted(props)
        schema = {"type": "object", "properties": props}
        if closed:
            schema["additionalProperties"] = False
        required = [n for n, keep in zip(names, required_mask) if keep]
        if required:
            schema["required"] = required
        if description:
            schema["description"] = description
        return schema
    return st.builds(build, st.dictionaries(NAMES, children, max_size=4),
                     st.lists(st.booleans(), min_size=4, max_size=4), st.none() | TEXT)


def _array(children):
    return st.builds(lambda items, limit: {"type": "array", "items": items, **limit},
                     children, st.sampled_from([{}, {"maxItems": 3}, {"minItems": 1}]))


def _schemas(closed):
    return st.recursive(
        _leaf(), lambda children: st.one_of(_object(children, closed), _array(children)),
        max_leaves=6)


INPUT_SCHEMAS = _object(_schemas(closed=True), closed=True)
OUTPUT_SCHEMAS = _object(_schemas(closed=False), closed=False)


@st.composite
def tools(draw):
    name = draw(st.sampled_from(["search", "fetch", "create", "delete", "list", "update"]))
    tool = {"name": name, "inputSchema": draw(INPUT_SCHEMAS)}
    if draw(st.booleans()):
        tool["description"] = draw(TEXT)
    if draw(st.booleans()):
        tool["outputSchema"] = draw(OUTPUT_SCHEMAS)
    if draw(st.booleans()):
        tool["annotations"] = {"readOnlyHint": draw(st.booleans())}
    return tool


def _argument(name):
    # required is spelled true or left out: false and absent are one contract
    return st.sampled_from([{"name": name, "required": True}, {"name": name},
                            {"name": name, "description": "The " + name + "."}])


@st.composite
def _prompts(draw):
    prompts = []
    for name in draw(st.lists(st.sampled_from(["summarise", "review", "explain"]), unique=True,
                              max_size=3)):
        names = draw(st.lists(st.sampled_from(["topic", "style", "depth"]), unique=True, max_size=3))
        prompt = {"name": name}
        if names:
            prompt["arguments"] = [draw(_argument(n)) for n in names]
        if draw(st.booleans()):
            prompt["description"] = draw(TEXT)
        prompts.append(prompt)
    return prompts


def _resources():
    return st.lists(st.builds(lambda n, mime: {"uri": f"file:///{n}.txt", "name": f"{n}.txt",
                                               "mimeType": mime},
                              st.sampled_from(["a", "b", "c", "d"]),
                              st.sampled_from(["text/plain", "text/markdown"])),
                    max_size=3, unique_by=lambda r: r["uri"])


def _templates():
    return st.lists(st.sampled_from([{"uriTemplate": "file:///{path}", "name": "files"},
                                     {"uriTemplate": "db://{table}/{id}", "name": "rows",
                                      "annotations": {"audience": ["user", "assistant"]}}]),
                    max_size=2, unique_by=lambda t: t["uriTemplate"])


def _capabilities():
    flags = st.fixed_dictionaries({}, optional={"listChanged": st.booleans(), "subscribe": st.booleans()})
    return st.fixed_dictionaries({"tools": st.fixed_dictionaries({}, optional={"listChanged": st.booleans()})},
                                 optional={"resources": flags, "prompts": flags, "logging": st.just({}),
                                           "experimental": st.just({"tasks": {"list": {}, "cancel": {}}})})


@st.composite
def manifests(draw):
    found = draw(st.lists(tools(), max_size=4, unique_by=lambda t: t["name"]))
    manifest = {"tools": found}
    if draw(st.booleans()):
        manifest["protocolVersion"] = draw(st.sampled_from(["2025-03-26", "2025-06-18"]))
        manifest["serverInfo"] = {"name": "demo", "version": draw(st.sampled_from(["1.0.0", "1.1.0"]))}
        manifest["capabilities"] = draw(_capabilities())
        # null: the server was asked and sent none
        manifest["instructions"] = draw(st.none() | TEXT)
    if draw(st.booleans()):
        manifest["supportedVersions"] = draw(st.lists(
            st.sampled_from(["2024-11-05", "2025-03-26", "2025-06-18"]), unique=True, max_size=3))
    if draw(st.booleans()):
        manifest["prompts"] = draw(_prompts())
    if draw(st.booleans()):
        manifest["resources"] = draw(_resources())
        manifest["resourceTemplates"] = draw(_templates())
    return manifest


def _shuffle_value(value, rnd):
    if isinstance(value, dict):
        items = list(value.items())
        rnd.shuffle(items)
        return {k: _shuffle_value(v, rnd) for k, v in items}
    if isinstance(value, list):
        return [_shuffle_value(v, rnd) for v in value]
    return value


def shuffled(manifest, rnd):
    """The same manifest with every key order, the tool order and every
    order-free list (enum, required) shuffled."""
    out = _shuffle_value(manifest, rnd)

    def walk(node):
        if isinstance(node, dict):
            for key in ("enum", "required"):
                if isinstance(node.get(key), list):
                    rnd.shuffle(node[key])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)
    walk(out)
    rnd.shuffle(out["tools"])
    return out


KEYED = {"tools": "name", "prompts": "name", "resources": "uri",
         "resourceTemplates": "uriTemplate"}


def _moved(items, rnd):
    """A shuffle that always moves something when there is anything to move."""
    out = list(items)
    rnd.shuffle(out)
    return out[::-1] if len(out) > 1 and out == list(items) else out


def permuted(manifest, rnd):
    """The same manifest with every object's keys and every list the engine
    keys (tools, prompts, their arguments, resources, templates, supported
    versions: a set) in another order; each one with two or more members moves."""
    def walk(value):
        if isinstance(value, dict):
            return {k: walk(value[k]) for k in _moved(value, rnd)}
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value
    out = walk(manifest)
    for key in KEYED:
        if isinstance(out.get(key), list):
            out[key] = _moved(out[key], rnd)
    for prompt in out.get("prompts", []):
        if isinstance(prompt.get("arguments"), list):
            prompt["arguments"] = _moved(prompt["arguments"], rnd)
    if isinstance(out.get("supportedVersions"), list):
        out["supportedVersions"] = _moved(out["supportedVersions"], rnd)
    return out


def _paths(node, path=()):
    """Every (path, dict) in a JSON tree."""
    if isinstance(node, dict):
        yield path, node
        for key, value in node.items():
            yield from _paths(value, path + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _paths(value, path + (i,))


MUTATIONS = ("drop_key", "set_key", "widen_type", "add_enum", "drop_enum", "bump_bound",
             "drop_required", "add_required", "add_property", "open_object")


@st.composite
def mutated(draw, value):
    """A copy of ``value`` with one to three random edits anywhere in it."""
    out = copy.deepcopy(value)
    for _ in range(draw(st.integers(1, 3))):
        nodes = list(_paths(out))
        _, node = draw(st.sampled_from(nodes))
        kind = draw(st.sampled_from(MUTATIONS))
        keys = sorted(node)
        if kind == "drop_key" and keys:
            node.pop(draw(st.sampled_from(keys)))
        elif kind == "set_key":
            node[draw(st.sampled_from(keys + ["x-vendor", "not", "const", "pattern"]))] = draw(
                st.one_of(st.none(), st.booleans(), st.integers(-3, 3), TEXT, st.just({}), st.just([1])))
        elif kind == "widen_type" and isinstance(node.get("type"), str):
            node["type"] = sorted({node["type"], draw(st.sampled_from(["null", "number", "string"]))})
        elif kind == "add_enum" and isinstance(node.get("enum"), list):
            node["enum"] = node["enum"] + ["zz"]
        elif kind == "drop_enum" and isinstance(node.get("enum"), list) and len(node["enum"]) > 1:
            node["enum"] = node["enum"][1:]
        elif kind == "bump_bound":
            for bound in ("minimum", "maximum", "minLength", "maxLength", "maxItems", "minItems"):
                if isinstance(node.get(bound), int):
                    node[bound] += draw(st.sampled_from([-1, 1]))
        elif kind == "drop_required" and isinstance(node.get("required"), list) and node["required"]:
            node["required"] = node["required"][1:]
        elif kind == "add_required" and isinstance(node.get("properties"), dict) and node["properties"]:
            had = node.get("required") if isinstance(node.get("required"), list) else []  # set_key may null it
            node["required"] = sorted({n for n in had if isinstance(n, str)} | {sorted(node["properties"])[0]})
        elif kind == "add_property" and isinstance(node.get("properties"), dict):
            node["properties"]["extra"] = {"type": "string"}
        elif kind == "open_object" and node.get("additionalProperties") is False:
            del node["additionalProperties"]
    return out


def dumps(value) -> str:
    return json.dumps(value, sort_keys=True)
