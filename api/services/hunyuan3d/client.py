"""Hunyuan3D's own server (``api_server.py``, 2.0 and 2.1): send, follow, fetch the model it returns.

The rules every client keeps are :class:`api.http.client.ServiceClient`'s; the server checks no
key, so none is sent. Sources in :mod:`api.services.hunyuan3d`.

A job: ``GET /health`` tells a 2.1 server (200) from a 2.0 one (404) before anything is paid for;
``POST /send`` with the image (and, on 2.0, the mesh to texture) as base64 answers the ``uid``;
``GET /status/{uid}`` says ``processing`` (``texturing`` on 2.1) until ``completed``, which carries
the GLB as base64: a poll reads only the start of that answer, and the download decodes the model
from the stream (:mod:`.model_field`). The server never reports a failure: Kiln's own time limit
ends a job that stays in ``processing`` (the job engine's ``timeout_seconds``).
"""

from __future__ import annotations

import base64
import json
import re
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ...checks.inputs import read_image_file
from ...errors import InputError, KilnError, NetworkError
from ...http.client import ServiceClient
from ...http.download import BodyWriter, copy_body
from ...http.guard import Guard, guarding
from ...http.ids import shown_task_id, task_id_problem, url_segment
from ...http.models import Result, Task, TaskStatus
from ...http.origin import host_label
from ...words import Message, message
from ...words import catalogue as words
from ..order import Order, model_bytes, refusal
from . import (
    DEFAULT_ADDRESS,
    FACE_COUNT_RANGE,
    HEALTH_PATH,
    INFO,
    MAX_MESH_BYTES,
    MODEL_FIELD,
    README_ADDRESS,
    SEND_PATH,
    STATUS_COMPLETED,
    STATUS_PATH,
    STATUS_PREFIX_BYTES,
)
from .model_field import model_field

__all__ = ["Client"]

_STATUS_WORD = re.compile(rb'"status"\s*:\s*"([A-Za-z_]{1,32})"')


