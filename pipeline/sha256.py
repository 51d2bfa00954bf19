"""SHA-256 for the diff path, from the interpreter's own built-in module.

``import hashlib`` loads OpenSSL's libcrypto, about 5 ms of a 150 ms
``mcpdelta diff``; the built-in module gives the same digests and loads in
well under one. The standard library's ``random`` takes its SHA-512 the same
way. hashlib stays the fallback for a build without the built-in module.
"""

try:
    from _sha2 import sha256  # Python 3.12 and later
except ImportError:
    try:
        from _sha256 import sha256  # Python 3.11
    except ImportError:
        from hashlib import sha256

__all__ = ["sha256"]
