"""Reading what the service answered: JSON with limits, its own words on failure, the error family.

Everything here works on bytes already read (capped by the transport), so a huge, deeply nested
or oddly typed answer becomes a ValueError or a Kiln error with a sentence, never another
exception. Service words pass through :func:`api.http.redact.redact` before they reach an
error's details (never its sentence: they are the service's, untrusted and in English).
"""

from __future__ import annotations

import email.utils
import json
import logging
from collections.abc import Mapping
from datetime import UTC, datetime

from ..errors import (
    AuthError,
    BadRequestError,
    CreditsError,
    KilnError,
    NotFoundError,
    RateLimitError,
    ServiceError,
    ServiceMovedError,
)
from ..words import catalogue, shorten
from .models import describe_error
from .redact import redact

logger = logging.getLogger(__name__)

MAX_SERVER_WORDS = 300


def parse_json(raw: bytes) -> object:
    """The JSON value in ``raw``; ValueError (with a short reason) for anything Kiln cannot read.

    Deep nesting (RecursionError), numbers too long to convert and undecodable bytes all end
    here as ValueError; NaN and Infinity, which JSON does not allow, are refused too.
    """
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ValueError("the answer is not UTF-8 text") from None
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        raise ValueError("the answer is nested too deeply") from None
    except ValueError as exc:  # JSONDecodeError, or an integer with too many digits
        raise ValueError(f"the answer is not JSON ({shorten(str(exc), 80)})") from None


def _refuse_constant(name: str) -> object:
    raise ValueError(f"{name} is not a JSON number")


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Seconds to wait from a Retry-After header: delta-seconds or an HTTP date; None if absent/bad."""
    if not value or not value.strip() or len(value) > 64:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        return max(0.0, seconds) if seconds == seconds and seconds != float("inf") else None
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def server_words(body: bytes, content_type: str, key: str) -> str | None:
    """The service's own explanation from an error body (JSON of any shape, or short plain text)."""
    try:
        value = parse_json(body)
    except ValueError:
        text = ""
        if content_type.startswith("text/plain"):
            text = body[: MAX_SERVER_WORDS * 4].decode("utf-8", "replace")
            text = " ".join("".join(c if c.isprintable() else " " for c in text).split())
        words = text[:MAX_SERVER_WORDS] or None
    else:
        # Sandbox and most services: {"error": {"code", "message"}}; FastAPI: {"detail": …}.
        words = describe_error(value) if value not in (None, "", {}, []) else None
    return redact(words, key) if words else None


def error_for(
    status: int,
    headers: Mapping[str, str],
    body: bytes,
    key: str,
    *,
    task_id: str | None = None,
    download: bool = False,
    moved: bool = False,
) -> KilnError:
    """Map a non-2xx answer to the exception family (the spec shows no error statuses).

    For a download, a refusal (401/403/404/410) is about the link, not the API key. ``moved``: the
    path is one its service documents (its address is not the artist's), so a 404 or 410 that is
    not about a task means the service moved on, not that an address is wrong.
    """
    words = server_words(body, headers.get("Content-Type", ""), key)
    retry_after = parse_retry_after(headers.get("Retry-After"))
    if download and status in (401, 403, 404, 410):
        if status in (404, 410):
            said = catalogue.SERVICE_DOWNLOAD_LINK_REFUSED
            return NotFoundError(words if status == 404 else _with_status(status, words), said=said)
        return BadRequestError(status, words, catalogue.SERVICE_DOWNLOAD_LINK_REFUSED)
    if status in (401, 403):
        return AuthError(status, words)
    if status == 402:
        return CreditsError(words)
    if status == 429:
        return RateLimitError(retry_after, words)
    if moved and task_id is None and status in (404, 410):
        return ServiceMovedError(status, words)
    if status == 404:
        return NotFoundError(words, task_id=task_id)
    if 400 <= status < 500:
        return BadRequestError(status, words)
    if 300 <= status < 400:
        return ServiceError(status, "an unexpected redirect")
    if 500 <= status < 600:
        return ServiceError(status, words, retry_after=retry_after)  # an HTML page gives no words
    return ServiceError(status, "an unexpected HTTP status")


def _with_status(status: int, words: str | None) -> str:
    """The service's words with the status they came with (a 410 is not the 404 its error says)."""
    return f"HTTP {status}" + (f": {words}" if words else "")
