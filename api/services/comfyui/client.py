"""ComfyUI's wire: check the workflow against the server, upload, queue, follow, fetch, cancel.

The rules every client keeps (deadlines, size caps, one attempt per call, only Kiln errors leave)
are :class:`api.http.client.ServiceClient`'s; ComfyUI takes no key, so none is sent (a token,
where a proxy in front wants one, goes only over HTTPS or loopback). Sources in
:mod:`api.services.comfyui`.

A job: ``GET /object_info`` (refused in a sentence naming what is missing: nothing uploaded or
queued), ``POST /upload/image``, ``POST /prompt`` with Kiln's own ``prompt_id`` (the job's
idempotency key as a UUID: server ``post_prompt`` takes it), then ``GET /history/{id}`` until the
entry is there (``GET /queue`` says queued or running meanwhile), and the GLB the save node wrote
through ``GET /view``. Progress is the queue's word: the websocket's per-step progress is not used.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import requests

from ...checks.glb import IMAGE_MIME, image_kind
from ...checks.inputs import read_image_file
from ...errors import BadRequestError, InputError, KilnError, ServiceError
from ...http.answers import error_for, parse_json
from ...http.client import MAX_ERROR_BYTES, ServiceClient
from ...http.guard import Guard, guarding
from ...http.ids import shown_task_id, task_id_problem, url_segment
from ...http.models import Result, Task, TaskStatus, describe_error
from ...http.origin import host_label
from ...words import Message, message
from ...words import catalogue as words
from ..order import Order, refusal
from . import (
    CLIENT_ID,
    EVENT_ERROR,
    EVENT_INTERRUPTED,
    HISTORY_PATH,
    INFO,
    INTERRUPT_PATH,
    OBJECT_INFO_PATH,
    PROMPT_PATH,
    QUEUE_PATH,
    STATUS_ERROR,
    STATUS_SUCCESS,
    SYSTEM_STATS_PATH,
    TIER_STUDIO,
    UPLOAD_IMAGE_PATH,
    VIEW_PATH,
    studio_workflow,
)
from .workflows import Workflow, from_file, glb_output, missing, shipped

__all__ = ["Client"]

#: /object_info lists every node with every model file: a big install answers several megabytes.
MAX_OBJECT_INFO_BYTES = 64 * 1024 * 1024


class Client(ServiceClient):
    """Talks to ComfyUI at the studio's address (``http://127.0.0.1:8188`` unless told otherwise)."""

    info = INFO

    # ------------------------------------------------------------------ the interface

    def submit(self, order: Order, *, idempotency_key: str) -> Task:
        """Check, upload (free, idempotent by name), then queue the one prompt (the submit)."""
        refused = refusal(INFO.capabilities, INFO.name, order)
        if refused is not None:
            raise InputError(refused)
        workflow = self._workflow(order.tier or INFO.capabilities.image_default)
        lacking = missing(workflow, self._object_info())
        if lacking:
            raise InputError(
                words.COMFYUI_MISSING,
                service=INFO.name,
                host=host_label(self.base_url),
                missing=", ".join(lacking),
            )
        prompt_id = _prompt_id(idempotency_key)
        uploaded = self._upload(order.image_path, prompt_id)
        body = {"prompt": workflow.with_image(uploaded), "prompt_id": prompt_id, "client_id": CLIENT_ID}
        task = self._submit(PROMPT_PATH, {"json": body}, idempotency_key, None)
        return Task(id=task.id, status=TaskStatus.QUEUED, handle=workflow.save_node)

    def get_task(self, task_id: str, *, handle: str = "", cancel: threading.Event | None = None) -> Task:
        """The history entry when the prompt has run; else its place in the queue (execution)."""
        task_id = _checked(task_id)
        entry = self._history(task_id, cancel)
        if entry is None:
            place = self._queue_place(task_id, cancel)
            if place is not None:
                return Task(id=task_id, status=place, raw_status=place.value)
            entry = self._history(task_id, cancel)  # it may have finished between the two asks
        if entry is None:
            # Neither queued, running nor in the history: deleted, or the server restarted (its
            # history lives in memory).
            return Task(
                id=task_id,
                status=TaskStatus.FAILED,
                raw_status="unknown",
                error=describe_error("ComfyUI no longer knows this job: was the server restarted?"),
            )
        return _task_from_history(task_id, entry, handle, self.base_url)

    def check_connection(self, *, cancel: threading.Event | None = None) -> Message:
        """``GET /system_stats`` (cheap), else the node list: either proves a ComfyUI server answers."""
        url = self.base_url + SYSTEM_STATS_PATH
        try:
            answer = self._json_call("connection check", lambda: self._http.get(url), cancel=cancel)
        except BadRequestError:  # 404 or 405: an older or slimmer server
            answer = {"system": self._object_info()}
        if not isinstance(answer, Mapping) or not isinstance(answer.get("system"), Mapping):
            raise ServiceError(200, "/system_stats answered no system object")
        return message(words.LOCAL_SERVICE_CONNECTED, service=INFO.name, host=host_label(self.base_url))

    def cancel_task(self, task_id: str, *, handle: str = "") -> None:
        """Drop the prompt if it waits (``POST /queue {"delete"}``), stop it if it runs
        (``POST /interrupt {"prompt_id"}``: server ``post_interrupt`` stops only that prompt)."""
        task_id = _checked(task_id)
        for path, body in ((QUEUE_PATH, {"delete": [task_id]}), (INTERRUPT_PATH, {"prompt_id": task_id})):
            self._post(path, body, f"cancel of task {task_id}")

    def _post(self, path: str, body: Mapping[str, Any], what: str) -> None:
        """One POST whose answer says nothing but its status (server: ``web.Response(status=200)``)."""
        url = self.base_url + path

        def once() -> None:
            self._exchange(lambda: self._http.send("POST", url, json=body))

        self._once(what, once, None)

    # ------------------------------------------------------------------ steps of a submit

    def _workflow(self, tier: str) -> Workflow:
        if tier == TIER_STUDIO:
            path = studio_workflow()
            if not path:
                raise InputError(words.SERVICE_TIER_UNKNOWN, service=INFO.name, tier=tier)
            return from_file(path)
        return shipped(tier)

    def _object_info(self) -> Mapping[str, Any]:
        """``GET /object_info``, read with a cap of its own (every node and model file is listed)."""
        url = self.base_url + OBJECT_INFO_PATH

        def once() -> Mapping[str, Any]:
            with guarding(Guard(self.deadline)):
                try:
                    with self._http.get(url) as resp:
                        if not 200 <= resp.status_code < 300:
                            raise self._error_from(resp)
                        body = self._http.read(resp, MAX_OBJECT_INFO_BYTES)
                except KilnError:
                    raise
                except Exception as exc:
                    raise self._http.transport_error(exc, url) from None
            answer = parse_json(body)
            if not isinstance(answer, Mapping):
                raise ValueError("/object_info is not a JSON object")
            return answer

        return self._once("node list", once, None)

    def _upload(self, path: str, prompt_id: str) -> str:
        """``POST /upload/image`` (overwrite: a retry sends the same name); the name to load."""
        try:
            data = read_image_file(Path(path))
        except (ValueError, TypeError):
            raise InputError(words.IMAGE_PATH_UNUSABLE) from None
        kind = image_kind(data[:16])
        assert kind is not None  # read_image_file guarantees it
        files = {"image": (f"kiln_{prompt_id}.{kind}", data, IMAGE_MIME[kind])}
        form = {"type": "input", "overwrite": "true"}
        url = self.base_url + UPLOAD_IMAGE_PATH
        answer = self._json_call("image upload", lambda: self._http.send("POST", url, files=files, data=form))
        name = answer.get("name") if isinstance(answer, Mapping) else None
        if not isinstance(name, str) or task_id_problem(name) is not None:
            raise ServiceError(200, "the upload answered no usable name")
        subfolder = answer.get("subfolder")
        return f"{subfolder}/{name}" if isinstance(subfolder, str) and subfolder.strip() else name

    # ------------------------------------------------------------------ following a prompt

    def _history(self, task_id: str, cancel: threading.Event | None) -> Mapping[str, Any] | None:
        url = f"{self.base_url}{HISTORY_PATH}/{url_segment(task_id)}"
        answer = self._json_call(f"poll of task {task_id}", lambda: self._http.get(url), cancel=cancel)
        entry = answer.get(task_id) if isinstance(answer, Mapping) else None
        return entry if isinstance(entry, Mapping) else None

    def _queue_place(self, task_id: str, cancel: threading.Event | None) -> TaskStatus | None:
        """Where the prompt waits; RUNNING where the server does not say (a ComfyUI without
        ``GET /queue``: Kiln's time limit then ends a prompt it has forgotten)."""
        url = self.base_url + QUEUE_PATH
        try:
            answer = self._json_call("queue", lambda: self._http.get(url), cancel=cancel)
        except BadRequestError:  # 404 or 405: no queue to read
            return TaskStatus.RUNNING
        if not isinstance(answer, Mapping):
            return TaskStatus.RUNNING
        for key, status in (("queue_running", TaskStatus.RUNNING), ("queue_pending", TaskStatus.QUEUED)):
            items = answer.get(key)
            for item in items if isinstance(items, list) else ():
                if isinstance(item, list) and len(item) > 1 and item[1] == task_id:
                    return status
        return None

    # ------------------------------------------------------------------ answers

    def _task_from_submit(self, data: object) -> Task:
        """``{"prompt_id", "number", "node_errors"}`` (server ``post_prompt``)."""
        if not isinstance(data, Mapping) or not isinstance(data.get("prompt_id"), str):
            raise ValueError("the answer has no prompt_id")
        return Task.from_json({"id": data["prompt_id"], "status": "queued"})

    def _error_from(self, resp: requests.Response, *, task_id: str | None = None) -> KilnError:
        """A 400 from ``/prompt`` is a refused workflow (execution ``validate_prompt``); others as usual."""
        body = self._http.read(resp, MAX_ERROR_BYTES, truncate=True)
        try:
            answer = parse_json(body)
        except ValueError:
            answer = None
        error = answer.get("error") if isinstance(answer, Mapping) else None
        if resp.status_code == 400 and isinstance(error, Mapping):
            said = describe_error({"message": error.get("message"), "details": error.get("details")})
            return BadRequestError(400, said, words.COMFYUI_WORKFLOW_REFUSED, service=INFO.name)
        return error_for(resp.status_code, resp.headers, body, self._key, task_id=task_id)


