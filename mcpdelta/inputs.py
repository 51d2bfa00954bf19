"""Reading untrusted files: bounded, and every problem one ``InputError``.

    read_bytes(path, limit)       the bytes of a regular file, at most ``limit``
    read_text(path, limit)        the same, decoded as UTF-8
    load_yaml(text, where)        YAML with aliases, nesting and size bounded, duplicate
                                  keys refused: every YAML the project reads
    compose_yaml(text, where)     the same checks, the node graph (for line numbers)
    load_json(data, where)        JSON with nesting and size bounded (servers' messages,
                                  lake cells, files, judges' answers: every untrusted decode)
    check_depth(value, where)     the nesting bound alone, for a value decoded already
    unique_keys(pairs)            a ``json`` object_pairs_hook that refuses duplicate keys
    gunzip(data, where, limit)    a whole gzip file: every member, each trailer checked
    ungzipped(data, where, limit) ``gunzip`` for data that starts as gzip does, else the data

Every file the CLI reads goes through ``read_bytes``: the size is checked
before reading (on the open file, so a swapped symlink cannot dodge it), only
regular files are read (a FIFO is opened non-blocking and refused, a device
such as ``/dev/zero`` refused), and the read itself never asks for more than
``limit + 1`` bytes.
"""

import errno
import os
import stat

from mcpdelta.errors import InputError

DEFAULT_LIMIT = 64 * 1024 * 1024
JSON_MAX_DEPTH = 256          # nested arrays and objects in one JSON value (a manifest's limit)
YAML_MAX_DEPTH = 256          # nested collections in one YAML document (a manifest's limit)
YAML_MAX_NODES = 1_000_000    # nodes after every alias is expanded (a billion laughs is 10**9)


def read_bytes(path, limit: int = DEFAULT_LIMIT, what: str = "file") -> bytes:
    """The contents of the regular file at ``path``; ``InputError`` naming it
    when it is missing, not a regular file, larger than ``limit`` bytes or
    unreadable."""
    where = os.fsdecode(path)
    try:
        # O_NONBLOCK: opening a FIFO with no writer would otherwise wait for ever
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise InputError(where, _os_problem(exc, what)) from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise InputError(where, f"is a directory, not a {what}")
        if not stat.S_ISREG(info.st_mode):
            raise InputError(where, f"is a {_kind(info.st_mode)}, not a regular {what}")
        if info.st_size > limit:
            raise InputError(where, f"{what} is larger than the {limit}-byte limit ({info.st_size} bytes)")
        os.set_blocking(fd, True)
        chunks, left = [], limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    except OSError as exc:
        raise InputError(where, _os_problem(exc, what)) from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit:  # it grew while being read
        raise InputError(where, f"{what} is larger than the {limit}-byte limit")
    return data


def read_text(path, limit: int = DEFAULT_LIMIT, what: str = "file") -> str:
    """``read_bytes`` decoded as UTF-8 (a byte-order mark is dropped)."""
    data = read_bytes(path, limit, what)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(os.fsdecode(path), f"{what} is not valid UTF-8 "
                                            f"(byte 0x{data[exc.start]:02x} at offset {exc.start})") from None


def _kind(mode) -> str:
    if stat.S_ISFIFO(mode):
        return "FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    if stat.S_ISSOCK(mode):
        return "socket"
    return "special file"


def _os_problem(exc: OSError, what: str) -> str:
    if exc.errno == errno.ENOENT:
        return "no such file"
    if exc.errno == errno.ELOOP:
        return "symbolic link loop"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if exc.errno == errno.EISDIR:
        return f"is a directory, not a {what}"
    if exc.errno == errno.ENOTDIR:
        return "a part of the path is not a folder"
    return f"cannot read: {exc.strerror or exc}"


# --- gzip ---------------------------------------------------------------------

