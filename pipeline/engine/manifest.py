"""Loading and validating manifests: one snapshot of one server.

A manifest is a JSON object whose keys are all optional (a missing key means
"not captured"); a bare ``tools/list`` result is one too. Every problem is an
``InputError`` naming the source and the problem, never a traceback.
"""

import json
import sys

from pipeline.errors import InputError
from pipeline.inputs import read_bytes, unique_keys

DEFAULT_MAX_BYTES = 64 * 1024 * 1024
DEFAULT_MAX_DEPTH = 256

# list key -> the key that names each member (members are matched by it)
ENTITY_KEYS = {
    "tools": "name",
    "prompts": "name",
    "resources": "uri",
    "resourceTemplates": "uriTemplate",
    "probes": "name",  # calls made at capture time (behaviour.py)
}


def read_manifest(path: str, max_bytes: int = DEFAULT_MAX_BYTES,
                  max_depth: int = DEFAULT_MAX_DEPTH) -> dict:
    """Read, decode, parse and validate the manifest at ``path`` (``-``: stdin)."""
    source = "<stdin>" if path == "-" else path
    data = _read_bytes(path, source, max_bytes)
    return parse_manifest(data, source, max_bytes, max_depth)


def _read_bytes(path: str, source: str, max_bytes: int) -> bytes:
    try:
        if path == "-":
            data = sys.stdin.buffer.read(max_bytes + 1)
        else:
            data = read_bytes(path, max_bytes, "manifest file")  # bounded; FIFOs and devices refused
    except FileNotFoundError:
        raise InputError(source, "no such file") from None
    except IsADirectoryError:
        raise InputError(source, "is a directory, not a manifest file") from None
    except PermissionError:
        raise InputError(source, "permission denied") from None
    except OSError as exc:
        raise InputError(source, f"cannot read: {exc.strerror or exc}") from None
    if len(data) > max_bytes:
        raise InputError(source, f"input is larger than the {max_bytes}-byte limit")
    return data


def _reject_constant(name):
    raise ValueError(f"{name} is not valid JSON")


def _finite_float(text):
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"number {text} is out of range")
    return value


def parse_manifest(data, source: str = "<manifest>", max_bytes: int = DEFAULT_MAX_BYTES,
                   max_depth: int | None = DEFAULT_MAX_DEPTH) -> dict:
    """Parse bytes or text into a validated manifest."""
    if isinstance(data, bytes):
        if len(data) > max_bytes:
            raise InputError(source, f"input is larger than the {max_bytes}-byte limit")
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise InputError(
                source, f"not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})"
            ) from None
    else:
        text = data
    try:
        doc = json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float,
                         object_pairs_hook=unique_keys)
    except json.JSONDecodeError as exc:
        raise InputError(source, f"invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except ValueError as exc:
        raise InputError(source, f"invalid JSON: {exc}") from None
    except RecursionError:
        raise InputError(source, f"nesting deeper than the limit of {max_depth} levels") from None
    return validate_manifest(doc, source, max_depth)


def _check_depth(doc, source: str, max_depth: int) -> None:
    """Level by level, so the walk is a few C-level list builds per level
    rather than a push and pop per container."""
    level, depth = [doc], 1
    while level:
        if depth > max_depth:
            raise InputError(source, f"nesting deeper than the limit of {max_depth} levels")
        deeper = []
        for node in level:
            values = node.values() if type(node) is dict else node
            deeper.extend([v for v in values if type(v) is dict or type(v) is list])
        level, depth = deeper, depth + 1


def validate_manifest(doc, source: str = "<manifest>", max_depth: int | None = DEFAULT_MAX_DEPTH) -> dict:
    """Check the shape the engine relies on; return the document unchanged.
    ``max_depth=None`` skips the nesting walk, for documents that passed it
    already (the lake validates every capture at ingest)."""
    if not isinstance(doc, dict):
        raise InputError(source, f"top level is a JSON {_kind(doc)}, expected an object")
    if max_depth is not None:
        _check_depth(doc, source, max_depth)
    for list_key, name_key in ENTITY_KEYS.items():
        if list_key not in doc:
            continue
        members = doc[list_key]
        if not isinstance(members, list):
            raise InputError(source, f"'{list_key}' is a JSON {_kind(members)}, expected a list")
        seen = set()
        for index, member in enumerate(members):
            where = f"{list_key}[{index}]"
            if not isinstance(member, dict):
                raise InputError(source, f"{where} is a JSON {_kind(member)}, expected an object")
            name = member.get(name_key)
            if not isinstance(name, str):
                raise InputError(source, f"{where} has no string '{name_key}'")
            if name in seen:
                raise InputError(source, f"{where}: duplicate {name_key} {name!r}")
            seen.add(name)
            if list_key == "tools":
                for schema_key in ("inputSchema", "outputSchema"):
                    if schema_key in member and not isinstance(member[schema_key], (dict, bool)):
                        raise InputError(
                            source,
                            f"tool {name!r}: {schema_key} is a JSON {_kind(member[schema_key])}, "
                            "expected an object or boolean",
                        )
            if list_key == "probes" and not isinstance(member.get("tool"), str):
                raise InputError(source, f"{where} (probe {name!r}) has no string 'tool'")
            if list_key == "prompts" and "arguments" in member:
                _check_arguments(member, name, source)
    return doc


def _check_arguments(prompt: dict, name: str, source: str) -> None:
    args = prompt["arguments"]
    if args is None:
        return
    if not isinstance(args, list):
        raise InputError(source, f"prompt {name!r}: 'arguments' is a JSON {_kind(args)}, expected a list")
    seen = set()
    for index, arg in enumerate(args):
        if not isinstance(arg, dict) or not isinstance(arg.get("name"), str):
            raise InputError(source, f"prompt {name!r}: arguments[{index}] has no string 'name'")
        if arg["name"] in seen:
            raise InputError(source, f"prompt {name!r}: duplicate argument {arg['name']!r}")
        seen.add(arg["name"])


def _kind(value) -> str:
    if value is None:
        return "null"
    return {bool: "boolean", int: "number", float: "number", str: "string",
            list: "array", dict: "object"}.get(type(value), type(value).__name__)
