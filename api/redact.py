"""Removes the API key from service text before Kiln stores or shows it.

A hostile or careless service may echo the Authorization header in an error text, a note or a
URL. Everything from the service that reaches ``jobs.json``, the panel or a log passes here
first (the client does it when it builds messages; the engine may call it too).
"""

from __future__ import annotations

import json
from urllib.parse import quote

MASK = "***"


def redact(text: str, key: str) -> str:
    """``text`` with every form of ``key`` Kiln can predict (as is, URL- or JSON-escaped) masked."""
    if not text or not key:
        return text
    for form in sorted({key, quote(key, safe=""), quote(key), json.dumps(key)[1:-1]}, key=len, reverse=True):
        if form:
            text = text.replace(form, MASK)
    return text
