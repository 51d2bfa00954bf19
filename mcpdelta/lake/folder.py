"""The lake in a folder, and the ``Lake`` every kind of lake builds on: the
object-store lake (``objectstore.ObjectLake``) is a ``Lake`` whose files
are objects. How a lake is written and read: ``mcpdelta/lake/__init__.py``.
"""

import errno
import os
import sys
import urllib.parse
import uuid

import pyarrow as pa
import pyarrow.parquet as pq

from mcpdelta.errors import InputError
from mcpdelta.lake.files import NOT_PARQUET, check_file, check_schema, partition_name
from mcpdelta.lake.tables import PARTITIONED, TABLES, VERSION

from mcpdelta.resources import SQL_DIR as SQL


def new_batch_id() -> str:
    return uuid.uuid4().hex


def local_path(root: str) -> str:
    """The folder a lake root names: a path, or a ``file://`` URI."""
    if "://" not in root:
        return os.path.abspath(root)
    scheme = root.split("://", 1)[0].lower()
    if scheme != "file":
        raise InputError(root, f"unsupported lake URI scheme {scheme!r} "
                               "(a lake is a local folder, a file:// URI or s3://BUCKET/PREFIX)")
    parts = urllib.parse.urlsplit(root)
    if parts.netloc not in ("", "localhost"):
        raise InputError(root, "a file:// lake must name a folder on this machine")
    return os.path.abspath(urllib.parse.unquote(parts.path) or "/")


