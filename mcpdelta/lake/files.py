"""A lake file: the folder of a server's rows, and the check every file a
reader would read passes first (Parquet, of its table's schema), shared by
the folder lake (``folder``) and the object-store lake (``objectstore``).
"""

import os

import pyarrow as pa
import pyarrow.parquet as pq

from mcpdelta.errors import InputError
from mcpdelta.lake.tables import TABLES, VERSION

CHECKED = {}  # (path, size, mtime or etag) -> None: files whose footer and schema were checked
NOT_PARQUET = "not a readable Parquet file (truncated or not Parquet): "


def check_file(path: str, table: str) -> None:
    """``InputError`` naming ``path`` unless it is a whole Parquet file of
    ``table``'s schema (its footer read, not its rows; once per version of
    the file in this process)."""
    try:
        info = os.stat(path)
    except OSError as exc:
        raise InputError(path, f"cannot read lake file: {exc.strerror or exc}") from None
    key = (path, info.st_size, info.st_mtime_ns)
    if key in CHECKED:
        return
    if info.st_size == 0:
        raise InputError(path, "lake file is empty (not Parquet); move it out of the lake")
    try:
        found = pq.read_schema(path)
    except OSError as exc:
        raise InputError(path, f"cannot read lake file: {exc.strerror or exc}") from None
    except pa.ArrowException as exc:  # ArrowInvalid: not Parquet, or cut short
        raise InputError(path, NOT_PARQUET + f"{str(exc).splitlines()[0][:160]}; "
                               "move it out of the lake") from None
    check_schema(path, table, found)
    CHECKED[key] = None


def check_schema(path: str, table: str, found) -> None:
    """``InputError`` naming ``path`` unless ``found`` (its Arrow schema)
    holds exactly the table's columns, each of the table's type."""
    expected = TABLES[table]
    for field in found:
        want = expected.field(field.name) if field.name in expected.names else None
        if want is None or not want.type.equals(field.type):
            raise InputError(path, f"not a {table}/{VERSION} file: column {field.name!r} "
                                   f"({field.type}) is not in the table's schema; "
                                   "move it out of the lake")
    missing = [n for n in expected.names if n not in found.names]
    if missing:
        raise InputError(path, f"not a {table}/{VERSION} file: it lacks the column {missing[0]!r}; "
                               "move it out of the lake")


def partition_value(server_id: str) -> str:
    """A folder-safe spelling of a server id (the id itself is a column)."""
    from mcpdelta.names import quoted

    return quoted(server_id)


def partition_name(server_id: str) -> str:
    """The Hive folder of a server's rows: ``server_id=<quoted id>``, one
    checked file name (``mcpdelta.names``)."""
    from mcpdelta.names import file_name

    return file_name(f"server_id={partition_value(server_id)}", "lake partition")