class Client(ServiceClient):
    """Talks to a Hunyuan3D server at the studio's address (``http://127.0.0.1:8081`` by default)."""

    info = INFO

    # ------------------------------------------------------------------ the interface

    def submit(self, order: Order, *, idempotency_key: str) -> Task:
        """One ``POST /send``: its fields as the server's own code reads them (2.0, 2.1)."""
        refused = refusal(INFO.capabilities, INFO.name, order)
        if refused is not None:
            raise InputError(refused)
        newer = self._is_21()
        body: dict[str, Any] = {"image": _base64_image(order.image_path, order.kind)}
        if order.kind == "retexture":
            if newer:  # 2.1's GenerationRequest has no mesh field: it would make a new shape
                raise InputError(words.HUNYUAN3D_NO_RETEXTURE, service=INFO.name)
            body["mesh"] = base64.b64encode(model_bytes(order, INFO.name, MAX_MESH_BYTES)).decode("ascii")
            body["texture"] = True
        else:
            texture = _flag(order.options.get("texture", True))
            if newer and not texture:  # 2.1's status says "completed" only once a textured file exists
                raise InputError(words.HUNYUAN3D_TEXTURE_NEEDED, service=INFO.name)
            body["texture"] = texture
            body["remove_background"] = True  # 2.1's default, said; 2.0 always removes it
        faces = order.options.get("polygons", 0)
        if faces:
            low, high = FACE_COUNT_RANGE
            if isinstance(faces, bool) or not isinstance(faces, int) or not low <= faces <= high:
                raise InputError(words.HUNYUAN3D_POLYGONS_RANGE, service=INFO.name, low=low, high=high)
            body["face_count"] = faces
        return self._submit(SEND_PATH, {"json": body}, idempotency_key, None)

    def get_task(self, task_id: str, *, handle: str = "", cancel: threading.Event | None = None) -> Task:
        """``GET /status/{uid}``: the status word from the answer's start; the model is fetched later."""
        task_id = _checked(task_id)
        url = self._status_url(task_id)

        def once() -> bytes:
            with guarding(Guard(self.deadline, cancel=cancel)):
                try:
                    with self._http.get(url) as resp:
                        if not 200 <= resp.status_code < 300:
                            raise self._error_from(resp, task_id=task_id)
                        return self._http.read(resp, STATUS_PREFIX_BYTES, truncate=True)
                except KilnError:
                    raise
                except Exception as exc:
                    raise self._http.transport_error(exc, url) from None

        word = _status_word(self._once(f"poll of task {task_id}", once, cancel))
        if word == STATUS_COMPLETED:
            return Task(
                id=task_id,
                status=TaskStatus.COMPLETED,
                raw_status=word,
                progress=100.0,
                result=Result(mesh_url=url, format="glb"),
            )
        # "processing", 2.1's "texturing", or a word the server does not use: not finished, and
        # never failed (it cannot say so): the engine's time limit ends it.
        return Task(id=task_id, status=TaskStatus.RUNNING, raw_status=word or "processing")

    def _body_for(self, url: str) -> BodyWriter:
        """The model inside the status answer, decoded as it streams; any other link as a file."""
        if url.startswith(self.base_url + STATUS_PATH + "/"):
            return model_field(MODEL_FIELD)
        return copy_body

    def check_connection(self, *, cancel: threading.Event | None = None) -> Message:
        """``GET /health`` (2.1), else a status ask (2.0 answers any uid "processing"): both free."""
        self._is_21(cancel)
        return message(words.LOCAL_SERVICE_CONNECTED, service=INFO.name, host=host_label(self.base_url))

    # ------------------------------------------------------------------ plumbing

    def _is_21(self, cancel: threading.Event | None = None) -> bool:
        """Whether the server is 2.1's: it has ``/health`` (a 404 or 405 there: 2.0's, which has none)."""
        url = self.base_url + HEALTH_PATH

        def once() -> bool:
            with guarding(Guard(self.deadline, cancel=cancel)):
                try:
                    with self._http.get(url) as resp:
                        if resp.status_code in (404, 405):
                            return False
                        if not 200 <= resp.status_code < 300:
                            raise self._error_from(resp)
                        return True
                except KilnError:
                    raise
                except Exception as exc:
                    raise self._http.transport_error(exc, url) from None

        try:
            return self._once("health check", once, cancel)
        except NetworkError as error:
            raise self._elsewhere(error) from None

    def _elsewhere(self, error: NetworkError) -> KilnError:
        """A refused default address: say so, naming the README's port where a server answers there
        (the code listens on 8081, the 2.0 README starts it on 8080: issue #61)."""
        if self.base_url != DEFAULT_ADDRESS or error.message.name != "NETWORK_REFUSED":
            return error
        try:
            with Client(README_ADDRESS, "", deadline=5.0) as other:
                other._json_call(
                    "health check", lambda: other._http.get(README_ADDRESS + STATUS_PATH + "/kiln")
                )
        except KilnError:
            return error
        return InputError(
            words.HUNYUAN3D_OTHER_PORT,
            service=INFO.name,
            host=host_label(self.base_url),
            other=README_ADDRESS,
        )

    def _status_url(self, task_id: str) -> str:
        return f"{self.base_url}{STATUS_PATH}/{url_segment(task_id)}"

    def _task_from_submit(self, data: object) -> Task:
        """``{"uid": "…"}`` (2.0, 2.1 ``/send``)."""
        if not isinstance(data, Mapping) or not isinstance(data.get("uid"), str):
            raise ValueError("the answer has no uid")
        return Task.from_json({"id": data["uid"], "status": "processing"})


def _status_word(prefix: bytes) -> str:
    """The ``status`` of an answer read only in part (the model may follow it, megabytes long)."""
    try:
        answer = json.loads(prefix)
    except ValueError:
        # Cut short by the model: the status comes first in both servers' answers; a model field
        # without one seen is a finished job all the same.
        match = _STATUS_WORD.search(prefix)
        if match:
            return match.group(1).decode("ascii").lower()
        return STATUS_COMPLETED if f'"{MODEL_FIELD}"'.encode() in prefix else ""
    word = answer.get("status") if isinstance(answer, Mapping) else None
    return word.lower() if isinstance(word, str) and len(word) <= 32 else ""


def _base64_image(path: str, kind: str) -> str:
    if not path.strip():
        raise InputError(
            words.LOCAL_RETEXTURE_NEEDS_IMAGE if kind == "retexture" else words.ONE_IMAGE_NEEDED,
            service=INFO.name,
        )
    try:
        data = read_image_file(Path(path))
    except (ValueError, TypeError):
        raise InputError(words.IMAGE_PATH_UNUSABLE) from None
    return base64.b64encode(data).decode("ascii")


def _flag(value: object) -> bool:
    return value if isinstance(value, bool) else bool(value) if isinstance(value, int) else True


def _checked(task_id: str) -> str:
    problem = task_id_problem(task_id)
    if problem is not None:
        raise InputError(words.TASK_ID_UNUSABLE, details=problem, task=shown_task_id(task_id))
    return str(task_id)
