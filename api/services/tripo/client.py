"""Tripo's wire (API v2): upload, create a task, poll it, read the balance; its error codes as Kiln errors.

The rules every client keeps (deadlines, size caps, one attempt per call, the key only to the API
origin, only Kiln errors leave) are :class:`api.service.client.ServiceClient`'s. This module adds
what Tripo's documentation says (sources in :mod:`api.services.tripo`): every answer is an envelope
``{"code": 0, "data": {…}}``; an error is ``{"code": N, "message", "suggestion"}``, and its code,
not its HTTP status, says what went wrong (out of credits is a 403 with code 2010).

Read from the official SDK (``tripo3d/client.py``) for the wire only: unlike the SDK, Kiln never
sends the key to a download link (the inherited ``download`` judges every hop). Output links expire
after five minutes (Task): the engine downloads them as soon as the poll says success.
"""

from __future__ import annotations

import logging
import math
import re
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import requests

from ...checks.glb import IMAGE_MIME, image_kind
from ...checks.inputs import check_prompt, check_web_url, read_image_file
from ...errors import (
    AuthError,
    BadRequestError,
    CreditsError,
    InputError,
    KilnError,
    NotFoundError,
    RateLimitError,
    ServiceError,
)
from ...service.answers import error_for, parse_json, parse_retry_after
from ...service.client import MAX_ERROR_BYTES, ServiceClient
from ...service.ids import shown_task_id, task_id_problem, url_segment
from ...service.models import Result, Task, TaskStatus, describe_error, plain_reason
from ...service.redact import redact
from ...words import Entry, Message, message, shorten
from ...words import catalogue as words
from ..order import Order, refusal
from . import (
    BALANCE_PATH,
    CODE_AUDIT_ERROR,
    CODE_AUTH_FAILED,
    CODE_CONTENT_POLICY,
    CODE_FILE_NOT_FOUND,
    CODE_FORBIDDEN,
    CODE_NO_CREDITS,
    CODE_OK,
    CODE_RATE_LIMITED,
    CODE_SERVER_FATAL,
    CODE_SERVER_UNKNOWN,
    CODE_STATUS,
    CODE_TASK_NOT_FOUND,
    CODE_VERSION_DEPRECATED,
    CODE_VERSION_INVALID,
    FACE_LIMIT_RANGE,
    FAILED_STATES,
    FILE_TYPES,
    IMAGE_TO_MODEL,
    INFO,
    KILN_VIEW_ORDER,
    MAX_PROMPT_CHARS,
    MULTIVIEW_ORDER,
    MULTIVIEW_TO_MODEL,
    STATE_QUEUED,
    STATE_SUCCESS,
    STYLES,
    TASK_PATH,
    TEXT_TO_MODEL,
    TIER_WIRE,
    UPLOAD_PATH,
)

__all__ = ["Client"]

logger = logging.getLogger(__name__)

_MAX_WORDS = 300  # characters of the service's message and suggestion kept in the details
_MAX_TOKEN_CHARS = 512
_TRACE_ID = re.compile(r"[0-9A-Za-z-]{8,64}")


