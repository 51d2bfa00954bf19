"""The Parquet lake: append-only files, written whole or not at all.

Every write is a new file: it goes to a hidden temporary name in the same
folder, is flushed to disk (file, then folder) and renamed into place, so a
crash mid-write leaves no partial file and loses nothing already written;
readers only ever read ``*.parquet``. One process writes a lake at a time
(``Lake.writing``, an advisory lock: ``mcpdelta/lake/lock.py``).

A lake is a local folder (or a ``file://`` URI naming one), or
``s3://BUCKET/PREFIX`` on object storage (``mcpdelta/lake/objectstore.py``:
the same files, a lease for the lock); any other URI scheme is refused. Every file a reader would read is checked first: a file
that is not Parquet (truncated, empty, junk) or holds another schema than
its table's stops the read with one line naming it, and is never read as
rows. A diff batch's ``changes`` count only once its ``pairs`` ledger file
is there (the ledger commits the batch), so a crash between the two writes
is never counted, even before the next survey tidies it away.

Hive-style folders (``server_id=<id>``) partition the tables a worker reads
by server; a diff batch's ``changes`` and ``pairs`` are one file each in
their table's own folder, whatever servers the batch spans (lakes written
before keep them in partitions too: readers and the tidy-up take both). The
server id is also a column inside every file, which is what readers use.

Modules, each importing only those before it: ``tables`` (the tables'
schemas), ``files`` (a server's folder, the check of a file before it is
read), ``lock`` (a folder lake's lock), ``folder`` (the lake in a folder,
the ``Lake`` every kind builds on), ``s3errors`` and ``lease`` (a failed
S3 call, an object-store lake's lock), ``objectstore`` (the lake on
object storage); this package, which names them all; ``ingest`` (rows in
from captures).
"""

from mcpdelta.lake.files import check_file, partition_name, partition_value
from mcpdelta.lake.folder import ATTEMPTS_READ, RAW, Lake, evidence_macros, local_path, new_batch_id, texts
from mcpdelta.lake.objectstore import ObjectLake

__all__ = ["ATTEMPTS_READ", "RAW", "Lake", "ObjectLake", "check_file", "evidence_macros", "local_path",
           "new_batch_id", "partition_name", "partition_value", "texts"]
