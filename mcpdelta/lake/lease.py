"""One writer per object-store lake: a lease kept with S3 conditional writes.

``PREFIX/.lease`` names its holder (a random token, pid, host, since when).
It is taken by creating it (``If-None-Match: *``: of two writers racing,
exactly one PUT succeeds), kept by rewriting it every ``RENEW_S`` seconds
(``If-Match`` on the version the holder wrote last), and given back by
deleting it (``If-Match`` again). A second writer fails at once with one
line naming the holder, or with ``wait=True`` polls until it is free.

A holder that dies leaves its lease behind; ``flock`` has the kernel drop
it, here it is taken over with ``If-Match`` on the version found, when

- its holder ran on this machine and that process is gone (a killed writer
  re-run on its machine goes on at once), or
- it has not been renewed for ``TTL_S`` seconds, by the store's own clock
  (the response's ``Date`` against the lease's ``Last-Modified``: the two
  machines' clocks never meet).

Every append checks first that its writer still holds the lease (a GET):
a writer that stalled past the TTL and lost it stops before writing
anything a reader would count. A task on another machine (a flow's worker)
writes under its flow's lease by its token (``Lake(root, writer=token)``).

Re-entrant within a process, like the folder lock.
"""

import contextlib
import datetime as dt
import email.utils
import json
import os
import socket
import threading
import time
import uuid

from mcpdelta.errors import InputError
from mcpdelta.lake.s3errors import client_errors, status

LEASE_NAME = ".lease"
TTL_S = 30.0        # a lease not renewed for this long (the store's clock) is free to take
RENEW_S = 5.0       # how often its holder renews it
POLL_S = 1.0        # how often a waiting writer looks again

_held = {}          # (bucket, key) -> [Lease, depth]
_guard = threading.Lock()


def _machine() -> str:
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as handle:
            return f"{socket.gethostname()}/{handle.read().strip()}"
    except OSError:
        return socket.gethostname()


