"""Scrubbing secrets out of text before it is stored, printed or cut.

    redact(data, secrets, edges=False) -> data with every secret replaced by MASK

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
body. ``edges=True`` also masks a window's ends that hold the start or the
end of a secret (a tail cut inside one, or a stream read before the rest of
it arrived). The crawler and the judges both redact through here.
"""

import json
import urllib.parse

MASK = "***"
MIN_LENGTH = 3
EDGE_MIN = 4  # the shortest secret fragment masked at a window's edge


def redact(data, secrets, *, edges: bool = False):
    """``data`` (str or bytes) with every spelling of every secret masked."""
    forms = _forms(secrets)
    if not forms or not data:
        return data
    if isinstance(data, (bytes, bytearray)):
        out, mask = bytes(data), MASK.encode()
        forms = [form.encode("utf-8", "surrogateescape") for form in forms]
    else:
        out, mask = str(data), MASK
    for form in forms:
        out = out.replace(form, mask)
    return _edges(out, forms, mask) if edges else out


def _edges(text, forms: list, mask):
    for secret in forms:
        for n in range(len(secret) - 1, EDGE_MIN - 1, -1):
            if text.endswith(secret[:n]):
                text = text[: len(text) - n] + mask
                break
        for n in range(len(secret) - 1, EDGE_MIN - 1, -1):
            if text.startswith(secret[-n:]):
                text = mask + text[n:]
                break
    return text


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
