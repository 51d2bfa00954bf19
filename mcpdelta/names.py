"""Ids that become file names: the one mapping, wherever an id turns into a path.

A server id, a version or a crawl-log id comes from a servers file, a
registry or a folder someone else wrote. Used as a path as it is, ``../x``
or ``/abs/x`` would read or write outside the folder meant. So every
command that turns an id into a file goes through here:

    file_name(name, what)        the name itself, or ``UnsafeName``: empty,
                                 ``.`` or ``..``, a separator (so also an
                                 absolute path), a control character, or
                                 longer than a file name can be
    path_in(folder, name)        folder/name, the name checked as above
    spelled(text)                the crawl folder's spelling of an id or a
                                 version ("/" becomes "__", the rest of the
                                 unsafe characters "_"): always a safe name
    quoted(text)                 the lake partition's spelling: percent-quoted
"""

import os
import re
import urllib.parse

from mcpdelta.errors import InputError
from mcpdelta.safe import visible

MAX_NAME_BYTES = 255  # one path component on every common file system
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


class UnsafeName(InputError):
    """An id that cannot be a file name as it is."""


def file_name(name, what: str = "name") -> str:
    """``name`` when it is one safe path component; ``UnsafeName`` naming it
    and what is wrong otherwise."""
    shown = f"{what} {visible(name)!r}" if isinstance(name, str) else what
    if not isinstance(name, str) or not name:
        raise UnsafeName(shown, "is empty; it cannot name a file")
    if name in (".", ".."):
        raise UnsafeName(shown, "is a relative folder name; it cannot name a file")
    if "/" in name or "\\" in name or (os.sep != "/" and os.sep in name):
        raise UnsafeName(shown, "holds a path separator; it cannot name a file (a path would leave its folder)")
    if _CONTROL.search(name):
        raise UnsafeName(shown, "holds a control character; it cannot name a file")
    if len(name.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES:
        raise UnsafeName(shown, f"is longer than a file name can be ({MAX_NAME_BYTES} bytes)")
    return name


def path_in(folder, name, suffix: str = "", what: str = "name") -> str:
    """``folder/name+suffix`` with ``name`` checked by ``file_name``."""
    file_name(name, what)
    return os.path.join(os.fspath(folder), file_name(name + suffix, what))


def spelled(text: str) -> str:
    """A file-system-safe spelling of an id or version. Not injective (``a/b``
    and ``a__b`` meet), so servers files refuse ids that meet and the crawl
    refuses two captures bound for one file."""
    text = str(text).replace("/", "__")
    text = re.sub(r"[^A-Za-z0-9._@+-]", "_", text).strip(".") or "_"
    return text[:200]


def quoted(text: str) -> str:
    """A folder-safe spelling of a server id for a lake partition (the id
    itself is a column of every file): percent-quoted, injective."""
    return urllib.parse.quote(str(text), safe="-_.@")