def gunzip(data: bytes, where: str, limit: int = DEFAULT_LIMIT) -> bytes:
    """The whole content of a gzip file, bounded: every member in turn (a
    file may hold several, concatenated), each one's trailer (CRC-32 and
    length) checked by zlib, and nothing after the last member. A member cut
    short, a wrong trailer, trailing bytes or output past ``limit`` is an
    ``InputError`` naming ``where``: never a capture read in part."""
    import zlib

    if not data:
        raise InputError(where, "not a valid gzip file (it is empty)")
    out, rest, members = [], data, 0
    while rest:
        if rest[:2] != b"\x1f\x8b":
            what = "trailing bytes after the gzip data" if members else "not a gzip file (no gzip header)"
            raise InputError(where, f"{what}; refused")
        inflate = zlib.decompressobj(wbits=31)
        try:
            chunk = inflate.decompress(rest, limit + 1 - sum(map(len, out)))
        except zlib.error as exc:
            raise InputError(where, f"not a valid gzip file ({exc})") from None
        out.append(chunk)
        if sum(map(len, out)) > limit or inflate.unconsumed_tail:
            raise InputError(where, f"decompresses to more than the {limit}-byte limit")
        if not inflate.eof:
            raise InputError(where, "gzip data cut short (no complete trailer); refused")
        members += 1
        rest = inflate.unused_data
    return b"".join(out)


def ungzipped(data: bytes, where: str, limit: int = DEFAULT_LIMIT) -> bytes:
    """``data`` decompressed by ``gunzip`` when it starts with gzip's magic
    bytes (no JSON or YAML text does), else ``data`` as it is: a file read
    whole, compressed or not, under one bound."""
    return gunzip(data, where, limit) if data[:2] == b"\x1f\x8b" else data


# --- YAML ---------------------------------------------------------------------

def load_yaml(text, where: str, max_depth: int = YAML_MAX_DEPTH, max_nodes: int = YAML_MAX_NODES):
    """Parse one YAML document with the safe constructors.

    Aliases are allowed, but the document's size with every alias expanded
    is counted first (in time linear in the document, aliases shared), so an
    alias bomb is refused before anything walks it; a recursive alias,
    nesting deeper than ``max_depth`` and a key twice in one mapping are
    refused too (YAML's own loaders keep the last silently, while a reader
    of the file sees the first)."""
    import yaml

    node = compose_yaml(text, where, max_depth, max_nodes)
    if node is None:
        return None
    return yaml.SafeLoader("").construct_document(node)


def compose_yaml(text, where: str, max_depth: int = YAML_MAX_DEPTH, max_nodes: int = YAML_MAX_NODES):
    """The checked node graph of one YAML document (``None`` if empty), for
    callers that report line numbers; ``load_yaml`` builds values from it."""
    import yaml

    loader = _bounded_loader(max_depth)(text)
    try:
        node = loader.get_single_node()
        if node is not None:
            _expanded_size(node, where, max_nodes)
            _unique_keys(node, where)
        return node
    except _TooDeep:
        raise InputError(where, f"nested deeper than the limit of {max_depth} levels") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f":{mark.line + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise InputError(f"{where}{at}", f"not valid YAML: {problem}") from None
    finally:
        loader.dispose()


class _TooDeep(Exception):
    pass


_LOADERS = {}


def _bounded_loader(max_depth: int):
    if max_depth not in _LOADERS:
        import yaml

        # the pure-Python loader: the C one composes without calling compose_node
        class Loader(yaml.SafeLoader):
            _depth = 0

            def compose_node(self, parent, index):
                self._depth += 1
                try:
                    if self._depth > max_depth:
                        raise _TooDeep()
                    return super().compose_node(parent, index)
                finally:
                    self._depth -= 1

        _LOADERS[max_depth] = Loader
    return _LOADERS[max_depth]


def _expanded_size(root, where: str, limit: int) -> int:
    """Nodes in the tree the node graph stands for (an alias counts its
    whole target again). Memoised per node, so shared subtrees cost once;
    an iterative walk, so depth never meets Python's recursion limit."""
    import yaml

    size = {}
    open_ = set()
    stack = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            children = _children(node)
            total = 1 + sum(size[id(c)] for c in children)
            if total > limit:
                raise InputError(where, f"YAML expands to more than {limit} nodes (an alias bomb?)")
            size[key] = total
            open_.discard(key)
            continue
        if key in size:
            continue
        if key in open_:
            mark = node.start_mark
            raise InputError(f"{where}:{mark.line + 1}", "recursive YAML alias (a node that contains itself)")
        if isinstance(node, yaml.ScalarNode):
            size[key] = 1
            continue
        open_.add(key)
        stack.append((node, True))
        for child in _children(node):
            if id(child) in open_:
                mark = child.start_mark
                raise InputError(f"{where}:{mark.line + 1}",
                                 "recursive YAML alias (a node that contains itself)")
            if id(child) not in size:
                stack.append((child, False))
    return size[id(root)]