def _task_from_history(task_id: str, entry: Mapping[str, Any], save_node: str, base_url: str) -> Task:
    """A finished prompt: its GLB through ``/view``, or why it stopped (execution ``task_done``)."""
    status = entry.get("status")
    word = status.get("status_str") if isinstance(status, Mapping) else None
    messages = status.get("messages") if isinstance(status, Mapping) else None
    events = {
        item[0]: item[1]
        for item in (messages if isinstance(messages, list) else ())
        if isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)
    }
    if word == STATUS_ERROR or EVENT_ERROR in events or EVENT_INTERRUPTED in events:
        if EVENT_INTERRUPTED in events:
            reason = "the job was interrupted on ComfyUI"
        else:
            said = events.get(EVENT_ERROR)
            said = said if isinstance(said, Mapping) else {}
            node, what = said.get("node_type", "?"), said.get("exception_message", "")
            reason = f"ComfyUI stopped at node {node}: {what}"
        failed = describe_error(reason)
        return Task(id=task_id, status=TaskStatus.FAILED, raw_status=str(word or "error"), error=failed)
    found = glb_output(entry.get("outputs"), save_node)
    if word != STATUS_SUCCESS and found is None:
        return Task(id=task_id, status=TaskStatus.RUNNING, raw_status=str(word or "running"))
    if found is None:
        return Task(
            id=task_id,
            status=TaskStatus.FAILED,
            raw_status=str(word),
            error=describe_error("the workflow ran but its save node wrote no GLB"),
        )
    query = urlencode(
        {
            "filename": str(found.get("filename", "")),
            "subfolder": str(found.get("subfolder", "") or ""),
            "type": str(found.get("type", "output") or "output"),
        }
    )
    result = Result(mesh_url=f"{base_url}{VIEW_PATH}?{query}", format="glb")
    return Task(
        id=task_id, status=TaskStatus.COMPLETED, raw_status=STATUS_SUCCESS, progress=100.0, result=result
    )


def _prompt_id(idempotency_key: str) -> str:
    """The job's idempotency key as the UUID ComfyUI keeps as the prompt's id."""
    try:
        return str(uuid.UUID(idempotency_key))
    except ValueError:
        return str(uuid.uuid5(uuid.NAMESPACE_URL, f"kiln:{idempotency_key}"))


def _checked(task_id: str) -> str:
    problem = task_id_problem(task_id)
    if problem is not None:
        raise InputError(words.TASK_ID_UNUSABLE, details=problem, task=shown_task_id(task_id))
    return str(task_id)
