"""Removes the API key from service text before Kiln stores or shows it.

A hostile or careless service may echo the Authorization header in an error text, a note or a
URL. Everything from the service that reaches ``jobs.json``, the panel or a log passes here
first (the client does it when it builds messages; the engine may call it too).
"""

from __future__ import annotations

import json
from urllib.parse import quote

MASK = "***"
MIN_PARTIAL = 6


def redact(text: str, key: str) -> str:
    """``text`` with every form of ``key`` Kiln can predict (as is, URL- or JSON-escaped) masked.

    A text cut short for display may end inside the key: a trailing start of the key (from
    :data:`MIN_PARTIAL` characters on) is masked too.
    """
    if not text or not key:
        return text
    for form in sorted({key, quote(key, safe=""), quote(key), json.dumps(key)[1:-1]}, key=len, reverse=True):
        if form:
            text = text.replace(form, MASK)
    body = text.rstrip("….")
    for size in range(len(key) - 1, MIN_PARTIAL - 1, -1):
        if body.endswith(key[:size]):
            return body[:-size] + MASK + text[len(body) :]
    return text
