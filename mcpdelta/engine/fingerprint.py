"""Response shapes: a value-tolerant fingerprint of what a tool call returned.

The shape keeps what a caller's code depends on and drops the values: an
object is its key set with each child's shape, an array the union of its
elements' shapes, a scalar its JSON type (integer and number apart, null
apart) and, for a string that plainly is one, its format class. A
CallToolResult is fingerprinted by part: content blocks by ``type`` (a text
block whose text parses as a JSON object or array is fingerprinted as that
JSON), ``structuredContent`` on its own, ``isError`` kept.

Shapes are JSON themselves, in a fixed form (keys sorted, unions sorted), so
two equal shapes serialise identically and hash identically.
"""

import functools
import json
import re

from mcpdelta.sha256 import sha256

# How deep and how wide a response is fingerprinted: a response is untrusted
# input. What lies beyond is summarised as "truncated", never walked.
MAX_DEPTH = 32
MAX_NODES = 20_000

_FORMATS = (
    ("date-time", r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?"),
    ("date", r"\d{4}-\d{2}-\d{2}"),
    ("uuid", r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"),
    ("email", r"[^@\s]+@[^@\s]+\.[A-Za-z]{2,}"),
    ("uri", r"[A-Za-z][A-Za-z0-9+.-]*://\S+"),
)


@functools.cache
def _compiled_formats():
    # compiled on first use: a diff without probes never needs them
    return tuple((name, re.compile(pattern)) for name, pattern in _FORMATS)


def string_format(text: str) -> str | None:
    """The format class of a string that plainly is one, else None."""
    if len(text) > 2048:
        return None
    for name, pattern in _compiled_formats():
        if pattern.fullmatch(text):
            return name
    return None


class _Budget:
    def __init__(self):
        self.nodes = 0


def shape(value, _depth: int = 0, _budget: _Budget | None = None) -> dict:
    """The shape of one JSON value."""
    budget = _budget or _Budget()
    budget.nodes += 1
    if _depth > MAX_DEPTH or budget.nodes > MAX_NODES:
        return {"type": "truncated"}
    if value is None:
        return {"type": "null"}
    if value is True or value is False:
        return {"type": "boolean"}
    if isinstance(value, int):
        return {"type": "integer"}
    if isinstance(value, float):
        return {"type": "integer"} if value.is_integer() else {"type": "number"}
    if isinstance(value, str):
        fmt = string_format(value)
        return {"type": "string", "format": fmt} if fmt else {"type": "string"}
    if isinstance(value, dict):
        return {"type": "object",
                "properties": {k: shape(value[k], _depth + 1, budget) for k in sorted(value)},
                "optional": []}
    if isinstance(value, list):
        items = None
        for element in value:
            element_shape = shape(element, _depth + 1, budget)
            items = element_shape if items is None else merge(items, element_shape)
        return {"type": "array", "items": items}  # items None: an empty array, of unknown
    return {"type": "unknown"}


def merge(a: dict | None, b: dict | None) -> dict | None:
    """The union of two shapes (the shape of an array holding both)."""
    if a is None or b is None:
        return a if b is None else b
    if a == b:
        return a
    if "anyOf" in a or "anyOf" in b or a["type"] != b["type"]:
        return _union([*a.get("anyOf", [a]), *b.get("anyOf", [b])])
    kind = a["type"]
    if kind == "string":  # two format classes (or one and none): plain string
        return {"type": "string"}
    if kind == "array":
        return {"type": "array", "items": merge(a["items"], b["items"])}
    if kind == "object":
        pa, pb = a["properties"], b["properties"]
        keys = sorted(pa.keys() | pb.keys())
        optional = sorted(set(a["optional"]) | set(b["optional"]) | (pa.keys() ^ pb.keys()))
        return {"type": "object", "optional": optional,
                "properties": {k: merge(pa.get(k), pb.get(k)) for k in keys}}
    return a


def _union(shapes: list) -> dict:
    by_type = {}
    for s in shapes:
        by_type[s["type"]] = merge(by_type[s["type"]], s) if s["type"] in by_type else s
    if len(by_type) == 1:
        return next(iter(by_type.values()))
    return {"type": "anyOf", "anyOf": [by_type[t] for t in sorted(by_type)]}


def types_of(s: dict) -> list[str]:
    return [m["type"] for m in s["anyOf"]] if s["type"] == "anyOf" else [s["type"]]


def _text_shape(text) -> dict:
    """A text block: fingerprinted as JSON when it holds an object or array."""
    if isinstance(text, str) and text[:1] in "[{" and len(text) <= 10 * 1024 * 1024:
        try:
            parsed = json.loads(text)
        except (ValueError, RecursionError):
            parsed = None
        if isinstance(parsed, (dict, list)):
            return {"type": "text", "json": shape(parsed)}
    return {"type": "text"}


def _block_shape(block) -> dict:
    if not isinstance(block, dict):
        return {"type": "unknown"}
    kind = block.get("type")
    if kind == "text":
        return _text_shape(block.get("text"))
    if kind == "resource":
        inner = block.get("resource") if isinstance(block.get("resource"), dict) else {}
        return {"type": "resource", "resource": "blob" if "blob" in inner else "text"}
    return {"type": kind if isinstance(kind, str) else "unknown"}


def _merge_blocks(a: dict, b: dict) -> dict:
    if a == b:
        return a
    if a["type"] == "text":  # JSON in both: their union; JSON in one only: just text is promised
        return {"type": "text", "json": merge(a["json"], b["json"])} if "json" in a and "json" in b \
            else {"type": "text"}
    return {"type": a["type"]}


def result_shape(result) -> dict:
    """The shape of a CallToolResult: ``isError``, the content blocks by
    type (blocks of one type merged), ``structuredContent`` on its own."""
    if not isinstance(result, dict):
        return {"isError": False, "content": {}, "structuredContent": shape(result)}
    blocks = {}
    content = result.get("content")
    for block in content[:MAX_NODES] if isinstance(content, list) else []:
        s = _block_shape(block)
        blocks[s["type"]] = _merge_blocks(blocks[s["type"]], s) if s["type"] in blocks else s
    out = {"isError": result.get("isError") is True,
           "content": {kind: blocks[kind] for kind in sorted(blocks)}}
    if "structuredContent" in result:
        out["structuredContent"] = shape(result["structuredContent"])
    return out


def shape_hash(s: dict) -> str:
    """A quick equality check: SHA-256 of the shape's canonical JSON (keys
    sorted, no spaces; shapes hold only strings, lists, dicts and booleans,
    so this is their RFC 8785 form)."""
    text = json.dumps(s, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + sha256(text.encode("utf-8")).hexdigest()
