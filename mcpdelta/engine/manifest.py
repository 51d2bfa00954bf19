"""Loading and validating manifests: one snapshot of one server.

A manifest is a JSON object whose keys are all optional (a missing key means
"not captured"); a bare ``tools/list`` result is one too. Every problem is an
``InputError`` naming the source and the problem, never a traceback.
"""

import sys

from mcpdelta.errors import InputError
from mcpdelta.inputs import check_depth, load_json, read_bytes, ungzipped

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


def parse_manifest(data, source: str = "<manifest>", max_bytes: int = DEFAULT_MAX_BYTES,
                   max_depth: int | None = DEFAULT_MAX_DEPTH) -> dict:
    """Parse bytes or text into a validated manifest: the bounded decode every
    untrusted JSON goes through (gzip, size, UTF-8, strict JSON, nesting), then the shape."""
    if isinstance(data, bytes) and len(data) > max_bytes:
        raise InputError(source, f"input is larger than the {max_bytes}-byte limit")
    if isinstance(data, bytes):  # a .json.gz capture: decompressed under the same bound
        data = ungzipped(data, source, max_bytes)
    doc = load_json(data, source, max_depth or DEFAULT_MAX_DEPTH, max_bytes, strict=True)
    return validate_manifest(doc, source, None)


def validate_manifest(doc, source: str = "<manifest>", max_depth: int | None = DEFAULT_MAX_DEPTH) -> dict:
    """Check the shape the engine relies on; return the document unchanged.
    ``max_depth=None`` skips the nesting walk, for documents that passed it
    already (the lake validates every capture at ingest)."""
    if not isinstance(doc, dict):
        raise InputError(source, f"top level is a JSON {_kind(doc)}, expected an object")
    if max_depth is not None:
        check_depth(doc, source, max_depth)
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
