"""SHA-256 for contract digests and fingerprints: the interpreter's built-in
module until a process has hashed enough for OpenSSL to pay for itself.

``import hashlib`` loads OpenSSL's libcrypto, about 5 ms; its SHA-256 is then
four to five times faster than the built-in module's on inputs of a few KB
(10 µs against 44 µs for 5 KB on this project's machine). A ``diff`` hashes
two manifests, a few hundred KB at most, and is faster without OpenSSL;
ingest, a lockfile or the digests of a large server hash megabytes and are
faster with it. So the built-in module serves the first 512 KB a process
hashes, and OpenSSL the rest (from the start, when something else has loaded
hashlib already). Either way the digest is the same. The standard library's
``random`` takes its SHA-512 from the built-in module for the same reason.
"""

import sys

try:
    from _sha2 import sha256 as _builtin  # Python 3.12 and later
except ImportError:
    try:
        from _sha256 import sha256 as _builtin  # Python 3.11
    except ImportError:  # a build without the built-in module
        _builtin = None

BUILTIN_BYTES = 512 * 1024
_hashed = 0


def sha256(data: bytes):
    """A SHA-256 hash object of ``data`` (``.hexdigest()``, ``.digest()``)."""
    global _hashed
    _hashed += len(data)
    if _builtin is None or _hashed > BUILTIN_BYTES or "hashlib" in sys.modules:
        import hashlib

        return hashlib.sha256(data)
    return _builtin(data)
