"""The lake on object storage: ``s3://BUCKET/PREFIX``.

The same tables and the same files as a folder lake
(``mcpdelta/lake/folder.py``), under keys instead of paths. What a folder
gets from its file system, the object store gives this way:

- a file is written whole or not at all: one PUT of the finished Parquet
  bytes, visible only once complete, and conditional (``If-None-Match: *``)
  so that no name is ever written twice; a killed writer leaves at most an
  upload no listing shows;
- a diff batch commits with its ``pairs`` ledger file exactly as in a
  folder (its ``changes`` count only once the ledger is there), and a
  ``changes`` file left without one is removed by the next whole-lake run;
- one writer at a time: a lease object kept with conditional writes
  (``mcpdelta/lake/lease.py``), in place of ``flock``; every append first
  checks that its writer still holds it.

Keys are listed with boto3; Parquet is read through pyarrow's S3 file
system, and DuckDB queries Arrow datasets over those files (DuckDB's own
httpfs extension is fetched from a site of its own, and PyPI ships none for
the installed DuckDB).

Endpoint, region and credentials are the standard AWS settings, resolved
once per process by botocore (``AWS_ENDPOINT_URL`` or
``AWS_ENDPOINT_URL_S3``, ``AWS_REGION``, ``AWS_ACCESS_KEY_ID`` /
``AWS_SECRET_ACCESS_KEY`` / ``AWS_SESSION_TOKEN``, ``AWS_PROFILE`` and
``~/.aws``). They are never written anywhere, and no message carries them:
every failure is one line naming the lake and what went wrong.
"""

import re
import sys
import threading
import urllib.parse

import pyarrow as pa
import pyarrow.parquet as pq

from mcpdelta.errors import InputError
from mcpdelta.lake.files import CHECKED, NOT_PARQUET, check_schema, partition_value
from mcpdelta.lake.folder import Lake
from mcpdelta.lake.lease import fence, lease, token
from mcpdelta.lake.s3errors import client_errors, describe_error, failure, status
from mcpdelta.lake.tables import PARTITIONED, TABLES, VERSION

