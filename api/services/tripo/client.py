"""Tripo's wire (API v3): upload, create a task, poll it, read the balance.

The rules every client keeps (deadlines, size caps, one attempt per call, the key only to the API
origin, only Kiln errors leave) are :class:`api.http.client.ServiceClient`'s. This module adds
what the official SDK ``tripo3d`` 1.0.0 does on the wire (sources in :mod:`api.services.tripo`):
one path per kind of job under ``/v3/generation``, every answer an envelope ``{"code": 0, "data":
{…}}``, an image named by a plain string (an uploaded ``file_token`` or a web address), and a
finished task's signed ``model_url`` and ``rendered_image_url``. Error codes are :mod:`.errors`'s.

Unlike the SDK, Kiln never sends the key to a download link (the inherited ``download`` judges
every hop) and never tries a call twice itself (the engine does, by its policy).

Jobs made on API v2. A Kiln that spoke v2 stored its Tripo jobs with their task id and no handle.
The SDK reads v2 task ids as v3 ones: ``TripoClient.get_task`` asks ``GET /v3/tasks/{task_id}`` for
every task ("use_v3: Ignored; every task is queried on apiv3. Kept for 0.x callers"),
``Task.from_dict`` reads "an apiv3 (or legacy v2) task payload", and ``inputs.classify`` takes
any UUID (the shape of v2's ids) as a task id. So such a job is resumed by polling v3 with the same
id, nothing sent again; if v3 does not know it, the job ends in ``TRIPO_OLD_API_JOB_GONE`` with
the task id in the details (nothing re-sent, nothing charged again).
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import requests

from ...checks.glb import IMAGE_MIME, image_kind
from ...checks.inputs import check_prompt, check_web_url, read_image_file
from ...errors import BadRequestError, InputError, KilnError, NotFoundError, ServiceError
from ...http.answers import error_for, parse_json
from ...http.client import MAX_ERROR_BYTES, ServiceClient
from ...http.ids import shown_task_id, task_id_problem, url_segment
from ...http.models import (
    Result,
    Task,
    TaskStatus,
    describe_error,
    finite_number,
    plain_reason,
    task_progress,
)
from ...words import Message, message, shorten
from ...words import catalogue as words
from ..order import Order, model_bytes, refusal
from . import (
    BALANCE_PATH,
    CODE_OK,
    CODE_STATUS,
    FACE_LIMIT_RANGE,
    FAILED_STATES,
    HANDLE_V3,
    IMAGE_PATH,
    INFO,
    KILN_VIEW_ORDER,
    MAX_PROMPT_CHARS,
    MESH_FIELDS,
    MULTIVIEW_ORDER,
    MULTIVIEW_PATH,
    PREVIEW_FIELD,
    STATE_QUEUED,
    STATE_SUCCESS,
    TASKS_PATH,
    TEXT_PATH,
    TEXTURE_STANDARD,
    TIER_WIRE,
    UPLOAD_PATH,
    retexture,
)
from .errors import MAX_WORDS, code_error, code_of

__all__ = ["Client"]

logger = logging.getLogger(__name__)

_MAX_TOKEN_CHARS = 512


class Client(ServiceClient):
    """Talks to Tripo at its API origin (or a stand-in's origin): the documented paths follow it."""

    info = INFO

    # ------------------------------------------------------------------ the interface

    def stages(self, order: object) -> int:
        """A re-texture is an import then a texture (two tasks, :mod:`.retexture`); a job is one."""
        return 2 if isinstance(order, Order) and order.kind == "retexture" else 1

    def submit(self, order: Order, *, idempotency_key: str) -> Task:
        """One job: uploads its images (free), then creates the one paid task."""
        refused = refusal(INFO.capabilities, INFO.name, order)
        if refused is not None:
            raise InputError(refused)
        if order.kind == "retexture":
            return self._retexture(order, idempotency_key)
        fields = self._task_fields(order)
        if order.kind == "text":
            prompt = check_prompt(order.prompt)
            if len(prompt) > MAX_PROMPT_CHARS:
                raise InputError(words.PROMPT_TOO_LONG, length=len(prompt), limit=MAX_PROMPT_CHARS)
            path, body = TEXT_PATH, {"prompt": prompt, **fields}
        else:
            front = self._image(order.image_path, order.image_url)
            views = dict(zip(KILN_VIEW_ORDER, order.views, strict=False))
            if any(v.strip() for v in views.values()):
                # SDK multiview_to_model: "inputs": [front, left, back, right], null where missing.
                slots = [front] + [
                    self._image(views[name], "") if views.get(name, "").strip() else None
                    for name in MULTIVIEW_ORDER[1:]
                ]
                path, body = MULTIVIEW_PATH, {"inputs": slots, **fields}
            else:
                path, body = IMAGE_PATH, {"input": front, **fields}  # SDK image_to_model
        return self._submit(path, {"json": body}, idempotency_key, None)

    def get_task(self, task_id: str, *, handle: str = "", cancel: threading.Event | None = None) -> Task:
        """GET /v3/tasks/{id} (SDK get_task); the id asked for is kept whatever the answer says."""
        problem = task_id_problem(task_id)
        if problem is not None:
            raise InputError(words.TASK_ID_UNUSABLE, details=problem, task=shown_task_id(task_id))
        task_id = str(task_id)
        url = f"{self.base_url}{TASKS_PATH}/{url_segment(task_id)}"
        try:
            answer = self._json_call(
                f"poll of task {task_id}", lambda: self._http.get(url), task_id=task_id, cancel=cancel
            )
            data = self._data(answer, task_id=task_id)
        except NotFoundError as error:
            if handle == HANDLE_V3:
                raise
            # Stored by a Kiln that spoke API v2 (no handle) and unknown to v3: said as such, and not
            # as a NotFoundError, which the engine would word as "the service forgot the job".
            raise BadRequestError(
                404, f"task {task_id}; {error.details}", words.TRIPO_OLD_API_JOB_GONE
            ) from None
        return _task_from_poll(task_id, data).redacted(self._key)

    def balance(self, *, cancel: threading.Event | None = None) -> int | None:
        """Credits left (SDK ``get_balance``: ``data.balance``; ``frozen`` is held by running tasks)."""
        answer = self._json_call(
            "balance", lambda: self._http.get(self.base_url + BALANCE_PATH), cancel=cancel
        )
        return _whole(self._data(answer).get("balance"))

    def check_connection(self, *, cancel: threading.Event | None = None) -> Message:
        """The balance call: free, needs a good key, and tells the artist what is left."""
        left = self.balance(cancel=cancel)
        if left is None:
            return message(words.CONNECTED_TO_SERVICE, service=INFO.name)
        return message(words.CONNECTED_WITH_BALANCE, n=left, amount=f"{left:,}", service=INFO.name)

    def _retexture(self, order: Order, idempotency_key: str) -> Task:
        """Stage 0: upload the mesh and import it; stage 1: texture the import (:mod:`.retexture`)."""
        if order.stage == 0:
            token = self._upload(
                model_bytes(order, INFO.name, retexture.RETEXTURE_MAX_BYTES), "model.glb", "glb"
            )
            return self._submit(retexture.IMPORT_PATH, {"json": {"input": token}}, idempotency_key, None)
        if order.image_path.strip() or order.image_url.strip():
            style = {"image": self._image(order.image_path, order.image_url)}
        else:
            style = {"text": retexture.style_prompt(order)}
        body = retexture.texture_body(order, style)
        return self._submit(retexture.TEXTURE_PATH, {"json": body}, idempotency_key, None)

    # ------------------------------------------------------------------ request fields

    def _task_fields(self, order: Order) -> dict[str, Any]:
        """``model``, ``texture_quality`` and each option under the field the SDK sends it as."""
        model, texture_quality = TIER_WIRE[order.tier or INFO.capabilities.default_tier(order.kind)]
        body: dict[str, Any] = {"model": model}
        if texture_quality not in (None, TEXTURE_STANDARD):
            # As the SDK: a field at its default is left to the server (client.py _non_default:
            # "apiv3 server defaults match those signatures"); standard is texture_quality's default.
            body["texture_quality"] = texture_quality
        options = order.options
        if "texture" in options:
            body["texture"] = _flag(options["texture"], "texture")
        if "pbr" in options:
            body["pbr"] = _flag(options["pbr"], "pbr")
        elif body.get("texture") is False:
            # "If this option [pbr] is set to true, texture will be ignored and used as true", and
            # pbr defaults to true (Generation; SDK text_to_model pbr=True): texture off needs pbr off.
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
        return body

    def _image(self, path: str, url: str) -> str:
        """One image as v3's ``input`` string: an uploaded file's token, or its web address.

        An http(s) address in a view slot is taken as an address too (Kiln's views are paths or URLs).
        """
        if not path.strip() and not url.strip():
            raise InputError(words.ONE_IMAGE_NEEDED)
        if not url and urlsplit(path.strip()).scheme in ("http", "https"):
            path, url = "", path
        if url:
            return check_web_url(url, "image URL")  # SDK inputs.classify: an http(s) string is a URL
        try:
            data, name = read_image_file(Path(path)), Path(path).name
        except (ValueError, TypeError):  # a NUL in the path, or not a path at all
            raise InputError(words.IMAGE_PATH_UNUSABLE) from None
        found = image_kind(data[:16])
        assert found is not None  # read_image_file guarantees it
        return self._upload(data, name, found)

    def _upload(self, data: bytes, name: str, kind: str) -> str:
        """POST a file (multipart ``file``) to /v3/files and read ``data.file_token`` (SDK upload_file).

        Free: not a paid call. Kiln's images and meshes are under the SDK's 50 MB multipart limit
        (the meshes by :func:`~api.services.order.model_bytes`), so Kiln never needs the presigned upload.
        """
        url = self.base_url + UPLOAD_PATH
        if not name.isprintable() or len(name) > 200:
            name = ""
        mime = retexture.GLB_MIME if kind == "glb" else IMAGE_MIME[kind]
        files = {"file": (name or f"image.{kind}", data, mime)}
        headers = {"Accept": "application/json"}
        answer = self._json_call(
            "image upload", lambda: self._http.send("POST", url, files=files, headers=headers)
        )
        token = self._data(answer).get("file_token")
        if not isinstance(token, str) or len(token) > _MAX_TOKEN_CHARS or task_id_problem(token) is not None:
            raise ServiceError(200, "the upload answered no usable file_token")
        if self._key in token:
            raise ServiceError(200, "the upload's file_token repeats the API key")
        return token

    # ------------------------------------------------------------------ answers

    def _task_from_submit(self, data: object) -> Task:
        """``data.task_id`` of a submit's envelope (SDK _submit); an error code there means no task."""
        if not isinstance(data, Mapping):
            raise ValueError("the answer is not a JSON object")
        if "data" in data and not isinstance(data["data"], Mapping) and not _is_error(data):
            raise ValueError("the answer has no data object")
        task_id = self._data(data).get("task_id")  # an error code raises the error it names
        if task_id is None:
            raise ValueError("the answer has no task_id")
        task = Task.from_json({"id": task_id, "status": STATE_QUEUED})
        return Task(id=task.id, status=task.status, raw_status=task.raw_status, handle=HANDLE_V3)

    def _data(self, answer: object, *, task_id: str | None = None) -> Mapping[str, Any]:
        """The ``data`` of a 2xx envelope, or the Kiln error its error code names.

        Read as the SDK reads it (_http.py ``parse_envelope``): a ``code`` other than 0 (or a
        ``"status": "error"``) is an error, and an answer without ``data`` is its own data.
        """
        if not isinstance(answer, Mapping):
            raise ServiceError(200, "the answer is not a JSON object")
        if _is_error(answer):
            number = code_of(answer)
            status = CODE_STATUS.get(number, 400) if number is not None else 400
            raise code_error(status, answer, {}, self._key, task_id=task_id)
        data = answer.get("data") if "data" in answer else answer
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
        if isinstance(answer, Mapping) and code_of(answer) is not None:
            return code_error(resp.status_code, answer, resp.headers, self._key, task_id=task_id)
        error = error_for(resp.status_code, resp.headers, body, self._key, task_id=task_id, moved=True)
        return error.named(INFO.name) if not error.message.name.startswith("TRIPO_") else error


# ------------------------------------------------------------------ helpers


def _task_from_poll(task_id: str, data: Mapping[str, Any]) -> Task:
    """A Task from the poll's ``data`` (SDK models.py Task.from_dict): eight states, progress 0–100.

    The mesh is ``model_url`` (or ``pbr_model_url``), the preview ``rendered_image_url``. A state
    the SDK does not name, and ``unknown``, are "in progress" (the engine's deadline ends them).
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
    else:  # running, unknown, or a word the SDK does not list
        status = TaskStatus.RUNNING
    progress = task_progress(data.get("progress"), status)
    result = None
    output = data.get("output")
    if status is TaskStatus.COMPLETED and isinstance(output, Mapping):
        mesh = next((u for k in MESH_FIELDS if (u := _link(output.get(k)))), None)
        preview = _link(output.get(PREVIEW_FIELD))
        if mesh or preview:
            fmt = "glb" if mesh and urlsplit(mesh).path.lower().endswith(".glb") else None
            result = Result(mesh_url=mesh, preview_image_url=preview, format=fmt)
    failed = status is TaskStatus.FAILED
    left = finite_number(data.get("running_left_time"))
    return Task(
        id=task_id,
        status=status,
        raw_status=raw_status,
        progress=progress,
        eta_seconds=round(left) if left is not None and 0 <= left < 2**31 else None,
        result=result,
        error=_failure(word, data) if failed else None,
        said=plain_reason(_said(data)) if failed else None,
        handle=HANDLE_V3,
    )


def _is_error(answer: Mapping[str, Any]) -> bool:
    """An error envelope, as _http.py ``parse_envelope`` tells one."""
    code = answer.get("code")
    return (code is not None and code != CODE_OK) or answer.get("status") == "error"


def _said(data: Mapping[str, Any]) -> object:
    """Tripo's own words for a failure: ``error_msg`` (``error_message`` too, as the SDK reads)."""
    return data.get("error_msg") or data.get("error_message")


def _failure(word: str, data: Mapping[str, Any]) -> str:
    """Why the task ended without a mesh, as one sentence for the details (the service's words kept)."""
    reasons = {
        "failed": "Tripo could not make this model",
        "banned": "Tripo banned the task under its content policy",
        "expired": "the task expired on Tripo before it finished",
        "cancelled": "the task was cancelled on Tripo",
    }
    parts = [reasons.get(word, f"the task ended as {word}")]
    code = code_of(data, "error_code")
    if code is not None:
        parts.append(f"error code {code}")
    said = _said(data)
    if isinstance(said, str) and said.strip():
        parts.append(shorten(" ".join(said.split()), MAX_WORDS))
    return describe_error("; ".join(parts))


def _whole(value: object) -> int | None:
    """Credits as a whole number (the SDK types the balance as a float), rounded down; None if odd."""
    number = finite_number(value)
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
