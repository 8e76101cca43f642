"""The wire of Meshy (its ``openapi``, at the origin its package names): its calls, fields, states and errors.

The rules every service's client keeps (deadlines, one attempt per call, the key kept home, only
Kiln errors leave) are :class:`api.http.client.ServiceClient`'s; this module adds Meshy's paths
and fields as its API reference names them (https://docs.meshy.ai/api/text-to-3d,
``/api/image-to-3d``, ``/api/multi-image-to-3d``, ``/api/errors``), with Meshy's MCP server
(``meshy-dev/meshy-mcp-server``, ``src/tools/*.ts``) as the witness where the pages are silent.

A text job is two paid submits: a preview (the shape), then a refine of that preview (its
textures) — ``stages`` says how many; the engine sends the second with ``order.stage == 1`` and the
preview's task id. Image jobs are one submit, to ``image-to-3d`` (one image) or ``multi-image-to-3d``
(the front and up to three more views). A task is followed on the path that made it, which its
``Task.handle`` names. Result links are signed, short-lived CDN links that the engine fetches at once;
the key never goes to them (:meth:`ServiceClient.download`).
"""

from __future__ import annotations

import base64
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import requests

from ...checks.glb import IMAGE_MIME, image_kind
from ...checks.inputs import check_prompt, check_web_url, read_image_file
from ...errors import (
    AuthError,
    BadRequestError,
    CreditsError,
    InputError,
    KilnError,
    RateLimitError,
    ServiceError,
    ServiceMovedError,
)
from ...http.answers import error_for, parse_json, server_words
from ...http.client import MAX_ERROR_BYTES, ServiceClient
from ...http.ids import check_task_id, shown_task_id, task_id_problem, url_segment
from ...http.models import Task, TaskStatus, finite_number
from ...words import Message, message
from ...words import catalogue as words
from ..order import Order, given_views, model_bytes, refusal
from . import (
    BALANCE_PATH,
    CODE_INSUFFICIENT_CREDITS,
    CODE_LIMIT_EXCEEDED,
    CODE_TOO_MANY_PENDING,
    CONTENT_WORDS,
    HANDLE_IMAGE,
    HANDLE_MULTI_IMAGE,
    HANDLE_RETEXTURE,
    HANDLE_TEXT,
    IMAGE_TO_3D_PATH,
    INFO,
    MAX_PROMPT_CHARS,
    MAX_STYLE_PROMPT_CHARS,
    MODE_PREVIEW,
    MODE_REFINE,
    MULTI_IMAGE_TO_3D_PATH,
    POLYCOUNT_RANGE,
    RETEXTURE_MAX_BYTES,
    RETEXTURE_PATH,
    RETIRED_WORDS,
    TASK_PATHS,
    TEXT_TO_3D_PATH,
    TOPOLOGY_QUAD,
    TOPOLOGY_TRIANGLE,
)
from .answers import task_from, with_handle

__all__ = ["Client"]

#: Meshy takes JPEG and PNG ("We currently support .jpg, .jpeg, and .png formats", image-to-3d page).
_TAKEN_KINDS = frozenset({"png", "jpeg"})


