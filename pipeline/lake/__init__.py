"""The Parquet lake: append-only files, written whole or not at all.

Every write is a new file. Locally it goes to a hidden temporary name in the
same folder and is renamed into place, so a crash mid-write leaves no partial
file and loses nothing already written; readers only ever glob ``*.parquet``.
A root given as a URI (``s3://bucket/lake``, ``gs://...``) is written through
pyarrow's filesystem layer, where an object appears only once its upload
completes; DuckDB then reads it through its ``httpfs`` extension.

Hive-style folders (``server_id=<id>``) partition each table by server; the
server id is also a column inside every file, which is what readers use.
"""

import os
import urllib.parse
import uuid

import pyarrow as pa
import pyarrow.parquet as pq

from pipeline.lake.tables import PARTITIONED, TABLES, VERSION

from pipeline.resources import SQL_DIR as SQL


def new_batch_id() -> str:
    return uuid.uuid4().hex


class Lake:
    def __init__(self, root: str):
        self.root = root.rstrip("/")
        self.remote = "://" in root
        if self.remote:
            from pyarrow import fs

            self.fs, self.base = fs.FileSystem.from_uri(self.root)
        else:
            self.fs, self.base = None, os.path.abspath(self.root)

    def folder(self, table: str) -> str:
        return f"{self.base}/{table}/{VERSION}"

    def pattern(self, table: str) -> str:
        """The glob DuckDB reads a table from."""
        where = self.root if self.remote else self.base
        depth = "*/*.parquet" if table in PARTITIONED else "*.parquet"
        return f"{where}/{table}/{VERSION}/{depth}"

    # --- writing ---------------------------------------------------------

    def append(self, table: str, rows: list, batch_id: str) -> list:
        """Write ``rows`` (dicts) as new files of ``table``, one per server
        partition; return the paths written."""
        if not rows:
            return []
        schema = TABLES[table]
        if table not in PARTITIONED:
            return [self._write(f"{self.folder(table)}/part-{batch_id}.parquet",
                                pa.Table.from_pylist(rows, schema))]
        by_server = {}
        for row in rows:
            by_server.setdefault(row["server_id"], []).append(row)
        paths = []
        for server_id in sorted(by_server):
            folder = f"{self.folder(table)}/server_id={partition_value(server_id)}"
            table_data = pa.Table.from_pylist(by_server[server_id], schema)
            paths.append(self._write(f"{folder}/part-{batch_id}.parquet", table_data))
        return paths

    def _write(self, path: str, data: pa.Table) -> str:
        if self.remote:
            self.fs.create_dir(path.rsplit("/", 1)[0], recursive=True)
            pq.write_table(data, path, filesystem=self.fs, compression="zstd")
            return path
        folder, name = path.rsplit("/", 1)
        os.makedirs(folder, exist_ok=True)
        temporary = f"{folder}/.{name}.{uuid.uuid4().hex}.tmp"
        try:
            pq.write_table(data, temporary, compression="zstd")
            os.replace(temporary, path)
        finally:
            if os.path.exists(temporary):
                os.remove(temporary)
        return path

    # --- housekeeping ----------------------------------------------------

    def remove_orphans(self) -> int:
        """Delete ``changes`` files whose batch never reached the ``pairs``
        ledger (a crash between the two writes), and stale temporary files.
        The ledger is written last, so what it lists is complete."""
        if self.remote:
            return 0  # objects appear whole; a missing ledger only means a re-diff
        removed = 0
        ledger = set()  # (partition folder, file name) of every ledger file
        for root, _, files in os.walk(self.folder("pairs")):
            ledger.update((os.path.basename(root), f) for f in files if f.endswith(".parquet"))
        for table in TABLES:
            for root, _, files in os.walk(self.folder(table)):
                for name in files:
                    stale = name.endswith(".tmp")
                    orphan = (table == "changes" and name.endswith(".parquet")
                              and (os.path.basename(root), name) not in ledger)
                    if stale or orphan:
                        os.remove(os.path.join(root, name))
                        removed += 1
        return removed

    # --- reading ---------------------------------------------------------

    def read_servers(self, table: str, server_ids, columns=None):
        """The rows of some servers' partitions, read straight from their
        files (an Arrow table): a worker loads only the servers it diffs."""
        paths = []
        for server_id in sorted(set(server_ids)):
            folder = f"{self.folder(table)}/server_id={partition_value(server_id)}"
            if self.remote:
                from pyarrow import fs

                infos = self.fs.get_file_info(fs.FileSelector(folder, allow_not_found=True))
                paths += sorted(i.path for i in infos if i.path.endswith(".parquet"))
            elif os.path.isdir(folder):
                paths += sorted(f"{folder}/{n}" for n in os.listdir(folder) if n.endswith(".parquet"))
        if not paths:
            return pa.Table.from_pylist([], TABLES[table]).select(columns or TABLES[table].names)
        tables = [pq.read_table(p, columns=columns, filesystem=self.fs) for p in paths]
        return pa.concat_tables(tables, promote_options="default")

    def connect(self, engine_version=None, policy_hash=None):
        """A DuckDB connection with one view per table (empty when the lake
        has no file of it yet). Given an engine version and policy hash,
        ``changes`` and ``pairs`` show only what that engine and policy
        produced; ``all_changes`` and ``all_pairs`` always show everything."""
        import duckdb

        con = duckdb.connect()
        if self.remote:
            con.execute("INSTALL httpfs; LOAD httpfs;")
        for table, schema in TABLES.items():
            name = f"all_{table}" if table in ("changes", "pairs") else table
            if self._has_files(table):
                # the glob is a literal: a parameter cannot be used in a view body
                glob = self.pattern(table).replace("'", "''")
                con.execute(f"CREATE VIEW {name} AS SELECT * FROM read_parquet('{glob}', "
                            "union_by_name = true, hive_partitioning = false)")
            else:
                con.register(f"_empty_{table}", pa.Table.from_pylist([], schema))
                con.execute(f"CREATE VIEW {name} AS SELECT * FROM _empty_{table}")
        for table in ("changes", "pairs"):
            if engine_version is None:
                con.execute(f"CREATE VIEW {table} AS SELECT * FROM all_{table}")
            else:
                con.execute(f"CREATE VIEW {table} AS SELECT * FROM all_{table} "
                            f"WHERE engine_version = '{_quote(engine_version)}' "
                            f"AND policy_hash = '{_quote(policy_hash)}'")
        # each pair of contracts once with its counts, and the units every
        # survey counts; bound by name, so they follow the views above if a
        # caller narrows them later
        for view in ("ledger", "releases", "release_steps"):
            con.execute(f"CREATE VIEW {view} AS\n" + (SQL / f"{view}.sql").read_text())
        return con

    def _has_files(self, table: str) -> bool:
        if self.remote:
            from pyarrow import fs

            selector = fs.FileSelector(self.folder(table), recursive=True, allow_not_found=True)
            return any(i.path.endswith(".parquet") for i in self.fs.get_file_info(selector))
        for _, _, files in os.walk(self.folder(table)):
            if any(f.endswith(".parquet") for f in files):
                return True
        return False


def _quote(text: str) -> str:
    return str(text).replace("'", "''")


def partition_value(server_id: str) -> str:
    """A folder-safe spelling of a server id (the id itself is a column)."""
    return urllib.parse.quote(server_id, safe="-_.@")
