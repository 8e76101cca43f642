"""What the service sends back, parsed tolerantly.

The spec leaves much "not shown": the set of states beyond queued/completed/failed, whether the
poll response repeats created_at/eta_seconds, and the type of ``error``. So parsing here never
trusts a field to exist or to have the documented type: missing fields become None, extra
fields are ignored, unknown non-final states mean "in progress", and ``error`` of any JSON shape
becomes one readable sentence.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from ..errors import TaskFailedError
from .ids import check_task_id
from .redact import redact

_MAX_ERROR_CHARS = 400
_MAX_DEPTH = 6
_MAX_INT = 2**31
_MAX_NUMBER_CHARS = 64
_MAX_TEXT_CHARS = 8192


class TaskStatus(StrEnum):
    """The four states Kiln reasons about; the service's raw word is kept on ``Task.raw_status``."""

    QUEUED = "queued"
    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"

    @property
    def is_final(self) -> bool:
        return self in (TaskStatus.COMPLETED, TaskStatus.FAILED)

    @classmethod
    def normalise(cls, raw: object) -> TaskStatus:
        """Map any status word to one of the four; unknown words are treated as still running.

        Only ``queued``, ``completed`` and ``failed`` are in the spec; the synonyms below are what
        comparable services use. An unknown word must not end polling, hence RUNNING.
        """
        word = re.sub(r"[\s\-]+", "_", str(raw or "").strip().lower())
        if word in _QUEUED_WORDS:
            return cls.QUEUED
        if word in _COMPLETED_WORDS:
            return cls.COMPLETED
        if word in _FAILED_WORDS:
            return cls.FAILED
        return cls.RUNNING


_QUEUED_WORDS = frozenset({"queued", "in_queue", "enqueued"})
_COMPLETED_WORDS = frozenset(
    {"completed", "complete", "succeeded", "success", "successful", "done", "finished"}
)
_FAILED_WORDS = frozenset(
    {
        "failed",
        "failure",
        "error",
        "errored",
        "cancelled",
        "canceled",
        "rejected",
        "expired",
        "timeout",
        "timed_out",
    }
)


def describe_error(value: object) -> str:
    """Turn an ``error`` of any JSON shape into one readable sentence (the spec does not show it).

    Strings are used as is (the server's own words, case kept); objects contribute
    message/detail/… plus a ``code``; lists are joined; nesting is followed a few levels deep.
    The result is capped in length and ends with a full stop.
    """
    text = _flatten(value, 0)
    text = re.sub(r"\s+", " ", text).strip()
    if not text:
        return "The service gave no reason."
    if len(text) > _MAX_ERROR_CHARS:
        text = text[: _MAX_ERROR_CHARS - 1].rstrip() + "…"
    return text if text[-1] in ".!?…" else text + "."


#: The longest plain reason quoted to the artist; a longer text stays in the details.
_MAX_PLAIN_CHARS = 160
#: What a reason in plain words never holds: a redacted secret, the wire's words, an error's class, an
#: HTTP status (such a reason stays in the details).
_MACHINE = re.compile(
    r"\*\*\*|\b(?:Bearer|Authori[sz]ation|headers?|tokens?|HTTP|JSON|endpoint|payload|exception|traceback)\b"
    r"|\w+(?:Error|Exception)\b|(?<![\d.,])[45]\d\d(?![\d.,%])",
    re.IGNORECASE,
)


def plain_reason(value: object) -> str | None:
    """The service's reason as a sentence an artist can read (a refused prompt, moderation), or None:
    a text (or an object's message) in words, without a code, an id, an address or markup."""
    if isinstance(value, Mapping):
        value = next(
            (value[k] for k in ("message", "msg", "reason", "detail") if isinstance(value.get(k), str)), None
        )
    if not isinstance(value, str):
        return None
    text = re.sub(r"\s+", " ", value).strip()
    words = re.findall(r"[^\W\d_]{2,}", text)
    if len(words) < 2 or len(text) > _MAX_PLAIN_CHARS or _MACHINE.search(text):
        return None
    if re.search(r"[{}<>\[\]]|://|\b[0-9a-f]{8,}\b", text):
        return None
    return text


_MESSAGE_KEYS = ("message", "detail", "details", "msg", "description", "reason", "error", "title", "errors")
_CODE_KEYS = ("code", "type", "error_code")


def _flatten(value: object, depth: int) -> str:
    if value is None or depth > _MAX_DEPTH:
        return ""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, bool | int | float):
        return str(value)
    if isinstance(value, list | tuple):
        parts = [_flatten(item, depth + 1) for item in value]
        return "; ".join(p.rstrip(".") for p in parts if p)
    if isinstance(value, Mapping):
        return _flatten_mapping(value, depth)
    return str(value)


def _flatten_mapping(value: Mapping[Any, Any], depth: int) -> str:
    message = ""
    for key in _MESSAGE_KEYS:
        if key in value:
            message = _flatten(value[key], depth + 1)
            if message:
                break
    # FastAPI/pydantic validation items: {"loc": ["body", "prompt"], "msg": "..."}.
    loc = value.get("loc")
    if message and isinstance(loc, list | tuple):
        field = [str(p) for p in loc if p not in ("body", "query", "path")]
        message = f"{'.'.join(field)}: {message}" if field else message
    code = next((value[k] for k in _CODE_KEYS if isinstance(value.get(k), str | int) and value.get(k)), None)
    if message and code is not None and str(code) not in message:
        return f"{message.rstrip('.')} (code {code})"
    if message:
        return message
    if code is not None:
        return f"Error code {code}"
    # An object with none of the usual keys: show its scalar content rather than nothing.
    parts = [f"{k}: {_flatten(v, depth + 1)}" for k, v in value.items() if _flatten(v, depth + 1)]
    return "; ".join(parts)