class Client(ServiceClient):
    """Talks to Meshy at its API origin (or a stand-in's origin in tests) with the artist's key."""

    info = INFO

    # ------------------------------------------------------------------ submits

    def stages(self, order: object) -> int:
        """A textured text job is a preview then a refine (two paid submits); anything else is one."""
        if isinstance(order, Order) and order.kind == "text" and _flag(order.options, "texture", True):
            return 2
        return 1

    def submit(self, order: Order, *, idempotency_key: str) -> Task:
        """Send one paid request for ``order`` (its stage, for a text job). One attempt: never re-sent.

        Meshy documents no Idempotency-Key; the header is sent anyway (harmless) and a submit that may
        have left unanswered is "outcome unknown" (:meth:`ServiceClient._submit`).
        """
        if order.kind == "retexture":
            return self._retexture(order, idempotency_key)
        model = self._model(order)
        if order.kind == "text":
            if order.stage >= 1:
                return self._refine(order, model, idempotency_key)
            return self._preview(order, model, idempotency_key)
        if order.kind == "image":
            return self._image(order, model, idempotency_key)
        raise InputError(words.SERVICE_TAKES_NO_TEXT, service=INFO.name)

    def _preview(self, order: Order, model: str, idempotency_key: str) -> Task:
        """POST text-to-3d, ``mode: "preview"``: the shape (docs.meshy.ai/api/text-to-3d)."""
        prompt = check_prompt(order.prompt)
        if len(prompt) > MAX_PROMPT_CHARS:
            raise InputError(words.PROMPT_TOO_LONG, length=len(prompt), limit=MAX_PROMPT_CHARS)
        # No ``art_style``: deprecated for Meshy-6 previews (changelog 2026-01-22), see the package.
        body: dict[str, Any] = {"mode": MODE_PREVIEW, "prompt": prompt, "ai_model": model}
        body.update(_mesh_fields(order.options))
        task = self._submit(TEXT_TO_3D_PATH, {"json": body}, idempotency_key, None)
        return with_handle(task, HANDLE_TEXT)

    def _refine(self, order: Order, model: str, idempotency_key: str) -> Task:
        """POST text-to-3d, ``mode: "refine"`` with ``preview_task_id``: the preview's textures."""
        preview = order.previous_task_id
        if not preview or task_id_problem(preview) is not None:
            raise InputError(
                words.MESHY_NO_PREVIEW, details=f"preview task {shown_task_id(preview)}", service=INFO.name
            )
        body: dict[str, Any] = {"mode": MODE_REFINE, "preview_task_id": preview, "ai_model": model}
        if "pbr" in order.options:
            body["enable_pbr"] = _flag(order.options, "pbr", False)
        task = self._submit(TEXT_TO_3D_PATH, {"json": body}, idempotency_key, None)
        return with_handle(task, HANDLE_TEXT)

    def _image(self, order: Order, model: str, idempotency_key: str) -> Task:
        """POST image-to-3d (one image) or multi-image-to-3d (``image_urls``, 1 to 4 views of one object).

        Each image goes as a public URL or, for a file, as a base64 ``data:`` URI, the two ways
        the image-to-3d page gives.
        """
        front = self._image_ref(order.image_url or None, order.image_path or None)
        # Positions do not matter to multi-image-to-3d ("1 to 4 images"): a missing view is left out.
        views = [self._view_ref(view) for view in given_views(order.views)]
        if 1 + len(views) > INFO.capabilities.max_views:
            raise InputError(words.SERVICE_TAKES_ONE_IMAGE, service=INFO.name)
        body: dict[str, Any] = {"ai_model": model}
        if "texture" in order.options:
            body["should_texture"] = _flag(order.options, "texture", True)
        if "pbr" in order.options:
            body["enable_pbr"] = _flag(order.options, "pbr", False)
        body.update(_mesh_fields(order.options))
        if views:
            body["image_urls"] = [front, *views]
            task = self._submit(MULTI_IMAGE_TO_3D_PATH, {"json": body}, idempotency_key, None)
            return with_handle(task, HANDLE_MULTI_IMAGE)
        body["image_url"] = front
        task = self._submit(IMAGE_TO_3D_PATH, {"json": body}, idempotency_key, None)
        return with_handle(task, HANDLE_IMAGE)

    def _retexture(self, order: Order, idempotency_key: str) -> Task:
        """POST retexture: the mesh as a data URI (``model_url``), its style as ``text_style_prompt``
        or ``image_style_url`` (docs.meshy.ai/api/retexture), ``enable_pbr`` where chosen."""
        # The retexture page's data URI (``application/octet-stream``).
        mesh = base64.b64encode(model_bytes(order, INFO.name, RETEXTURE_MAX_BYTES)).decode("ascii")
        body: dict[str, Any] = {"model_url": "data:application/octet-stream;base64," + mesh}
        if order.image_path:
            body["image_style_url"] = self._image_ref(None, order.image_path)
        else:
            prompt = check_prompt(order.prompt)
            if len(prompt) > MAX_STYLE_PROMPT_CHARS:
                raise InputError(
                    words.RETEXTURE_PROMPT_TOO_LONG,
                    service=INFO.name,
                    length=len(prompt),
                    limit=MAX_STYLE_PROMPT_CHARS,
                )
            body["text_style_prompt"] = prompt
        if "pbr" in order.options:
            body["enable_pbr"] = _flag(order.options, "pbr", False)
        task = self._submit(RETEXTURE_PATH, {"json": body}, idempotency_key, None)
        return with_handle(task, HANDLE_RETEXTURE)

    def _model(self, order: Order) -> str:
        """The ``ai_model`` id of ``order.tier`` ("" : the default). A retired or unknown tier, and an
        option Meshy does not take (a style), are refused here too, before anything is sent."""
        refused = refusal(INFO.capabilities, INFO.name, order)
        if refused is not None:
            raise InputError(refused)
        tier = INFO.capabilities.tier(order.kind, order.tier)
        if tier is None:  # a kind without tiers: refusal() said so above
            raise InputError(words.SERVICE_TIER_UNKNOWN, service=INFO.name, tier=str(order.tier)[:40])
        return tier.id

    def _image_ref(self, url: str | None, path: str | None) -> str:
        """The image as Meshy takes it: its public address, or a data URI of the checked file."""
        if (url is None) == (path is None):
            raise InputError(words.ONE_IMAGE_NEEDED)
        if url is not None:
            return check_web_url(url, "image URL")
        assert path is not None
        try:
            data = read_image_file(Path(path))
        except (ValueError, TypeError):  # a NUL in the path, or not a path at all
            raise InputError(words.IMAGE_PATH_UNUSABLE) from None
        kind = image_kind(data[:16])
        if kind not in _TAKEN_KINDS:
            raise InputError(words.MESHY_IMAGE_FORMAT, details=f"a {kind} image", service=INFO.name)
        return f"data:{IMAGE_MIME[kind]};base64,{base64.b64encode(data).decode('ascii')}"

    def _view_ref(self, view: str) -> str:
        """A further view: a web address as it is, anything else a file on this computer."""
        text = str(view or "").strip()
        if text.lower().startswith(("http://", "https://")):
            return self._image_ref(text, None)
        return self._image_ref(None, text)

    def _task_from_submit(self, data: object) -> Task:
        """Every create answers ``{"result": "<task id>"}`` (text-to-3d and image-to-3d pages)."""
        if not isinstance(data, Mapping):
            raise ValueError("the answer is not a JSON object")
        if "result" not in data:
            raise ValueError("the answer names no task (no “result”)")
        return Task(id=check_task_id(data["result"]), status=TaskStatus.QUEUED)

    # ------------------------------------------------------------------ following a task

    def get_task(self, task_id: str, *, handle: str = "", cancel: threading.Event | None = None) -> Task:
        """GET the task on the path that made it (``handle``; "" : text-to-3d, the first Meshy job),
        read by :func:`.answers.task_from`."""
        url = self._task_url(task_id, handle)
        data = self._json_call(
            f"poll of task {task_id}", lambda: self._http.get(url), task_id=task_id, cancel=cancel
        )
        if not isinstance(data, Mapping):
            raise ServiceError(200, "the task could not be read: the answer is not a JSON object")
        return task_from(task_id, handle if handle in TASK_PATHS else HANDLE_TEXT, data).redacted(self._key)

    def cancel_task(self, task_id: str, *, handle: str = "") -> None:
        """DELETE the task (what Meshy's MCP server's ``meshy_cancel_task`` sends, ``src/tools/tasks.ts``).

        Meshy's page calls this deleting a task: it and its files are gone, and a later poll answers
        404. One attempt; a task Meshy no longer knows raises NotFoundError.
        """
        url = self._task_url(task_id, handle)
        self._once(
            f"cancel of task {task_id}",
            lambda: self._exchange(lambda: self._http.send("DELETE", url), task_id=task_id),
            None,
        )

    def _task_url(self, task_id: str, handle: str) -> str:
        problem = task_id_problem(task_id)
        if problem is not None:
            raise InputError(words.TASK_ID_UNUSABLE, details=problem, task=shown_task_id(task_id))
        return f"{self.base_url}{TASK_PATHS.get(handle, TEXT_TO_3D_PATH)}/{url_segment(str(task_id))}"

    # ------------------------------------------------------------------ the account

    def balance(self, *, cancel: threading.Event | None = None) -> int | None:
        """GET /openapi/v1/balance → ``{"balance": n}`` (MCP server ``src/tools/balance.ts``)."""
        url = self.base_url + BALANCE_PATH
        data = self._json_call("balance", lambda: self._http.get(url), cancel=cancel)
        value = data.get("balance") if isinstance(data, Mapping) else None
        left = finite_number(value)
        return None if left is None or left < 0 else int(left)

    def check_connection(self, *, cancel: threading.Event | None = None) -> Message:
        """The balance call: free, and it needs a good key. A sentence naming Meshy and what is left."""
        left = self.balance(cancel=cancel)
        if left is None:
            return message(words.CONNECTED_TO_SERVICE, service=INFO.name)
        return message(words.CONNECTED_WITH_BALANCE, n=left, amount=f"{left:,}", service=INFO.name)

    # ------------------------------------------------------------------ errors

    def _error_from(self, resp: requests.Response, *, task_id: str | None = None) -> KilnError:
        """Meshy's errors page: the HTTP status and ``{"message": …}``; a code where one is sent.

        402 is "Insufficient funds" (CreditsError); a refusal that names the content policy gets its
        own sentence, the service's words kept in the details; a refusal that says the model or field
        is retired or deprecated (or a 404/410 on a documented path) asks for a newer Kiln
        (ServiceMovedError); errors about the account name Meshy.
        """
        body = self._http.read(resp, MAX_ERROR_BYTES, truncate=True)
        status = resp.status_code
        error = error_for(
            status, resp.headers, body, self._key, task_id=task_id, moved=self._http.paths_documented
        )
        said = server_words(body, resp.headers.get("Content-Type", ""), self._key)
        code = _error_code(body)
        if code == CODE_INSUFFICIENT_CREDITS and not isinstance(error, CreditsError):
            error = CreditsError(_joined(f"HTTP {status}", said))
        elif code in (CODE_TOO_MANY_PENDING, CODE_LIMIT_EXCEEDED) and not isinstance(error, RateLimitError):
            error = RateLimitError(getattr(error, "retry_after", None), _joined(f"HTTP {status}", said))
        elif 400 <= status < 500 and status not in (401, 402, 429) and _about_retired(said):
            error = ServiceMovedError(status, said)
        elif 400 <= status < 500 and status not in (401, 402, 404, 429) and _about_content(said):
            error = BadRequestError(status, said, words.MESHY_CONTENT_REFUSED, service=INFO.name)
        if isinstance(error, AuthError | CreditsError | RateLimitError | ServiceMovedError):
            error.named(INFO.name)
        return error