class Client(ServiceClient):
    """Talks to Tripo at its API origin (or a stand-in's origin): the documented paths follow it."""

    info = INFO

    # ------------------------------------------------------------------ the interface

    def submit(self, order: Order, *, idempotency_key: str) -> Task:
        """One job: uploads its images (free), then creates the one paid task (Generation)."""
        refused = refusal(INFO.capabilities, INFO.name, order)
        if refused is not None:
            raise InputError(refused)
        body = self._task_fields(order)
        if order.kind == "text":
            prompt = check_prompt(order.prompt)
            if len(prompt) > MAX_PROMPT_CHARS:
                raise InputError(words.PROMPT_TOO_LONG, length=len(prompt), limit=MAX_PROMPT_CHARS)
            body = {"type": TEXT_TO_MODEL, "prompt": prompt, **body}
        else:
            front = self._file(order.image_path, order.image_url)
            views = dict(zip(KILN_VIEW_ORDER, order.views, strict=False))
            if any(v.strip() for v in views.values()):
                # Four slots [front, left, back, right], {} where a view is missing (Generation).
                slots = [front] + [
                    self._file(views[name], "") if views.get(name, "").strip() else {}
                    for name in MULTIVIEW_ORDER[1:]
                ]
                body = {"type": MULTIVIEW_TO_MODEL, "files": slots, **body}
            else:
                body = {"type": IMAGE_TO_MODEL, "file": front, **body}
        return self._submit(TASK_PATH, {"json": body}, idempotency_key, None)

    def get_task(self, task_id: str, *, handle: str = "", cancel: threading.Event | None = None) -> Task:
        """GET the task (Task); the id asked for is kept whatever the answer says (it is known good)."""
        problem = task_id_problem(task_id)
        if problem is not None:
            raise InputError(words.TASK_ID_UNUSABLE, details=problem, task=shown_task_id(task_id))
        task_id = str(task_id)
        url = f"{self.base_url}{TASK_PATH}/{url_segment(task_id)}"
        answer = self._json_call(
            f"poll of task {task_id}", lambda: self._http.get(url), task_id=task_id, cancel=cancel
        )
        data = self._data(answer, task_id=task_id)
        return _task_from_poll(task_id, data).redacted(self._key)

    def balance(self, *, cancel: threading.Event | None = None) -> int | None:
        """Credits left (SDK ``get_balance``: ``data.balance``; ``frozen`` is held by running tasks)."""
        url = self.base_url + BALANCE_PATH
        answer = self._json_call("balance", lambda: self._http.get(url), cancel=cancel)
        data = self._data(answer)
        return _whole(data.get("balance"))

    def check_connection(self, *, cancel: threading.Event | None = None) -> Message:
        """The balance call: free, needs a good key, and tells the artist what is left."""
        left = self.balance(cancel=cancel)
        if left is None:
            return message(words.CONNECTED_TO_SERVICE, service=INFO.name)
        return message(words.CONNECTED_WITH_BALANCE, n=left, amount=f"{left:,}", service=INFO.name)

    # ------------------------------------------------------------------ request fields

    def _task_fields(self, order: Order) -> dict[str, Any]:
        """model_version, texture_quality and each option under the field Generation names."""
        version, texture_quality = TIER_WIRE[order.tier or INFO.capabilities.default_tier(order.kind)]
        body: dict[str, Any] = {"model_version": version}
        if texture_quality is not None:
            body["texture_quality"] = texture_quality
        options = order.options
        if "texture" in options:
            body["texture"] = _flag(options["texture"], "texture")
        if "pbr" in options:
            body["pbr"] = _flag(options["pbr"], "pbr")
        elif body.get("texture") is False:
            # "If this option [pbr] is set to true, texture will be ignored and used as true", and
            # pbr defaults to true (Generation): texture off means nothing unless pbr is off too.
            body["pbr"] = False
        if "polygons" in options:
            polygons = options["polygons"]
            if isinstance(polygons, bool) or not isinstance(polygons, int):
                raise InputError(words.TRIPO_OPTION_UNREADABLE, option="polygons")
            low, high = FACE_LIMIT_RANGE
            if polygons and not low <= polygons <= high:
                raise InputError(words.TRIPO_POLYGONS_OUT_OF_RANGE, low=low, high=high)
            if polygons:  # 0: "adaptively determined" by Tripo, so the field is left out
                body["face_limit"] = polygons
        if "style" in options:
            style = options["style"]
            if not isinstance(style, str):
                raise InputError(words.TRIPO_OPTION_UNREADABLE, option="style")
            if style:
                if style not in STYLES:
                    raise InputError(words.TRIPO_STYLE_UNKNOWN, style=shorten(style, 60))
                body["style"] = style
        return body

    def _file(self, path: str, url: str) -> dict[str, str]:
        """One image as Generation's ``file`` object: an uploaded file's token, or its web address.

        An http(s) address in a view slot is taken as an address too (Kiln's views are paths or URLs).
        """
        if not path.strip() and not url.strip():
            raise InputError(words.ONE_IMAGE_NEEDED)
        if not url and urlsplit(path.strip()).scheme in ("http", "https"):
            path, url = "", path
        if url:
            checked = check_web_url(url, "image URL")
            suffix = Path(urlsplit(checked).path).suffix.lower().lstrip(".")
            said = {"png": "png", "webp": "webp"}.get(suffix, "jpg")  # the type is "not validated"
            return {"type": said, "url": checked}
        try:
            data, name = read_image_file(Path(path)), Path(path).name
        except (ValueError, TypeError):  # a NUL in the path, or not a path at all
            raise InputError(words.IMAGE_PATH_UNUSABLE) from None
        found = image_kind(data[:16])
        assert found is not None  # read_image_file guarantees it
        return {"type": FILE_TYPES[found], "file_token": self._upload(data, name, found)}

    def _upload(self, data: bytes, name: str, kind: str) -> str:
        """POST the image (multipart ``file``) and read ``data.image_token`` (Upload). Free: not paid."""
        url = self.base_url + UPLOAD_PATH
        if not name.isprintable() or len(name) > 200:
            name = ""
        files = {"file": (name or f"image.{kind}", data, IMAGE_MIME[kind])}
        headers = {"Accept": "application/json"}
        answer = self._json_call(
            "image upload", lambda: self._http.send("POST", url, files=files, headers=headers)
        )
        token = self._data(answer).get("image_token")
        if not isinstance(token, str) or len(token) > _MAX_TOKEN_CHARS or task_id_problem(token) is not None:
            raise ServiceError(200, "the upload answered no usable image_token")
        if self._key in token:
            raise ServiceError(200, "the upload's image_token repeats the API key")
        return token

    # ------------------------------------------------------------------ answers

    def _task_from_submit(self, data: object) -> Task:
        """``data.task_id`` of a submit's envelope (Generation); an error code there means no task."""
        if not isinstance(data, Mapping):
            raise ValueError("the answer is not a JSON object")
        inner = data.get("data")
        if data.get("code", CODE_OK) == CODE_OK and not isinstance(inner, Mapping):
            raise ValueError("the answer has no data object")
        task_id = self._data(data).get("task_id")  # a non-zero code raises the error it names
        if task_id is None:
            raise ValueError("the answer has no task_id")
        return Task.from_json({"id": task_id, "status": STATE_QUEUED})

    def _data(self, answer: object, *, task_id: str | None = None) -> Mapping[str, Any]:
        """The ``data`` object of a 2xx envelope, or the Kiln error its non-zero ``code`` names.

        General says a success always has code 0; an error code inside a 2xx is not documented, so it
        is read as the error it names rather than trusted as data.
        """
        if not isinstance(answer, Mapping):
            raise ServiceError(200, "the answer is not a JSON object")
        code = answer.get("code", CODE_OK)
        if code != CODE_OK:
            number = code if isinstance(code, int) and not isinstance(code, bool) else None
            status = CODE_STATUS.get(number, 400) if number is not None else 400
            raise self._code_error(status, answer, {}, task_id=task_id)
        data = answer.get("data")
        if not isinstance(data, Mapping):
            raise ServiceError(200, "the answer has no data object")
        return data

    def _error_from(self, resp: requests.Response, *, task_id: str | None = None) -> KilnError:
        """A non-2xx answer: its error code decides (Errors), the status only when there is none."""
        body = self._http.read(resp, MAX_ERROR_BYTES, truncate=True)
        try:
            answer = parse_json(body)
        except ValueError:
            answer = None
        if isinstance(answer, Mapping) and _code(answer) is not None:
            error = self._code_error(resp.status_code, answer, resp.headers, task_id=task_id)
        else:
            error = error_for(resp.status_code, resp.headers, body, self._key, task_id=task_id)
        # General: "please provide this ID when reporting the issue": kept in the details for support.
        trace = resp.headers.get("X-Tripo-Trace-ID", "")
        if _TRACE_ID.fullmatch(trace):
            error.reworded(error.message, details=f"trace id {trace}")
        return error

    def _code_error(
        self, status: int, answer: Mapping[str, Any], headers: Mapping[str, str], *, task_id: str | None
    ) -> KilnError:
        """The Kiln error for one of Tripo's error codes; its own words and code go to the details."""
        code = _code(answer)
        said = " ".join(
            shorten(" ".join(str(answer.get(k)).split()), _MAX_WORDS)
            for k in ("message", "suggestion")
            if isinstance(answer.get(k), str) and answer.get(k, "").strip()
        )
        named = f"Tripo error {code if code is not None else '?'}"
        detail = redact(f"{named}: {said}" if said else named, self._key)
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
        elif code in (CODE_VERSION_DEPRECATED, CODE_VERSION_INVALID):
            error = BadRequestError(status, detail, words.TRIPO_MODEL_OUTDATED)
        elif code == CODE_TASK_NOT_FOUND:
            error = NotFoundError(detail, task_id=task_id)
        elif code == CODE_FILE_NOT_FOUND:  # an uploaded image Tripo no longer has: not the address
            error = BadRequestError(status, detail)
        elif code in (CODE_SERVER_UNKNOWN, CODE_SERVER_FATAL, CODE_AUDIT_ERROR) or status >= 500:
            error = ServiceError(max(status, 500) if status >= 500 else 500, detail, retry_after=retry_after)
        elif status == 404:
            error = NotFoundError(detail, task_id=task_id)
        else:
            error = BadRequestError(status if 400 <= status < 500 else 400, detail)
        if not error.message.name.startswith("TRIPO_"):
            # A sentence said of any service: Tripo's name in front, so the artist knows whose it is.
            error.named(INFO.name)
        logger.debug("Tripo error code %s (HTTP %d)", code, status)
        return error


