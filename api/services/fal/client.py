"""fal.ai's queue wire: submit to a model's path, read its status, fetch its result, cancel it.

The rules every client keeps (deadlines, size caps, one attempt per call, the key only to the API
origin, only Kiln errors leave) are :class:`api.http.client.ServiceClient`'s. This module adds
what the official ``fal-client`` 1.0.3 does on the queue (sources in :mod:`api.services.fal`):

* submit: ``POST {queue}/{app_id}`` with the model's input as JSON → ``request_id`` (and the three
  URLs, which Kiln does not follow: it builds them from the tier's app id and the checked id, as
  ``SyncRequestHandle.from_request_id`` does, so a service's text never becomes an address);
* status: ``GET {queue}/{owner}/{alias}/requests/{id}/status`` → IN_QUEUE, IN_PROGRESS or COMPLETED
  (a COMPLETED status with ``error`` is a failed request);
* result: ``GET {queue}/{owner}/{alias}/requests/{id}`` → the model's output, the mesh at
  ``<mesh field>.url`` on fal's CDN, downloaded at once without the key (the inherited ``download``
  judges every hop);
* cancel: ``PUT {queue}/{owner}/{alias}/requests/{id}/cancel``;
* errors: ``{"detail": …}`` (``_raise_for_status``), said in a sentence naming fal.ai.

The job's tier is its ``Task.handle``: it names the model whose queue holds the request.
"""

from __future__ import annotations

import base64
import contextlib
import logging
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import requests

from ...checks.glb import IMAGE_MIME, image_kind
from ...checks.inputs import check_web_url, read_image_file
from ...errors import AuthError, CreditsError, InputError, KilnError, NotFoundError, ServiceError
from ...http.answers import error_for
from ...http.client import MAX_ERROR_BYTES, ServiceClient
from ...http.ids import shown_task_id, task_id_problem, url_segment
from ...http.models import Result, Task, TaskStatus, describe_error, plain_reason
from ...words import Message, message
from ...words import catalogue as words
from ..order import Order, refusal
from . import (
    AUTH_SCHEME,
    CANCEL_SUFFIX,
    DATA_URI_MAX_BYTES,
    INFO,
    MODELS,
    REQUESTS_SEGMENT,
    STATE_COMPLETED,
    STATE_IN_PROGRESS,
    STATE_IN_QUEUE,
    STATUS_SUFFIX,
    Model,
)

__all__ = ["Client"]

logger = logging.getLogger(__name__)

_MAX_LINK_CHARS = 8192


class Client(ServiceClient):
    """Talks to fal's queue at its origin (or a stand-in's origin): the documented paths follow it."""

    info = INFO
    auth_scheme = AUTH_SCHEME

    # ------------------------------------------------------------------ the interface

    def submit(self, order: Order, *, idempotency_key: str) -> Task:
        """One paid request on the tier's model; its image goes inside, as a data URL or its address."""
        refused = refusal(INFO.capabilities, INFO.name, order)
        if refused is not None:
            raise InputError(refused)
        tier = order.tier or INFO.capabilities.default_tier(order.kind)
        model = MODELS[tier]
        body: dict[str, Any] = {model.image_field: self._image(order.image_path, order.image_url)}
        body.update(model.fixed)
        task = self._submit("/" + model.app_id, {"json": body}, idempotency_key, None)
        return Task(id=task.id, status=task.status, raw_status=task.raw_status, handle=tier)

    def get_task(self, task_id: str, *, handle: str = "", cancel: threading.Event | None = None) -> Task:
        """The status; once COMPLETED without an error, the result too (where the mesh link is)."""
        base = self._request_url(task_id, handle)
        task_id = str(task_id)
        status = self._json_call(
            f"status of request {task_id}",
            lambda: self._http.get(base + STATUS_SUFFIX),
            task_id=task_id,
            cancel=cancel,
        )
        if not isinstance(status, Mapping):
            raise self._unreadable("the status is not a JSON object")
        task = _task_from_status(task_id, handle, status)
        if task.status is not TaskStatus.COMPLETED:
            return task.redacted(self._key)
        output = self._json_call(
            f"result of request {task_id}", lambda: self._http.get(base), task_id=task_id, cancel=cancel
        )
        return _with_result(task, _model(handle), output).redacted(self._key)

    def cancel_task(self, task_id: str, *, handle: str = "") -> None:
        """PUT the cancel URL (Client ``cancel``); one attempt. A finished request answers 400."""
        url = self._request_url(task_id, handle) + CANCEL_SUFFIX
        self._once(
            f"cancel of request {task_id}",
            lambda: self._exchange(lambda: self._http.send("PUT", url), task_id=str(task_id)),
            None,
        )

    def check_connection(self, *, cancel: threading.Event | None = None) -> Message:
        """fal has no free call that checks a key (no balance in the client): the status of a request
        that does not exist is asked; 404 means the key was taken, 401/403 that it was not."""
        url = self._request_url("00000000-0000-0000-0000-000000000000", "") + STATUS_SUFFIX
        with contextlib.suppress(NotFoundError):  # the key was taken: only the request is unknown
            self._json_call("connection check", lambda: self._http.get(url), task_id="check", cancel=cancel)
        return message(words.CONNECTED_TO_SERVICE, service=INFO.name)

    # ------------------------------------------------------------------ request fields

    def _image(self, path: str, url: str) -> str:
        """The image as a ``data:`` URL (Client ``encode``), or its web address when given one."""
        if not path.strip() and not url.strip():
            raise InputError(words.ONE_IMAGE_NEEDED)
        if not url and urlsplit(path.strip()).scheme in ("http", "https"):
            path, url = "", path
        if url:
            return check_web_url(url, "image URL")
        try:
            data = read_image_file(Path(path))
        except (ValueError, TypeError):  # a NUL in the path, or not a path at all
            raise InputError(words.IMAGE_PATH_UNUSABLE) from None
        if len(data) > DATA_URI_MAX_BYTES:
            limit = DATA_URI_MAX_BYTES / 1e6
            raise InputError(words.IMAGE_FILE_TOO_LARGE, path=path, size=len(data) / 1e6, limit=limit)
        kind = image_kind(data[:16])
        assert kind is not None  # read_image_file guarantees it
        return f"data:{IMAGE_MIME[kind]};base64,{base64.b64encode(data).decode('ascii')}"

    def _request_url(self, task_id: object, handle: str) -> str:
        """``{queue}/{owner}/{alias}/requests/{id}`` (Client ``from_request_id``), from a checked id."""
        problem = task_id_problem(task_id)
        if problem is not None:
            raise InputError(words.TASK_ID_UNUSABLE, details=problem, task=shown_task_id(task_id))
        owner, alias = _model(handle).app_id.split("/")[:2]
        app = f"{quote(owner, safe='')}/{quote(alias, safe='')}"
        return f"{self.base_url}/{app}/{REQUESTS_SEGMENT}/{url_segment(str(task_id))}"

    # ------------------------------------------------------------------ answers

    def _task_from_submit(self, data: object) -> Task:
        """``request_id`` of the submit's answer (Client ``submit``: ``data["request_id"]``)."""
        if not isinstance(data, Mapping) or "request_id" not in data:
            raise ValueError("the answer has no request_id")
        return Task.from_json({"id": data["request_id"], "status": "queued"})

    def _error_from(self, resp: requests.Response, *, task_id: str | None = None) -> KilnError:
        """fal's ``{"detail": …}`` errors (Client ``_raise_for_status``), said naming fal.ai."""
        body = self._http.read(resp, MAX_ERROR_BYTES, truncate=True)
        moved = self._http.paths_documented
        error = error_for(resp.status_code, resp.headers, body, self._key, task_id=task_id, moved=moved)
        said = (error.details or "").lower()
        if resp.status_code in (402, 403) and ("balance" in said or "locked" in said):
            error = CreditsError().reworded(words.FAL_BALANCE_EXHAUSTED, details=error.details)
            error.status = resp.status_code
        elif isinstance(error, AuthError) and resp.status_code == 401:
            error.reworded(words.FAL_KEY_REJECTED)
        else:
            error.named(INFO.name)
        logger.debug("fal.ai answered HTTP %d", resp.status_code)
        return error

    def _unreadable(self, why: str) -> KilnError:
        return ServiceError(200, why).named(INFO.name)