SCHEME = "s3://"
# S3's own rule for bucket names (3 to 63 lower-case letters, digits, dots, hyphens)
_BUCKET = re.compile(r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$")


def is_object_store(root) -> bool:
    return isinstance(root, str) and root[:len(SCHEME)].lower() == SCHEME


def split(root: str) -> tuple:
    """(bucket, prefix) of ``s3://BUCKET/PREFIX``; the prefix has no slash at
    either end and may be empty (the bucket's top)."""
    rest = root[len(SCHEME):]
    bucket, _, prefix = rest.partition("/")
    prefix = prefix.strip("/")
    if not _BUCKET.match(bucket):
        raise InputError(root, "not an S3 lake URI: s3://BUCKET/PREFIX with a valid bucket name")
    if any(part in ("", ".", "..") for part in prefix.split("/")) and prefix:
        raise InputError(root, "the prefix of an S3 lake has an empty, '.' or '..' part")
    return bucket, prefix


# --- the clients ---------------------------------------------------------

_CLIENTS = {}  # the settings they were made from -> S3 (one per process and settings)
_CLIENTS_LOCK = threading.Lock()


class S3:
    """boto3's S3 client and pyarrow's S3 file system, both from one
    reading of the AWS settings."""

    def __init__(self, where: str):
        import boto3
        import botocore.config
        import botocore.exceptions
        from pyarrow import fs

        try:
            session = boto3.session.Session()
            credentials = session.get_credentials()
            frozen = credentials.get_frozen_credentials() if credentials else None
            client = session.client("s3", config=botocore.config.Config(
                connect_timeout=5, read_timeout=60, retries={"max_attempts": 3, "mode": "standard"}))
        except botocore.exceptions.BotoCoreError as exc:  # a named profile that is not there, ...
            raise InputError(where, describe_error(exc)) from None
        if frozen is None or not frozen.access_key or not frozen.secret_key:
            raise InputError(where, "no AWS credentials (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, "
                                    "or AWS_PROFILE)")
        self.client = client
        self.secrets = tuple(s for s in (frozen.secret_key, frozen.token) if s)
        endpoint = urllib.parse.urlsplit(client.meta.endpoint_url)
        self.endpoint = f"{endpoint.scheme}://{endpoint.netloc}"
        self.fs = fs.S3FileSystem(
            access_key=frozen.access_key, secret_key=frozen.secret_key, session_token=frozen.token,
            region=client.meta.region_name, endpoint_override=endpoint.netloc, scheme=endpoint.scheme,
            connect_timeout=5, request_timeout=60,
            retry_strategy=fs.AwsStandardS3RetryStrategy(max_attempts=3))


def clients(where: str) -> S3:
    """This process's clients for the current AWS settings (made again when
    the environment names other ones)."""
    import os

    settings = tuple(os.environ.get(name) for name in (
        "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE",
        "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_CONFIG_FILE",
        "AWS_SHARED_CREDENTIALS_FILE"))
    with _CLIENTS_LOCK:
        if settings not in _CLIENTS:
            _CLIENTS.clear()  # a process uses one set of settings at a time
            _CLIENTS[settings] = S3(where)
        return _CLIENTS[settings]


# --- the lake ------------------------------------------------------------

class ObjectLake(Lake):
    """A lake under ``s3://BUCKET/PREFIX``. ``writer``: the token of the
    lease a writer elsewhere holds (a flow's task on a cluster worker
    writes under its flow's lease, and stops when the lease is gone)."""

    remote = True
    scheme = SCHEME

    def __init__(self, root: str, writer: str | None = None):
        self.bucket, self.prefix = split(root)
        self.root = self.base = f"{SCHEME}{self.bucket}/{self.prefix}".rstrip("/")
        self.writer = writer
        self._s3 = None

    def __getstate__(self):  # a task sent to a worker makes its own clients there
        return {"root": self.root, "writer": self.writer}

    def __setstate__(self, state):
        self.__init__(state["root"], state["writer"])

    @property
    def s3(self) -> S3:
        if self._s3 is None:
            self._s3 = clients(self.root)
        return self._s3

    def key(self, name: str) -> str:
        """The object key under the lake of ``name`` (a path below the root)."""
        return f"{self.prefix}/{name}" if self.prefix else name

    def _key_of(self, uri: str) -> str:
        return uri[len(f"{SCHEME}{self.bucket}/"):]

    def folder(self, table: str) -> str:
        return f"{self.root}/{table}/{VERSION}"

    def for_tasks(self) -> "ObjectLake":
        """This lake as a task elsewhere writes it: under the lease this
        process holds (or the one it was given)."""
        return ObjectLake(self.root, writer=token(self) or self.writer)

    def report_uri(self) -> str:
        """Where a report goes by default: beside the lake, in its bucket."""
        return f"{self.root}-report" if self.prefix else f"{self.root}/report"

    def fail(self, exc, where=None):
        return failure(where or self.root, exc, self._s3)

    # --- objects ---------------------------------------------------------

    def list(self, name: str) -> list:
        """(key, size, etag) of every object under ``name/`` (a path below
        the root), by key."""
        prefix = self.key(name).rstrip("/") + "/"
        out = []
        try:
            pages = self.s3.client.get_paginator("list_objects_v2").paginate(
                Bucket=self.bucket, Prefix=prefix)
            for page in pages:
                out += [(o["Key"], o["Size"], o["ETag"]) for o in page.get("Contents", ())]
        except client_errors() as exc:
            raise self.fail(exc) from None
        return sorted(out)

    def get(self, name: str):
        """The bytes of the object ``name`` (below the root), or None."""
        try:
            return self.s3.client.get_object(Bucket=self.bucket, Key=self.key(name))["Body"].read()
        except client_errors() as exc:
            if status(exc) == 404:
                return None
            raise self.fail(exc) from None

    def put(self, name: str, data: bytes, new: bool = False) -> None:
        """Write the object ``name`` whole (``new``: only if no object has
        that name yet)."""
        extra = {"IfNoneMatch": "*"} if new else {}
        try:
            self.s3.client.put_object(Bucket=self.bucket, Key=self.key(name), Body=data, **extra)
        except client_errors() as exc:
            if new and status(exc) == 412:
                raise InputError(f"{self.root}/{name}", "a lake file of this name exists already; "
                                                          "nothing was overwritten") from None
            raise self.fail(exc, f"{self.root}/{name}") from None

    # --- the Lake's interface --------------------------------------------

    def require(self) -> None:
        try:
            found = self.s3.client.list_objects_v2(Bucket=self.bucket, Prefix=self.key(""), MaxKeys=1)
        except client_errors() as exc:
            raise self.fail(exc) from None
        if not found.get("KeyCount"):
            raise InputError(self.root, "no lake here (the bucket holds nothing under this prefix)")

    def writing(self, wait: bool = False):
        return lease(self, wait, notify=lambda line: print(line, file=sys.stderr))

    def append(self, table: str, rows: list, batch_id: str) -> list:
        if rows:
            fence(self)  # its writer still holds the lease: else nothing is written
        return super().append(table, rows, batch_id)

    def _write(self, path: str, data: pa.Table) -> str:
        sink = pa.BufferOutputStream()
        pq.write_table(data, sink, compression="zstd")
        self.put(path[len(self.root) + 1:], sink.getvalue().to_pybytes(), new=True)
        return path

    def remove_orphans(self) -> int:
        """Delete ``changes`` files whose batch never reached the ledger
        (see ``Lake.remove_orphans``)."""
        pairs, changes = self.folder("pairs"), self.folder("changes")
        ledger = {self._rel(k, pairs) for k, _, _ in self.list(f"pairs/{VERSION}")}
        orphans = [k for k, _, _ in self.list(f"changes/{VERSION}")
                   if k.endswith(".parquet") and self._rel(k, changes) not in ledger]
        for key in orphans:
            try:
                self.s3.client.delete_object(Bucket=self.bucket, Key=key)
            except client_errors() as exc:
                raise self.fail(exc, f"{SCHEME}{self.bucket}/{key}") from None
        return len(orphans)

    def _rel(self, key: str, folder_uri: str) -> str:
        return key[len(self._key_of(folder_uri)) + 1:]

    def _table_files(self, table: str) -> list:
        """(uri, size, etag) of the table's committed files, in the order a
        folder lake lists them: each server's partition, then the table's
        own folder."""
        folder = self._key_of(self.folder(table))
        partitions, own = [], []
        for key, size, etag in self.list(f"{table}/{VERSION}"):
            rest = key[len(folder) + 1:]
            parts = rest.split("/")
            if not parts[-1].endswith(".parquet") or parts[-1].startswith("."):
                continue
            if len(parts) == 1:
                own.append((f"{SCHEME}{self.bucket}/{key}", size, etag))
            elif len(parts) == 2 and parts[0].startswith("server_id="):
                partitions.append((f"{SCHEME}{self.bucket}/{key}", size, etag))
        return partitions + own

    def files(self, table: str) -> list:
        found = self._table_files(table)
        for uri, size, etag in found:
            self._check(uri, table, size, etag)
        return [uri for uri, _, _ in found]

    def _file(self, uri: str, size: int):
        return self.s3.fs.open_input_file(uri[len(SCHEME):])

    def _check(self, uri, table, size, etag) -> None:
        key = (uri, size, etag)
        if key in CHECKED:
            return
        if size == 0:
            raise InputError(uri, "lake file is empty (not Parquet); move it out of the lake")
        try:
            found = pq.read_schema(self._file(uri, size))
        except pa.ArrowException as exc:
            raise InputError(uri, NOT_PARQUET + f"{str(exc).splitlines()[0][:160]}; "
                                  "move it out of the lake") from None
        except OSError as exc:
            raise self.fail(exc, uri) from None
        check_schema(uri, table, found)
        CHECKED[key] = None

    def read_servers(self, table: str, server_ids, columns=None, dictionary=()):
        """The rows of some servers (see ``Lake.read_servers``). A table kept
        per server is listed only under those servers' partitions, so a task
        that stores or diffs a few servers costs requests for those alone."""
        import pyarrow.compute as pc

        wanted = sorted(set(server_ids))
        names = list(columns or TABLES[table].names)
        if table in PARTITIONED:
            found = []
            for server_id in wanted:
                found += [(f"{SCHEME}{self.bucket}/{k}", size, etag) for k, size, etag in
                          self.list(f"{table}/{VERSION}/server_id={partition_value(server_id)}")
                          if k.endswith(".parquet") and not k.rsplit("/", 1)[1].startswith(".")]
        own = f"{self.folder(table)}/"
        if table not in PARTITIONED:  # the table's own files, and the servers' partitions if any
            partitions = {f"{own}server_id={partition_value(s)}/" for s in wanted}
            found = [f for f in self._table_files(table)
                     if "/" not in f[0][len(own):] or f[0][:f[0].rindex("/") + 1] in partitions]
        tables = []
        ids = pa.array(wanted, pa.string())
        for uri, size, etag in found:
            shared = "/" not in uri[len(own):]
            self._check(uri, table, size, etag)
            read = names if not shared or "server_id" in names else names + ["server_id"]
            try:
                data = pq.ParquetFile(self._file(uri, size), read_dictionary=list(dictionary) or None,
                                      pre_buffer=True).read(columns=read, use_threads=False)
            except pa.ArrowException as exc:
                raise InputError(uri, NOT_PARQUET + f"{str(exc).splitlines()[0][:160]}; "
                                      "move it out of the lake") from None
            except OSError as exc:
                raise self.fail(exc, uri) from None
            if shared:
                data = data.filter(pc.is_in(data["server_id"], value_set=ids)).select(names)
            tables.append(data)
        if not tables:
            return pa.Table.from_pylist([], TABLES[table]).select(names)
        return pa.concat_tables(tables, promote_options="default")

    def _relation(self, con, table: str, files: list) -> str:
        """The files as one relation: an Arrow dataset over pyarrow's S3
        file system, registered with the connection."""
        import pyarrow.dataset as ds

        dataset = ds.dataset([f[len(SCHEME):] for f in files], schema=TABLES[table], format="parquet",
                             filesystem=self.s3.fs)
        con.register(f"_s3_{table}", dataset)
        return f"SELECT * FROM _s3_{table}"

    # --- the diff stage's listing and its record of settled states --------

    def listing(self, table: str) -> list:
        """(name below the table's folder, size, etag) of its Parquet files:
        a file is written once under a new name, so an equal listing is equal
        content."""
        folder = self._key_of(self.folder(table))
        return sorted((k[len(folder) + 1:], size, etag) for k, size, etag in self.list(f"{table}/{VERSION}")
                      if k.endswith(".parquet") and not k.rsplit("/", 1)[-1].startswith("."))


def put_folder(target: str, folder) -> None:
    """Upload every file of a local ``folder`` under ``target``
    (``s3://BUCKET/PREFIX``), replacing what is there under the same names:
    a report written next to an object-store lake."""
    import pathlib

    lake = ObjectLake(target)
    for path in sorted(pathlib.Path(folder).rglob("*")):
        if path.is_file():
            lake.put(path.relative_to(folder).as_posix(), path.read_bytes())