# ------------------------------------------------------------------ helpers


def _task_from_poll(task_id: str, data: Mapping[str, Any]) -> Task:
    """A Task from the poll's ``data`` (Task): seven states, progress 0–100, output links.

    Prefers ``pbr_model``, then ``model``, then ``base_model`` as the mesh; ``rendered_image`` is
    the preview. A state Task does not name is "in progress" (the engine's deadline ends it).
    """
    raw = data.get("status")
    raw_status = raw.strip() if isinstance(raw, str) and len(raw) <= 64 else ""
    word = raw_status.lower()
    if word == STATE_SUCCESS:
        status = TaskStatus.COMPLETED
    elif word in FAILED_STATES:
        status = TaskStatus.FAILED
    elif word == STATE_QUEUED:
        status = TaskStatus.QUEUED
    else:  # running, unknown, or a word Task does not list
        status = TaskStatus.RUNNING
    progress = _number(data.get("progress"))
    if progress is not None:
        progress = min(100.0, max(0.0, progress))
    if status is TaskStatus.COMPLETED:
        progress = 100.0
    result = None
    output = data.get("output")
    if status is TaskStatus.COMPLETED and isinstance(output, Mapping):
        mesh = next((u for k in ("pbr_model", "model", "base_model") if (u := _link(output.get(k)))), None)
        preview = _link(output.get("rendered_image"))
        if mesh or preview:
            fmt = "glb" if mesh and urlsplit(mesh).path.lower().endswith(".glb") else None
            result = Result(mesh_url=mesh, preview_image_url=preview, format=fmt)
    error = _failure(word, data) if status is TaskStatus.FAILED else None
    said = plain_reason(data.get("error_msg")) if status is TaskStatus.FAILED else None
    left = _number(data.get("running_left_time"))
    return Task(
        id=task_id,
        status=status,
        raw_status=raw_status,
        progress=progress,
        eta_seconds=round(left) if left is not None and 0 <= left < 2**31 else None,
        result=result,
        error=error,
        said=said,
    )