def _as_str(value: object, limit: int = _MAX_TEXT_CHARS) -> str | None:
    """Text as sent (stripped), or None for another type or text too long to be what it claims."""
    if not isinstance(value, str) or len(value) > limit:
        return None
    return value.strip() or None


def _as_int(value: object) -> int | None:
    """A whole number within ±2^31 (counts, seconds, resolutions); anything else becomes None."""
    number = finite_number(value) if not isinstance(value, int) or isinstance(value, bool) else value
    if number is None or abs(number) > _MAX_INT:
        return None
    return round(number)


def finite_number(value: object) -> float | None:
    """A finite number from a service (or its text, as ``"42"`` or ``"42%"``), else None: never an
    error, whatever the type or size (an integer too large for a float is None too)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return float(value) if abs(value) < 2**53 else None
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, str) and len(value) <= _MAX_NUMBER_CHARS:
        try:
            number = float(value.strip().rstrip("%"))
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    return None


def task_progress(value: object, status: TaskStatus) -> float | None:
    """A task's progress in percent from the service's value (a number, or its text as "42" or "42%"),
    held to 0–100; a completed task is at 100 whatever it said. None: the service did not say."""
    if status is TaskStatus.COMPLETED:
        return 100.0
    progress = finite_number(value)
    return None if progress is None else min(100.0, max(0.0, progress))


def _as_datetime(value: object) -> datetime | None:
    """ISO 8601 (``Z`` or offset); a naive timestamp is taken as UTC, as the spec says UTC."""
    if not isinstance(value, str) or len(value) > _MAX_NUMBER_CHARS:
        return None
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


@dataclass(frozen=True)
class Result:
    """Where the finished mesh and its preview can be downloaded."""

    mesh_url: str | None = None
    preview_image_url: str | None = None
    format: str | None = None
    triangles: int | None = None

    @classmethod
    def from_json(cls, data: object) -> Result | None:
        """None unless ``data`` is an object; fields of the wrong type become None."""
        if not isinstance(data, Mapping):
            return None
        return cls(
            mesh_url=_as_str(data.get("mesh_url")),
            preview_image_url=_as_str(data.get("preview_image_url")),
            format=_as_str(data.get("format")),
            triangles=_as_int(data.get("triangles")),
        )


@dataclass(frozen=True)
class Task:
    """A task as seen in a submit or poll response."""

    id: str
    status: TaskStatus
    raw_status: str = ""
    progress: float | None = None
    resolution: int | None = None
    created_at: datetime | None = None
    eta_seconds: int | None = None
    poll_url: str | None = None
    result: Result | None = None
    error: str | None = None
    #: The service's own reason for a failure in plain words (no codes, no ids), or None.
    said: str | None = None
    #: What else than the id a service needs to follow its task (Rodin's subscription key, which of
    #: Meshy's endpoints made it), kept with the job; "" for most. Service text: never a path.
    handle: str = ""

    @property
    def is_final(self) -> bool:
        return self.status.is_final

    @classmethod
    def from_json(cls, data: object) -> Task:
        """Parse a task object; raises ValueError only when there is no usable ``id``.

        The id is checked by :mod:`api.http.ids` and kept as sent (it goes back, quoted, in a URL); every
        other field of an odd type, size or value becomes None instead of an error.
        """
        if not isinstance(data, Mapping):
            raise ValueError("the task is not a JSON object")
        if "id" not in data:
            raise ValueError("the task has no id")
        task_id = check_task_id(data["id"])
        raw_status = _as_str(data.get("status"), _MAX_NUMBER_CHARS) or ""
        status = TaskStatus.normalise(raw_status)
        progress = task_progress(data.get("progress"), status)
        links = data.get("links")
        error_value = data.get("error")
        error = describe_error(error_value) if status is TaskStatus.FAILED or error_value else None
        return cls(
            id=task_id,
            status=status,
            raw_status=raw_status,
            progress=progress,
            resolution=_as_int(data.get("resolution")),
            created_at=_as_datetime(data.get("created_at")),
            eta_seconds=_as_int(data.get("eta_seconds")),
            poll_url=_as_str(links.get("poll")) if isinstance(links, Mapping) else None,
            result=Result.from_json(data.get("result")),
            error=error,
            said=plain_reason(error_value) if status is TaskStatus.FAILED else None,
        )

    def redacted(self, key: str) -> Task:
        """This task with ``key`` masked in every text from the service (error, status, URLs)."""
        result = self.result
        if result is not None:
            result = replace(
                result,
                mesh_url=_masked(result.mesh_url, key),
                preview_image_url=_masked(result.preview_image_url, key),
                format=_masked(result.format, key),
            )
        return replace(
            self,
            raw_status=redact(self.raw_status, key),
            handle=redact(self.handle, key),
            poll_url=_masked(self.poll_url, key),
            result=result,
            error=_masked(self.error, key),
            said=_masked(self.said, key),
        )

    def raise_if_failed(self) -> None:
        """Raise TaskFailedError (with the service's reason) when the task failed."""
        if self.status is TaskStatus.FAILED:
            raise TaskFailedError(self.id, self.error or "The service gave no reason.", self.said)


def _masked(text: str | None, key: str) -> str | None:
    return redact(text, key) if text else text