# ---------------------------------------------------------------------- options and small readers


def _mesh_fields(options: Mapping[str, object]) -> dict[str, Any]:
    """``topology`` and ``target_polycount``; both apply "only when should_remesh = true", and
    ``should_remesh`` defaults to false on Meshy 6 (text-to-3d page), so it is sent with them."""
    fields: dict[str, Any] = {}
    if "quad" in options:
        fields["topology"] = TOPOLOGY_QUAD if _flag(options, "quad", False) else TOPOLOGY_TRIANGLE
    polygons = options.get("polygons")
    if polygons not in (None, 0, False):
        low, high = POLYCOUNT_RANGE
        if isinstance(polygons, bool) or not isinstance(polygons, int) or not low <= polygons <= high:
            raise InputError(words.MESHY_POLYGONS_RANGE, service=INFO.name, low=low, high=high)
        fields["target_polycount"] = polygons
    if fields:
        fields["should_remesh"] = True
    return fields


def _flag(options: Mapping[str, object], name: str, default: bool) -> bool:
    value = options.get(name, default)
    return default if value is None else bool(value)


def _error_code(body: bytes) -> str | None:
    """``error_code`` or ``code`` of a JSON error body (Meshy's MCP server reads both), else None."""
    try:
        data = parse_json(body)
    except ValueError:
        return None
    if not isinstance(data, Mapping):
        return None
    code = data.get("error_code") or data.get("code")
    return code if isinstance(code, str) and len(code) <= 64 else None


def _about_retired(said: str | None) -> bool:
    text = (said or "").lower()
    return any(word in text for word in RETIRED_WORDS)


def _about_content(said: str | None) -> bool:
    text = (said or "").lower()
    return any(word in text for word in CONTENT_WORDS)


def _joined(*parts: str | None) -> str:
    return "; ".join(part for part in parts if part)
