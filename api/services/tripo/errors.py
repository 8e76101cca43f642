"""Tripo's error codes as Kiln errors: the code decides, the HTTP status only when there is none.

The envelope is the SDK's (``tripo3d/_http.py`` ``_api_error_from_body`` and ``parse_envelope``):
``{"code": N, "message", "suggestion", "request_id"}``, a non-zero code an error even inside a
2xx. The codes are the Errors table's (sources in :mod:`api.services.tripo`). Tripo's own words,
its code and its ``request_id`` (which its support asks for) go to the details, never the sentence.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping

from ...errors import (
    AuthError,
    BadRequestError,
    CreditsError,
    KilnError,
    NotFoundError,
    RateLimitError,
    ServiceError,
    ServiceMovedError,
)
from ...http.answers import parse_retry_after
from ...http.redact import redact
from ...words import Entry, shorten
from ...words import catalogue as words
from . import (
    CODE_AUDIT_ERROR,
    CODE_AUTH_FAILED,
    CODE_CONTENT_POLICY,
    CODE_FILE_NOT_FOUND,
    CODE_FORBIDDEN,
    CODE_NO_CREDITS,
    CODE_RATE_LIMITED,
    CODE_SERVER_FATAL,
    CODE_SERVER_UNKNOWN,
    CODE_TASK_NOT_FOUND,
    CODE_VERSION_DEPRECATED,
    CODE_VERSION_INVALID,
    INFO,
)

logger = logging.getLogger(__name__)

MAX_WORDS = 300  # characters of the service's message and suggestion kept in the details
_REQUEST_ID = re.compile(r"[0-9A-Za-z_.:-]{6,80}")


def code_of(answer: Mapping[str, object], key: str = "code") -> int | None:
    """An error code as a whole number (sent as a number; a numeric string is taken too), else None."""
    value = answer.get(key)
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and abs(value) < 2**31:
        return value
    if isinstance(value, str) and value.strip().isdigit() and len(value) < 12:
        return int(value)
    return None


def code_error(
    status: int, answer: Mapping[str, object], headers: Mapping[str, str], key: str, *, task_id: str | None
) -> KilnError:
    """The Kiln error for one of Tripo's answers with an error code (or a 4xx/5xx without one)."""
    code = code_of(answer)
    said = " ".join(
        shorten(" ".join(value.split()), MAX_WORDS)
        for k in ("message", "suggestion")
        if isinstance(value := answer.get(k), str) and value.strip()
    )
    named = f"Tripo error {code if code is not None else '?'}"
    detail = redact(f"{named}: {said}" if said else named, key)
    request_id = answer.get("request_id")
    if isinstance(request_id, str) and _REQUEST_ID.fullmatch(request_id) and key not in request_id:
        detail += f"; request id {request_id}"
    retry_after = parse_retry_after(headers.get("Retry-After"))
    error: KilnError
    if code == CODE_AUTH_FAILED:
        error = _reworded(AuthError(401, detail), words.TRIPO_KEY_REJECTED, status)
    elif code == CODE_FORBIDDEN:
        error = _reworded(AuthError(403, detail), words.TRIPO_KEY_FORBIDDEN, status)
    elif code == CODE_NO_CREDITS:
        error = _reworded(CreditsError(detail), words.TRIPO_OUT_OF_CREDITS, status)
    elif code == CODE_RATE_LIMITED:
        error = _reworded(RateLimitError(retry_after, detail), words.TRIPO_TOO_MANY_JOBS, status)
    elif code == CODE_CONTENT_POLICY:
        error = BadRequestError(status, detail, words.TRIPO_CONTENT_REFUSED)
    elif code == CODE_VERSION_DEPRECATED:  # a model (or version) Tripo has retired: a newer Kiln knows
        error = ServiceMovedError(status, detail)  # details keep the status Tripo answered
    elif code == CODE_VERSION_INVALID:
        error = BadRequestError(status, detail, words.TRIPO_MODEL_OUTDATED)
    elif code == CODE_TASK_NOT_FOUND:
        error = NotFoundError(detail, task_id=task_id)
    elif code == CODE_FILE_NOT_FOUND:  # an uploaded image Tripo no longer has: not the address
        error = BadRequestError(status, detail)
    elif code in (CODE_SERVER_UNKNOWN, CODE_SERVER_FATAL, CODE_AUDIT_ERROR) or status >= 500:
        error = ServiceError(status if status >= 500 else 500, detail, retry_after=retry_after)
    elif status in (404, 410) and task_id is None:
        # A documented path (or version) that is gone: Tripo moved on, the artist's address is fine.
        error = ServiceMovedError(status, detail)
    elif status == 404:
        error = NotFoundError(detail, task_id=task_id)
    elif status in (401, 403):
        error = AuthError(status, detail)
    elif status == 429:
        error = RateLimitError(retry_after, detail)
    else:
        error = BadRequestError(status if 400 <= status < 500 else 400, detail)
    if not error.message.name.startswith("TRIPO_"):
        # A sentence said of any service: Tripo's name in front, so the artist knows whose it is.
        error.named(INFO.name)
    logger.debug("Tripo error code %s (HTTP %d)", code, status)
    return error


def _reworded(error: KilnError, entry: Entry, status: int) -> KilnError:
    """``error`` said in Tripo's words, with the HTTP status Tripo really answered in the details."""
    details = error.details
    for fixed in ("HTTP 401", "HTTP 402", "HTTP 403", "HTTP 429"):
        details = details.replace(fixed, f"HTTP {status}", 1) if details.startswith(fixed) else details
    error.reworded(entry, details=details)
    if hasattr(error, "status"):
        error.status = status
    return error