def _started(pid: int):
    """The start time of a process in clock ticks since boot (None: no such
    process, or no /proc): with the pid, it names one process for good."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            return int(handle.read().rsplit(")", 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return None


def _alive(pid, started) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return True  # not ours to judge
    if started is not None and os.path.isdir("/proc"):
        return _started(pid) == started
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


class Lease:
    def __init__(self, lake):
        self.lake = lake
        self.key = lake.key(LEASE_NAME)
        self.token = uuid.uuid4().hex
        self.etag = None
        self.lost = None          # why the lease was lost, once it is
        self._stop = threading.Event()
        self._thread = None
        self._body = json.dumps({
            "token": self.token, "pid": os.getpid(), "started": _started(os.getpid()),
            "machine": _machine(), "host": socket.gethostname(),
            "since": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}).encode()

    # --- S3 calls ----------------------------------------------------------

    def _put(self, **condition) -> str:
        reply = self.lake.s3.client.put_object(Bucket=self.lake.bucket, Key=self.key, Body=self._body,
                                               **condition)
        return reply["ETag"]

    def _read(self):
        """(holder dict, etag, age in seconds by the store's clock), or None
        when there is no lease."""
        try:
            reply = self.lake.s3.client.get_object(Bucket=self.lake.bucket, Key=self.key)
            body = reply["Body"].read(4096)
        except client_errors() as exc:
            if status(exc) == 404:
                return None
            raise self.lake.fail(exc) from None
        try:
            holder = json.loads(body)
            holder = holder if isinstance(holder, dict) else {}
        except ValueError:
            holder = {}
        now = reply["ResponseMetadata"]["HTTPHeaders"].get("date")
        try:
            age = (email.utils.parsedate_to_datetime(now) - reply["LastModified"]).total_seconds()
        except (TypeError, ValueError):
            age = 0.0
        return holder, reply["ETag"], age

    # --- taking, keeping, giving back --------------------------------------

    def acquire(self, wait: bool, notify=None) -> None:
        told = False
        while True:
            try:
                self.etag = self._put(IfNoneMatch="*")
                break
            except client_errors() as exc:
                if status(exc) not in (409, 412):  # 409: a concurrent conditional write
                    raise self.lake.fail(exc) from None
            found = self._read()
            if found is None:
                continue  # given back meanwhile: try again
            holder, etag, age = found
            if self._stale(holder, age):
                try:
                    self.etag = self._put(IfMatch=etag)
                    break
                except client_errors() as exc:
                    if status(exc) not in (404, 409, 412):
                        raise self.lake.fail(exc) from None
                    continue  # another writer took it first: look again
            if not wait:
                raise InputError(self.lake.root, f"another mcpdelta is writing this lake "
                                                 f"({describe(holder)}); try again when it ends, "
                                                 "or pass --wait")
            if notify and not told:
                notify(f"mcpdelta: waiting for the lake {self.lake.root} ({describe(holder)})")
                told = True
            time.sleep(POLL_S)
        self._thread = threading.Thread(target=self._keep, name="lake-lease", daemon=True)
        self._thread.start()

    @staticmethod
    def _stale(holder, age) -> bool:
        if age > TTL_S:
            return True
        return holder.get("machine") == _machine() and not _alive(holder.get("pid"), holder.get("started"))

    def _keep(self) -> None:
        """Renew every RENEW_S seconds until released; a renewal refused
        (the lease was taken over) or impossible for TTL_S marks it lost."""
        renewed = time.monotonic()
        while not self._stop.wait(RENEW_S):
            try:
                self.etag = self._put(IfMatch=self.etag)
                renewed = time.monotonic()
            except client_errors() as exc:
                if status(exc) in (404, 412):
                    self.lost = "another writer took the lake's lease over"
                    return
                if time.monotonic() - renewed > TTL_S:
                    self.lost = f"the lake's lease could not be renewed for {TTL_S:.0f} s"
                    return

    def check(self) -> None:
        """``InputError`` unless this process still holds the lease (asked of
        the store, not remembered)."""
        if self.lost is None:
            found = self._read()
            if found is None or found[0].get("token") != self.token:
                self.lost = "another writer took the lake's lease over"
        if self.lost:
            raise InputError(self.lake.root, f"{self.lost}; this writer stopped before writing more")

    def release(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self.lost is None and self.etag is not None:
            try:
                self.lake.s3.client.delete_object(Bucket=self.lake.bucket, Key=self.key, IfMatch=self.etag)
            except client_errors():
                pass  # taken over, or unreachable: it ends by itself after TTL_S


def describe(holder: dict) -> str:
    pid, host, since = holder.get("pid"), holder.get("host"), holder.get("since")
    if not pid and not host:
        return "holder unknown"
    return f"pid {pid} on {host} since {since}"


@contextlib.contextmanager
def lease(lake, wait: bool = False, notify=None):
    """Hold the lease of the object-store ``lake``; yields the ``Lease``
    (its ``token`` lets tasks elsewhere write under it)."""
    place = (lake.bucket, lake.key(LEASE_NAME))
    with _guard:
        entry = _held.get(place)
        if entry is not None:
            entry[1] += 1
    if entry is not None:
        try:
            yield entry[0]
        finally:
            with _guard:
                entry[1] -= 1
        return
    held = Lease(lake)
    held.acquire(wait, notify)
    with _guard:
        _held[place] = [held, 1]
    try:
        yield held
    finally:
        with _guard:
            del _held[place]
        held.release()


def fence(lake) -> None:
    """Before an append: ``InputError`` unless its writer holds the lake's
    lease (this process's lease, or the lease whose token the lake was
    given). A write with neither (a test, a one-off script) goes on as a
    folder lake's would."""
    with _guard:
        entry = _held.get((lake.bucket, lake.key(LEASE_NAME)))
    if entry is not None:
        entry[0].check()
        return
    if lake.writer:
        found = Lease(lake)._read()
        if found is None or found[0].get("token") != lake.writer:
            raise InputError(lake.root, "the writer this task works for no longer holds the lake's "
                                        "lease; nothing more is written")


def token(lake):
    """The token of the lease this process holds on ``lake`` (None: none)."""
    with _guard:
        entry = _held.get((lake.bucket, lake.key(LEASE_NAME)))
    return entry[0].token if entry is not None else None
