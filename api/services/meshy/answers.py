"""Meshy's answers about a task read as Kiln's :class:`Task`: its state, progress, files and failure.

The task object's fields (docs.meshy.ai/api/text-to-3d, "The Text to 3D Task Object"; the same on
every endpoint): ``status``, ``progress`` (0 to 100), ``model_urls.glb``, ``thumbnail_url``,
``face_count``, ``task_error.message``. Every one is read tolerantly: a wrong type or a missing field
is "not said", never an error. The states are Meshy's MCP server's (``dist/constants.js``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...http.models import (
    Result,
    Task,
    TaskStatus,
    describe_error,
    finite_number,
    plain_reason,
    task_progress,
)
from . import DONE_STATES, FAILED_STATES, QUEUED_STATES, RUNNING_STATES, STATE_CANCELED

_MAX_STATE_CHARS = 64
_MAX_URL_CHARS = 8192


def task_from(task_id: str, handle: str, data: Mapping[str, Any]) -> Task:
    """A Meshy task object as Kiln's :class:`Task`; the id asked for is kept, not the answer's."""
    raw = _text(data.get("status"), _MAX_STATE_CHARS) or ""
    word = raw.upper()
    if word in QUEUED_STATES:
        status = TaskStatus.QUEUED
    elif word in RUNNING_STATES:
        status = TaskStatus.RUNNING
    elif word in DONE_STATES:
        status = TaskStatus.COMPLETED
    elif word in FAILED_STATES:
        status = TaskStatus.FAILED
    else:
        # Not on Meshy's pages: the general synonyms, and anything unknown keeps the task running.
        status = TaskStatus.normalise(raw)
    progress = task_progress(data.get("progress"), status)
    urls = data.get("model_urls")
    mesh_url = _text(urls.get("glb"), _MAX_URL_CHARS) if isinstance(urls, Mapping) else None
    preview_url = _text(data.get("thumbnail_url"), _MAX_URL_CHARS)
    faces = finite_number(data.get("face_count"))
    result = None
    if mesh_url or preview_url:
        result = Result(
            mesh_url=mesh_url,
            preview_image_url=preview_url,
            format="glb" if mesh_url else None,
            triangles=int(faces) if faces is not None and 0 <= faces < 2**31 else None,
        )
    error = None
    said = None
    if status is TaskStatus.FAILED:
        error = _failure(data.get("task_error"), word)
        said = plain_reason(data.get("task_error"))
    return Task(
        id=task_id,
        status=status,
        raw_status=raw,
        progress=progress,
        result=result,
        error=error,
        said=said,
        handle=handle,
    )


def _failure(task_error: object, word: str) -> str:
    """Why a task ended without a mesh, in the service's words (``task_error.message``)."""
    said = task_error.get("message") if isinstance(task_error, Mapping) else task_error
    if said not in (None, "", {}, []):
        return describe_error(task_error if isinstance(task_error, Mapping) else said)
    if word == STATE_CANCELED:
        return "The task was cancelled on Meshy."
    return describe_error(None)


def with_handle(task: Task, handle: str) -> Task:
    return Task(id=task.id, status=task.status, raw_status=task.raw_status, handle=handle)


def _text(value: object, limit: int) -> str | None:
    if not isinstance(value, str) or len(value) > limit:
        return None
    return value.strip() or None
