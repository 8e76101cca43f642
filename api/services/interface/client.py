"""The wire of the service of Kiln's interface document (``service-interface.md``): its calls.

The rules every service's client keeps (deadlines, one attempt per call, the key kept home, only
Kiln errors leave) are :class:`api.http.client.ServiceClient`'s; this module adds the paths and
fields of the interface document. Where the document says "not shown", the parsing is tolerant
(:mod:`api.http.models`).
"""

from __future__ import annotations

import os
import threading
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ...checks.glb import IMAGE_MIME, image_kind
from ...checks.inputs import check_image_bytes, check_prompt, check_web_url, read_image_file
from ...errors import InputError, KilnError, NotFoundError, ServiceError
from ...http.answers import parse_json
from ...http.client import MAX_ERROR_BYTES, ServiceClient
from ...http.guard import Guard, guarding
from ...http.ids import shown_task_id, task_id_problem, url_segment
from ...http.models import Task
from ...http.origin import host_label
from ...words import Message, message
from ...words import catalogue as words
from ..order import Order
from . import IMAGE_RESOLUTIONS, IMAGE_TO_3D_PATH, INFO, SERVICE_DEFAULT, TASKS_PATH, TEXT_TO_3D_PATH

__all__ = ["Client"]


class Client(ServiceClient):
    """Talks to the interface document's service at ``base_url`` (the address the artist gives)."""

    info = INFO

    def submit(self, order: Order, *, idempotency_key: str) -> Task:
        """The engine's one way in: a text or an image job as the interface document sends it."""
        if order.kind == "text":
            image_model = {"provider": order.provider, "quality": order.quality}
            return self.submit_text(
                order.prompt,
                resolution=int(order.tier) if order.tier not in ("", SERVICE_DEFAULT) else None,
                image_model=image_model if order.provider or order.quality else None,
                idempotency_key=idempotency_key,
            )
        return self.submit_image(
            path=order.image_path or None,
            url=order.image_url or None,
            resolution=int(order.tier or INFO.capabilities.image_default),
            webhook_url=order.webhook_url or None,
            idempotency_key=idempotency_key,
        )

    def submit_text(
        self,
        prompt: str,
        *,
        resolution: int | None = None,
        image_model: Mapping[str, str] | None = None,
        idempotency_key: str | None = None,
        cancel: threading.Event | None = None,
    ) -> Task:
        """POST text-to-3d. Allowed resolutions are not shown in the spec, so any positive int goes."""
        body: dict[str, Any] = {"prompt": check_prompt(prompt)}
        if resolution is not None:
            if isinstance(resolution, bool) or not isinstance(resolution, int) or not 0 < resolution < 2**31:
                raise InputError(words.RESOLUTION_NOT_WHOLE, value=repr(resolution))
            body["resolution"] = resolution
        if image_model is not None:
            if not isinstance(image_model, Mapping) or not all(
                isinstance(v, str) and v.isprintable() and len(v) <= 100 for v in image_model.values()
            ):
                raise InputError(words.IMAGE_MODEL_INVALID)
            # Allowed provider/quality values are not shown in the spec: passed through unchecked.
            model = {k: v for k, v in image_model.items() if k in ("provider", "quality") and v.strip()}
            if model:
                body["image_model"] = model
        return self._submit(TEXT_TO_3D_PATH, {"json": body}, idempotency_key, cancel)

    def submit_image(
        self,
        *,
        path: str | os.PathLike[str] | None = None,
        data: bytes | None = None,
        url: str | None = None,
        resolution: int = 1536,
        webhook_url: str | None = None,
        idempotency_key: str | None = None,
        cancel: threading.Event | None = None,
    ) -> Task:
        """POST image-to-3d: a file or bytes go as multipart field ``image``; a URL goes as JSON."""
        if sum(x is not None for x in (path, data, url)) != 1:
            raise InputError(words.ONE_IMAGE_NEEDED)
        if resolution not in IMAGE_RESOLUTIONS or isinstance(resolution, bool):
            raise InputError(words.IMAGE_RESOLUTION_INVALID, value=repr(resolution))
        webhook = check_web_url(webhook_url, "webhook URL") if webhook_url is not None else None
        if url is not None:
            body: dict[str, Any] = {"image_url": check_web_url(url, "image URL"), "resolution": resolution}
            if webhook:
                body["webhook_url"] = webhook
            return self._submit(IMAGE_TO_3D_PATH, {"json": body}, idempotency_key, cancel)
        if path is not None:
            try:
                image, filename = read_image_file(Path(path)), Path(path).name
            except (ValueError, TypeError):  # a NUL in the path, or not a path at all
                raise InputError(words.IMAGE_PATH_UNUSABLE) from None
        else:
            image, filename = check_image_bytes(data, "the image data"), ""
        kind = image_kind(image[:16])
        assert kind is not None  # check_image_bytes guarantees it
        form = {"resolution": str(resolution)}
        if webhook:
            form["webhook_url"] = webhook
        if not filename.isprintable() or len(filename) > 200:
            filename = ""
        files = {"image": (filename or f"image.{kind}", image, IMAGE_MIME[kind])}
        return self._submit(IMAGE_TO_3D_PATH, {"data": form, "files": files}, idempotency_key, cancel)

    def get_task(self, task_id: str, *, handle: str = "", cancel: threading.Event | None = None) -> Task:
        """GET the task. A 404 raises NotFoundError: the service no longer knows it.

        The returned task carries ``task_id`` as its id whatever the answer said: the id asked
        for is known good; the answer's is service text Kiln has no use for.
        """
        problem = task_id_problem(task_id)
        if problem is not None:
            raise InputError(words.TASK_ID_UNUSABLE, details=problem, task=shown_task_id(task_id))
        task_id = str(task_id)
        url = self.base_url + TASKS_PATH + url_segment(task_id)

        def once() -> Task:
            status, body = self._exchange(lambda: self._http.get(url), task_id=task_id, cancel=cancel)
            try:
                data = parse_json(body)
                if not isinstance(data, Mapping):
                    raise ValueError("the answer is not a JSON object")
                return Task.from_json({**data, "id": task_id}).redacted(self._key)
            except ValueError as exc:
                raise ServiceError(status, f"the task could not be read: {exc}") from None

        return self._once(f"poll of task {task_id}", once, cancel)

    def check_connection(self, *, cancel: threading.Event | None = None) -> Message:
        """One cheap request for the preferences' "Test connection"; returns a sentence or raises.

        The spec has no health endpoint, so this polls a task id that cannot exist: a JSON 404 means
        the service is reachable and accepted the key (polls cost no credits), 401/403 raise
        AuthError. Caveat: a service that looked up the task before checking the key would also
        answer 404 to a bad key. Not retried: the artist is waiting for an answer.
        """
        url = f"{self.base_url}{TASKS_PATH}kiln-connection-check-{uuid.uuid4().hex}"
        self._check_cancel(cancel)
        with guarding(Guard(self.deadline)):
            try:
                with self._http.get(url) as resp:
                    if resp.status_code != 404 and not 200 <= resp.status_code < 300:
                        raise self._error_from(resp)
                    body = self._http.read(resp, MAX_ERROR_BYTES, truncate=True)
            except KilnError:
                raise
            except Exception as exc:
                raise self._http.transport_error(exc, url) from None
        if resp.status_code == 404:
            try:
                parse_json(body)
            except ValueError:
                raise NotFoundError(
                    detail="its answer is not JSON", said=words.SERVICE_NOT_THE_SERVICE, host=host_label(url)
                ) from None
        return message(words.CONNECTION_OK, host=host_label(url))