# ------------------------------------------------------------------ helpers


def _model(handle: str) -> Model:
    """The model a request was sent to (its tier, kept as the job's handle; "" : the default tier)."""
    found = MODELS.get(handle or INFO.capabilities.default_tier("image"))
    if found is None:
        raise InputError(words.SERVICE_TIER_UNKNOWN, service=INFO.name, tier=shown_task_id(handle))
    return found


def _task_from_status(task_id: str, handle: str, data: Mapping[str, Any]) -> Task:
    """A Task from the status answer (Client ``_parse_status``); an unknown word is "in progress"."""
    raw = data.get("status")
    word = raw.strip() if isinstance(raw, str) and len(raw) <= 64 else ""
    if word == STATE_IN_QUEUE:
        status = TaskStatus.QUEUED
    elif word == STATE_COMPLETED:
        status = TaskStatus.COMPLETED
    else:  # IN_PROGRESS, or a word the client does not know (its deadline ends a stuck job)
        status = TaskStatus.RUNNING
    error = data.get("error")
    if status is TaskStatus.COMPLETED and error not in (None, "", {}):
        kind = data.get("error_type")
        usable = isinstance(kind, str) and kind.isprintable() and len(kind) < 64
        named = f"fal.ai error {kind}: " if usable else ""
        return Task(
            id=task_id,
            status=TaskStatus.FAILED,
            raw_status=word,
            error=describe_error(f"{named}{describe_error(error)}"),
            said=plain_reason(error),
            handle=handle,
        )
    return Task(id=task_id, status=status, raw_status=word or STATE_IN_PROGRESS, handle=handle)


def _with_result(task: Task, model: Model, output: object) -> Task:
    """The finished task with its mesh link (``<mesh field>.url``); no link: a failure said so."""
    mesh = output.get(model.mesh_field) if isinstance(output, Mapping) else None
    url = mesh.get("url") if isinstance(mesh, Mapping) else None
    if not isinstance(url, str) or not url.strip() or len(url) > _MAX_LINK_CHARS:
        return Task(
            id=task.id,
            status=TaskStatus.FAILED,
            raw_status=task.raw_status,
            error=describe_error(f"the result has no {model.mesh_field}.url"),
            handle=task.handle,
        )
    url = url.strip()
    fmt = "glb" if urlsplit(url).path.lower().endswith(".glb") else None
    content_type = mesh.get("content_type") if isinstance(mesh, Mapping) else None
    if fmt is None and content_type == "model/gltf-binary":
        fmt = "glb"
    return Task(
        id=task.id,
        status=TaskStatus.COMPLETED,
        raw_status=task.raw_status,
        progress=100.0,
        result=Result(mesh_url=url, format=fmt),
        handle=task.handle,
    )