def _failure(word: str, data: Mapping[str, Any]) -> str:
    """Why the task ended without a mesh, as one sentence for the details (the service's words kept)."""
    reasons = {
        "failed": "Tripo could not make this model",
        "banned": "Tripo banned the task under its content policy",
        "expired": "the task expired on Tripo before it finished",
        "cancelled": "the task was cancelled on Tripo",
    }
    parts = [reasons.get(word, f"the task ended as {word}")]
    code = _code(data, "error_code")
    if code is not None:
        parts.append(f"error code {code}")
    msg = data.get("error_msg")
    if isinstance(msg, str) and msg.strip():
        parts.append(shorten(" ".join(msg.split()), _MAX_WORDS))
    return describe_error("; ".join(parts))


def _code(answer: Mapping[str, Any], key: str = "code") -> int | None:
    """An error code as a whole number (sent as a number; a numeric string is taken too), else None."""
    value = answer.get(key)
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and abs(value) < 2**31:
        return value
    if isinstance(value, str) and value.strip().isdigit() and len(value) < 12:
        return int(value)
    return None


def _number(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float) and math.isfinite(value):
        return float(value)
    if isinstance(value, str) and len(value) < 32:
        try:
            number = float(value.strip())
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    return None


def _whole(value: object) -> int | None:
    """Credits as a whole number (the SDK types the balance as a float), rounded down; None if odd."""
    number = _number(value)
    if number is None or not 0 <= number < 2**53:
        return None
    return math.floor(number)


def _link(value: object) -> str | None:
    if not isinstance(value, str) or not value.strip() or len(value) > 8192:
        return None
    return value.strip()


def _flag(value: object, option: str) -> bool:
    """An on/off option as JSON's true/false (a 0 or 1 is taken too)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    raise InputError(words.TRIPO_OPTION_UNREADABLE, option=option)


def _reworded(error: KilnError, entry: Entry, status: int) -> KilnError:
    """``error`` said in Tripo's words, with the HTTP status Tripo really answered in the details."""
    details = error.details
    for fixed in ("HTTP 401", "HTTP 402", "HTTP 403", "HTTP 429"):
        details = details.replace(fixed, f"HTTP {status}", 1) if details.startswith(fixed) else details
    error.reworded(entry, details=details)
    if hasattr(error, "status"):
        error.status = status
    return error