def _unique_keys(root, where: str) -> None:
    """``InputError`` (file:line) at the second of two equal keys in one
    mapping. Keys are compared as values (``yes`` and ``true`` are one key
    to the constructor), each mapping checked once however often aliased."""
    import yaml

    constructor = yaml.SafeLoader("")
    checked, stack = set(), [root]
    while stack:
        node = stack.pop()
        if id(node) in checked or isinstance(node, yaml.ScalarNode):
            continue
        checked.add(id(node))
        if isinstance(node, yaml.MappingNode):
            first = {}
            for key, _ in node.value:
                if not isinstance(key, yaml.ScalarNode):
                    continue
                try:
                    value = (constructor.construct_object(key),)
                    hash(value)
                except (yaml.YAMLError, TypeError, ValueError):  # a merge key ("<<"), say
                    value = (key.tag, key.value)
                if value in first:
                    raise InputError(f"{where}:{key.start_mark.line + 1}",
                                     f"duplicate key {key.value!r} (first at line {first[value] + 1}); "
                                     f"a key may appear once in a mapping")
                first[value] = key.start_mark.line
        stack.extend(_children(node))


def _children(node) -> list:
    import yaml

    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


# --- JSON ---------------------------------------------------------------------

def load_json(data, where: str, max_depth: int = JSON_MAX_DEPTH, max_bytes: int = DEFAULT_LIMIT,
              strict: bool = False):
    """One JSON value from bytes or text someone else wrote, or ``InputError``
    naming ``where``: more than ``max_bytes``, not UTF-8, not JSON, or nested
    deeper than ``max_depth``. The decoder's own recursion limit is met as
    that same error (a line of 100,000 ``[`` is one error, never a
    ``RecursionError``), and a value it accepts is walked once more, level by
    level, so nothing that recurses over it later meets Python's limit
    either. ``strict`` also refuses NaN, infinities and duplicate keys."""
    import json

    if len(data) > max_bytes:
        raise InputError(where, f"larger than the {max_bytes}-byte limit ({len(data)} bytes)")
    if isinstance(data, (bytes, bytearray, memoryview)):
        data = bytes(data)
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise InputError(where, f"not valid UTF-8 (byte 0x{data[exc.start]:02x} "
                                    f"at offset {exc.start})") from None
    options = {"parse_constant": _no_constant, "parse_float": _finite_float,
               "object_pairs_hook": unique_keys} if strict else {}
    try:
        value = json.loads(data, **options)
    except json.JSONDecodeError as exc:
        raise InputError(where, f"invalid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    except ValueError as exc:
        raise InputError(where, f"invalid JSON: {exc}") from None
    except RecursionError:
        raise TooDeep(where, f"nesting deeper than the limit of {max_depth} levels") from None
    if data.count("[") + data.count("{") > max_depth:  # else it cannot nest deeper: no walk needed
        check_depth(value, where, max_depth)
    return value


class TooDeep(InputError):
    """JSON nested deeper than its limit: valid, maybe, but refused."""


def check_depth(value, where: str, max_depth: int = JSON_MAX_DEPTH) -> None:
    """``InputError`` when arrays and objects nest deeper than ``max_depth``.
    Level by level, so the walk is a few C-level list builds per level
    rather than a push and pop per container."""
    level, depth = ([value] if type(value) is dict or type(value) is list else []), 1
    while level:
        if depth > max_depth:
            raise TooDeep(where, f"nesting deeper than the limit of {max_depth} levels")
        deeper = []
        for node in level:
            values = node.values() if type(node) is dict else node
            deeper.extend([v for v in values if type(v) is dict or type(v) is list])
        level, depth = deeper, depth + 1


def _no_constant(name):
    raise ValueError(f"{name} is not valid JSON")


def _finite_float(text):
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"number {text} is out of range")
    return value


class DuplicateKey(ValueError):
    pass


def unique_keys(pairs):
    """``json.loads(..., object_pairs_hook=unique_keys)``: a dict, or
    ``DuplicateKey`` naming the first key that appears twice in one object."""
    result = dict(pairs)
    if len(result) != len(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKey(f"duplicate key {key!r} in one object")
            seen.add(key)
    return result