class Lake:
    """A lake in a folder. A kind of lake kept elsewhere is a subclass that
    names its URI ``scheme``; ``Lake(root)`` opens a root of that scheme as
    that kind (``mcpdelta.lake`` imports every kind, so none is unknown
    here when a lake is opened)."""

    remote = False  # a folder on this machine; an object-store lake is remote
    scheme = None   # the URI scheme of a lake kept elsewhere, as in ``s3://``

    def __new__(cls, root=None, writer=None):
        if cls is Lake and isinstance(root, str):
            for kind in Lake.__subclasses__():
                if kind.scheme and root[:len(kind.scheme)].lower() == kind.scheme:
                    return super().__new__(kind)
        return super().__new__(cls)

    def __init__(self, root: str, writer=None):
        """``writer``: the token of an object-store lake's lease held
        elsewhere (a folder lake's lock needs none)."""
        self.root = root.rstrip("/") or root
        self.base = local_path(self.root)

    def folder(self, table: str) -> str:
        return f"{self.base}/{table}/{VERSION}"

    def require(self) -> None:
        """``InputError`` unless the lake is a folder that exists (for readers)."""
        if os.path.isdir(self.base):
            return
        if os.path.exists(self.base):
            raise InputError(self.root, "the lake is a file, not a folder")
        raise InputError(self.root, "no such lake folder")

    def writing(self, wait: bool = False):
        """A context holding this lake's write lock (``mcpdelta.lake.lock``)."""
        from mcpdelta.lake.lock import writer_lock

        return writer_lock(self.base, wait, notify=lambda line: print(line, file=sys.stderr))

    # --- writing ---------------------------------------------------------

    def append(self, table: str, rows: list, batch_id: str) -> list:
        """Write ``rows`` (dicts, or tuples in the table's column order) as
        new files of ``table``: one per server partition of a partitioned
        table, else one; return the paths written."""
        if not rows:
            return []
        schema = TABLES[table]
        if table not in PARTITIONED:
            return [self._write(f"{self.folder(table)}/part-{batch_id}.parquet", _arrow(rows, schema))]
        server = schema.get_field_index("server_id") if isinstance(rows[0], tuple) else "server_id"
        by_server = {}
        for row in rows:
            by_server.setdefault(row[server], []).append(row)
        paths = []
        for server_id in sorted(by_server):
            folder = f"{self.folder(table)}/{partition_name(server_id)}"
            table_data = _arrow(by_server[server_id], schema)
            paths.append(self._write(f"{folder}/part-{batch_id}.parquet", table_data))
        return paths

    def _write(self, path: str, data: pa.Table) -> str:
        """One new file, through the one way to write (``mcpdelta.files``): a
        fresh temporary name, fsynced and renamed; a link in the lake is refused."""
        from mcpdelta.files import make_folder, replacing

        folder = os.path.dirname(path)
        try:
            make_folder(self.base, *os.path.relpath(folder, self.base).split(os.sep))
            with replacing(path) as handle:
                pq.write_table(data, handle, compression="zstd")
        except OSError as exc:
            raise InputError(path, _write_problem(exc, self.base)) from None
        return path

    # --- housekeeping ----------------------------------------------------

    def remove_orphans(self) -> int:
        """Delete ``changes`` files whose batch never reached the ``pairs``
        ledger (a crash between the two writes), and stale temporary files.
        The ledger is written last, so what it lists is complete. A changes
        file and its ledger file have the same place in their tables: both
        in the table's folder, or (lakes written before) both in the same
        server's partition."""
        removed = 0
        ledger = set()  # (place in the table's folder, file name) of every ledger file
        pairs = self.folder("pairs")
        for root, _, files in os.walk(pairs):
            ledger.update((os.path.relpath(root, pairs), f) for f in files if f.endswith(".parquet"))
        for table in TABLES:
            folder = self.folder(table)
            for root, _, files in os.walk(folder):
                for name in files:
                    stale = name.endswith(".tmp")
                    orphan = (table == "changes" and name.endswith(".parquet")
                              and (os.path.relpath(root, folder), name) not in ledger)
                    if stale or orphan:
                        os.remove(os.path.join(root, name))
                        removed += 1
        return removed

    # --- reading ---------------------------------------------------------

    def files(self, table: str) -> list:
        """The table's committed files (its partitions' and its own
        folder's), each checked to be Parquet of the table's schema
        (``InputError`` naming the first that is not)."""
        folder = self.folder(table)
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except (FileNotFoundError, NotADirectoryError):
            return []
        paths = []
        for entry in entries:
            if entry.name.startswith("server_id=") and entry.is_dir():
                paths += _parquet_in(entry.path)
        paths += _parquet_in(folder)
        for path in paths:
            check_file(path, table)
        return paths

    def read_servers(self, table: str, server_ids, columns=None, dictionary=()):
        """The rows of some servers, read straight from their files (an
        Arrow table): a worker loads only the servers it diffs. A server's
        partition is read whole; a file of the table's own folder (a batch's
        rows of many servers) is read and filtered. The ``dictionary``
        columns come as Arrow dictionaries, each distinct value once (see
        ``texts``)."""
        wanted = sorted(set(server_ids))
        names = list(columns or TABLES[table].names)
        folder = self.folder(table)
        tables = []
        for server_id in wanted:
            for path in _parquet_in(f"{folder}/{partition_name(server_id)}"):
                tables.append(_read_file(path, table, columns, dictionary))
        shared = _parquet_in(folder)
        if shared:
            import pyarrow.compute as pc  # 80 ms to import: not for the workers' partitioned reads

            ids = pa.array(wanted, pa.string())
            read = names if "server_id" in names else names + ["server_id"]
            for path in shared:
                data = _read_file(path, table, read, dictionary)
                tables.append(data.filter(pc.is_in(data["server_id"], value_set=ids)).select(names))
        if not tables:
            return pa.Table.from_pylist([], TABLES[table]).select(names)
        return pa.concat_tables(tables, promote_options="default")

    def connect(self, engine_version=None, policy_hash=None, tables=None):
        """A DuckDB connection with one view per table (empty when the lake
        has no file of it yet). Given an engine version and policy hash,
        ``changes`` and ``pairs`` show only what that engine and policy
        produced; ``all_changes`` and ``all_pairs`` always show everything
        committed. Given ``tables``, only those are opened (their files
        alone checked and bound; ``changes`` needs ``pairs``), without the
        derived views."""
        import duckdb

        con = duckdb.connect()
        chosen = TABLES if tables is None else tables
        for table in sorted(chosen, key=lambda t: t == "changes"):  # changes joins all_pairs
            schema = TABLES[table]
            name = f"all_{table}" if table in RAW else table
            files = self.files(table)
            if table == "changes" and files:
                # a changes file counts once its batch's ledger file is there
                con.execute("CREATE VIEW _written_changes AS " + self._relation(con, table, files))
                con.execute(f"CREATE VIEW {name} AS SELECT c.* FROM _written_changes c "
                            "SEMI JOIN all_pairs p ON c.server_id = p.server_id "
                            "AND c.batch_id = p.batch_id")
            elif files:
                con.execute(f"CREATE VIEW {name} AS " + self._relation(con, table, files))
            else:
                con.register(f"_empty_{table}", pa.Table.from_pylist([], schema))
                con.execute(f"CREATE VIEW {name} AS SELECT * FROM _empty_{table}")
        if "attempts" in chosen and tables is not None:
            con.execute("CREATE VIEW attempts AS SELECT * FROM all_attempts")
        for table in [t for t in ("changes", "pairs") if t in chosen]:
            if engine_version is None:
                con.execute(f"CREATE VIEW {table} AS SELECT * FROM all_{table}")
            else:
                con.execute(f"CREATE VIEW {table} AS SELECT * FROM all_{table} "
                            f"WHERE engine_version = '{_quote(engine_version)}' "
                            f"AND policy_hash = '{_quote(policy_hash)}'")
        # each pair of contracts once with its counts, and the units every
        # survey counts; bound by name, so they follow the views above if a
        # caller narrows them later
        if tables is None:
            evidence_macros(con)
            con.execute("CREATE VIEW empty_captures AS\n" + (SQL / "empty_captures.sql").read_text())
            con.execute(ATTEMPTS_READ)
        for view in ("ledger", "releases", "release_steps") if tables is None else ():
            con.execute(f"CREATE VIEW {view} AS\n" + (SQL / f"{view}.sql").read_text())
        return con

    def _relation(self, con, table: str, files: list) -> str:
        """The SQL of a table's files as one relation (``_read``)."""
        return _read(files)


