"""Scrubbing secrets out of text before it is stored, printed or cut.

    redact(data, secrets) -> data with every secret replaced by MASK

``secrets`` are the values themselves: judge keys, and every value a
``${VAR}`` in a servers file expanded to. ``data`` is ``str`` or ``bytes``
(bytes are matched against each secret's UTF-8 form), and the result has
the same type. Call it on the raw text, before any truncation, whitespace
collapsing or line splitting: a secret cut in half or with its spaces
folded no longer matches. Values shorter than ``MIN_LENGTH`` are not
treated as secrets (masking every "1" or "on" would wreck the text and
protect nothing).

Besides the value as given, its URL-encoded, JSON-escaped and Python-repr
spellings are masked too, since error messages often quote a request or a
body.
"""

import json
import urllib.parse

MASK = "[redacted]"
MIN_LENGTH = 4


def redact(data, secrets):
    """``data`` (str or bytes) with every spelling of every secret masked."""
    forms = _forms(secrets)
    if not forms:
        return data
    if isinstance(data, (bytes, bytearray)):
        out = bytes(data)
        mask = MASK.encode()
        for form in forms:
            out = out.replace(form.encode("utf-8", "surrogateescape"), mask)
        return out
    if data is None:
        return None
    out = str(data)
    for form in forms:
        out = out.replace(form, MASK)
    return out


def _forms(secrets) -> list:
    forms = set()
    for secret in secrets or ():
        if not isinstance(secret, str) or len(secret) < MIN_LENGTH:
            continue
        forms.add(secret)
        forms.add(urllib.parse.quote(secret, safe=""))
        forms.add(urllib.parse.quote_plus(secret, safe=""))
        forms.add(json.dumps(secret)[1:-1])
        forms.add(repr(secret)[1:-1])   # a message quoting a response body as a Python dict
    # longest first, so a secret that contains another is masked whole
    return sorted(forms, key=lambda f: (-len(f), f))