# tables whose raw rows are ``all_<table>`` and whose plain name is a reading of them
RAW = ("changes", "pairs", "attempts")
# the attempts as read: one that captured an empty contract (sql/empty_captures.sql) failed
ATTEMPTS_READ = """CREATE VIEW attempts AS
SELECT a.* REPLACE (
    a.ok AND e.error IS NULL AS ok,
    CASE WHEN a.ok AND e.error IS NOT NULL THEN 'empty' ELSE a.error_kind END AS error_kind,
    CASE WHEN a.ok AND e.error IS NOT NULL THEN e.error ELSE a.error END AS error,
    CASE WHEN e.error IS NULL THEN a.manifest_digest END AS manifest_digest)
FROM all_attempts a
LEFT JOIN empty_captures e ON e.server_id = a.server_id AND e.manifest_digest = a.manifest_digest"""


def evidence_macros(con):
    """The DuckDB macros every query that splits breaking changes by evidence
    uses: ``evidence(witness, note)`` (proven / by rule / unexplained) and
    ``named_reason(note)`` (the named reason a by-rule note opens with),
    both from ``mcpdelta.witness.evidence``, the one reading of a witness."""
    from mcpdelta.witness.evidence import NAMED_REASONS, sql_case

    con.execute(f"CREATE OR REPLACE MACRO evidence(witness, note) AS {sql_case('witness', 'note')}")
    reasons = " ".join(f"WHEN starts_with(note, '{_quote(p)}') THEN '{_quote(p)}'" for p in NAMED_REASONS)
    con.execute(f"CREATE OR REPLACE MACRO named_reason(note) AS CASE {reasons} END")
    return con


def _arrow(rows, schema):
    """Rows (dicts, or tuples in the schema's order) as an Arrow table."""
    if isinstance(rows[0], tuple):  # transposed in C, no dict a row
        return pa.Table.from_arrays([pa.array(column, field.type)
                                     for column, field in zip(zip(*rows), schema)], schema=schema)
    return pa.Table.from_pylist(rows, schema)


def _read(files) -> str:
    """The files as one relation, bound from the first file's footer: every
    file holds exactly the table's columns and types (``check_file``), and
    DuckDB matches each file's columns by name, in whatever order they are.
    (``union_by_name`` would bind every file's footer first: about a third
    of a connect, for nothing.)"""
    # the file list is a literal: a parameter cannot be used in a view body
    listed = ", ".join("'" + _quote(f) + "'" for f in files)
    return f"SELECT * FROM read_parquet([{listed}], hive_partitioning = false)"


def _parquet_in(folder: str) -> list:
    """The committed ``*.parquet`` files right in ``folder``, by name
    (none when there is no such folder)."""
    try:
        names = sorted(os.listdir(folder))
    except (FileNotFoundError, NotADirectoryError):
        return []
    return [f"{folder}/{n}" for n in names if n.endswith(".parquet") and not n.startswith(".")]


def texts(column) -> list:
    """A string column's values as Python strings; of a dictionary column,
    each distinct value is one string object however many rows hold it (a
    release mostly keeps its surface and tools: one decoding, and the
    caches keyed by text find them by identity)."""
    out = []
    for chunk in column.chunks:
        if isinstance(chunk, pa.DictionaryArray):
            values = chunk.dictionary.to_pylist()
            out += [None if i is None else values[i] for i in chunk.indices.to_pylist()]
        else:
            out += chunk.to_pylist()
    return out


def _read_file(path: str, table: str, columns, dictionary=()):
    """A lake file's rows (an Arrow table), its footer checked first.
    The file is opened once: its footer is both checked and read from
    (``pq.read_table`` would resolve a filesystem and a dataset per file)."""
    parquet = _open(path, dictionary)
    found = parquet.schema_arrow
    if dictionary:  # the columns asked for as dictionaries are checked as what they hold
        found = pa.schema([f.with_type(f.type.value_type) if f.name in dictionary
                           and pa.types.is_dictionary(f.type) else f for f in found])
    check_schema(path, table, found)
    try:
        return parquet.read(columns=columns, use_threads=False)
    except (OSError, pa.ArrowException) as exc:  # a footer that lies about its pages
        raise InputError(path, NOT_PARQUET + f"{str(exc).splitlines()[0][:160]}; "
                               "move it out of the lake") from None


def _open(path: str, dictionary=()):
    """A ``pq.ParquetFile`` (its footer read), or the ``InputError`` that
    ``check_file`` gives for a file that is not whole Parquet. Its column
    chunks are read as asked, not pre-buffered: coalescing reads pays off on
    object stores, and on a local disk costs about 0.3 ms a file."""
    try:
        if os.stat(path).st_size == 0:
            raise InputError(path, "lake file is empty (not Parquet); move it out of the lake")
        return pq.ParquetFile(path, read_dictionary=list(dictionary) or None, pre_buffer=False)
    except OSError as exc:
        raise InputError(path, f"cannot read lake file: {exc.strerror or exc}") from None
    except pa.ArrowException as exc:
        raise InputError(path, NOT_PARQUET + f"{str(exc).splitlines()[0][:160]}; "
                               "move it out of the lake") from None


def _write_problem(exc: OSError, base: str) -> str:
    number = exc.errno
    if number is None:  # pyarrow's I/O errors carry the errno in the message only
        text = str(exc)
        number = next((n for n in (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EFBIG)
                       if f"errno {n}]" in text or os.strerror(n) in text), None)
    if number in (errno.ENOSPC, errno.EDQUOT):
        return "no space left on the device (this file was not written)"
    if number == errno.EFBIG:
        return "file too large for this file system or its size limit (this file was not written)"
    if number in (errno.EROFS, errno.EACCES, errno.EPERM):
        return "the lake is read-only (cannot write here)"
    if number in (errno.ENOTDIR, errno.EEXIST):
        return f"cannot write: a file stands where a folder of the lake {base} should be"
    return f"cannot write lake file: {exc.strerror or str(exc).splitlines()[0]}"


def _quote(text: str) -> str:
    return str(text).replace("'", "''")
