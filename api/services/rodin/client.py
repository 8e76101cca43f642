"""The wire of Hyper3D Rodin (API v2): a generation, its status, its files, the balance.

The rules every service's client keeps (deadlines, one attempt per call, the key kept home, only
Kiln errors leave) are :class:`api.http.client.ServiceClient`'s; this module adds Rodin's paths
and fields, as Rodin's API Specification pages (cited in its package) give them (each constant in
:mod:`api.services.rodin` names its page).

Rodin's own shape: a generation answers a task ``uuid`` and ``jobs.subscription_key``; the status is
asked by the subscription key (kept as ``Task.handle``) and lists one state per job; the files are
asked by the uuid once every job is Done. Download links expire (the skill guide says ten minutes),
so :meth:`Client.get_task` asks for them in the same call that sees Done, and the engine downloads
at once. Errors come as HTTP statuses and as an ``error`` field inside a 2xx answer; both end in
the same Kiln errors.
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import urlsplit

import requests

from ...checks.glb import IMAGE_MIME, image_kind
from ...checks.inputs import check_prompt, read_image_file
from ...errors import (
    AuthError,
    BadRequestError,
    CreditsError,
    InputError,
    KilnError,
    NotFoundError,
    RateLimitError,
    ServiceError,
    ServiceMovedError,
)
from ...http.answers import error_for, parse_json, parse_retry_after
from ...http.client import MAX_ERROR_BYTES, ServiceClient
from ...http.ids import check_task_id, shown_task_id, task_id_problem
from ...http.models import Result, Task, TaskStatus, describe_error, plain_reason
from ...http.origin import loggable
from ...http.redact import redact
from ...words import Message, message
from ...words import catalogue as words
from ..order import Order, given_views, refusal
from . import (
    AUTH_WORDS,
    BALANCE_PATH,
    CONDITION_CONCAT,
    CONTENT_WORDS,
    CREDITS_WORDS,
    DOWNLOAD_PATH,
    ERROR_NONE,
    FIELD_CONDITION_MODE,
    FIELD_FORMAT,
    FIELD_IMAGES,
    FIELD_MATERIAL,
    FIELD_MESH_MODE,
    FIELD_ORIGINAL_ALPHA,
    FIELD_POLYGONS,
    FIELD_PROMPT,
    FIELD_TIER,
    GENERATE_PATH,
    GEOMETRY_FORMAT,
    INFO,
    MATERIAL_PBR,
    MATERIAL_SHADED,
    MESH_QUAD,
    MESH_RAW,
    NOT_FOUND_WORDS,
    POLYGONS,
    RATE_WORDS,
    RETIRED_WORDS,
    STATE_CANCELED,
    STATE_DONE,
    STATE_FAILED,
    STATE_GENERATING,
    STATE_WAITING,
    STATUS_PATH,
    TIERS_25,
)

__all__ = ["Client"]

logger = logging.getLogger(__name__)

#: At most this many jobs of one task, and files of one download list, are read.
MAX_JOBS = 64
MAX_FILES = 256
MAX_URL_CHARS = 8192
_ACCEPT_JSON = {"Accept": "application/json"}
_FAILED_STATES = frozenset({STATE_FAILED.lower(), STATE_CANCELED.lower(), "cancelled"})
_PREVIEW_SUFFIXES = (".webp", ".png", ".jpg", ".jpeg")


class Client(ServiceClient):
    """Talks to Hyper3D Rodin at ``base_url`` (its API origin, or a stand-in's)."""

    info = INFO

    # ------------------------------------------------------------------ the one paid call

    def submit(self, order: Order, *, idempotency_key: str) -> Task:
        """POST /api/v2/rodin: a text job (prompt) or an image job (up to five views of one object).

        Rodin documents no idempotency: the key is sent anyway (harmless), and a submit whose
        answer is lost is "outcome unknown", never sent again by this client.
        """
        refused = refusal(INFO.capabilities, INFO.name, order)
        if refused is not None:
            raise InputError(refused)
        images, alpha = self._images(order)
        fields = self._fields(order)
        if alpha:  # keep the artist's cut-out rather than Rodin's own background removal
            fields.append((FIELD_ORIGINAL_ALPHA, "true"))
        # Every field goes as a multipart part (the page: "All requests to this endpoint must be sent
        # using multipart/form-data"), so a text job without files is multipart too.
        parts: list[tuple[str, tuple[str | None, Any] | tuple[str, bytes, str]]] = [
            (name, (None, value)) for name, value in fields
        ]
        parts += images
        return self._submit(GENERATE_PATH, {"files": parts}, idempotency_key, None)

    def _fields(self, order: Order) -> list[tuple[str, str]]:
        """The form's text fields, each under the name the Gen-2 / Rodin Generation page gives it."""
        fields: list[tuple[str, str]] = []
        # Required for a text job; optional with images ("an AI-generated prompt … will be used").
        if order.kind == "text" or order.prompt.strip():
            fields.append((FIELD_PROMPT, check_prompt(order.prompt)))
        tier = order.tier or INFO.capabilities.default_tier(order.kind)
        fields.append((FIELD_TIER, tier))
        fields.append((FIELD_FORMAT, GEOMETRY_FORMAT))
        options = order.options
        if "pbr" in options:
            fields.append((FIELD_MATERIAL, MATERIAL_PBR if options["pbr"] else MATERIAL_SHADED))
        if "quad" in options:
            fields.append((FIELD_MESH_MODE, MESH_QUAD if options["quad"] else MESH_RAW))
        polygons = _polygons(options.get("polygons", 0))
        if polygons:
            fields.append((FIELD_POLYGONS, str(polygons)))
        # Gen-2.5 has no condition_mode (its page): its images are views of one object already.
        if order.kind == "image" and given_views(order.views) and tier not in TIERS_25:
            fields.append((FIELD_CONDITION_MODE, CONDITION_CONCAT))
        return fields

    def _images(self, order: Order) -> tuple[list[tuple[str, tuple[str, bytes, str]]], bool]:
        """The front image, then the views, read and checked before anything is sent; and whether a
        PNG among them has its own transparency."""
        if order.kind != "image":
            return [], False
        # Rodin reads every image after the first as another view of the object: a missing one is left out.
        paths = [order.image_path, *given_views(order.views)]
        if not paths[0]:
            raise InputError(words.ONE_IMAGE_NEEDED)
        parts: list[tuple[str, tuple[str, bytes, str]]] = []
        alpha = False
        for index, path in enumerate(paths):
            try:
                data = read_image_file(Path(path))
            except (ValueError, TypeError):  # a NUL in the path, or not a path at all
                raise InputError(words.IMAGE_PATH_UNUSABLE) from None
            kind = image_kind(data[:16])
            assert kind is not None  # read_image_file guarantees it
            alpha = alpha or _png_has_alpha(data)
            # Kiln's own names: the artist's file names stay on their machine.
            name = "front" if index == 0 else f"view{index}"
            parts.append((FIELD_IMAGES, (f"{name}.{kind}", data, IMAGE_MIME[kind])))
        return parts, alpha

    def _task_from_submit(self, data: object) -> Task:
        """The answer's ``uuid`` and ``jobs.subscription_key`` (Gen-2 Generation, "Response")."""
        if not isinstance(data, Mapping):
            raise ValueError("the answer is not a JSON object")
        error = self._error_in(data, status=201)
        if error is not None:
            raise error
        if "uuid" not in data:
            raise ValueError("the answer has no uuid")
        task_id = check_task_id(data["uuid"])
        jobs = data.get("jobs")
        key = jobs.get("subscription_key") if isinstance(jobs, Mapping) else None
        if not isinstance(key, str) or task_id_problem(key) is not None or self._key in key:
            raise ValueError("the answer has no usable subscription key")
        return Task(id=task_id, status=TaskStatus.QUEUED, raw_status="", handle=key)

    # ------------------------------------------------------------------ following a task

    def get_task(self, task_id: str, *, handle: str = "", cancel: threading.Event | None = None) -> Task:
        """POST /api/v2/status with the subscription key; when every job is Done, the files too.

        Check Status: the task is done only when all its jobs are Done, failed when any failed
        (or was cancelled); an unknown word keeps it running. Download Results is asked at once
        when Done, so the task comes back COMPLETED with its links (which expire). A task id alone
        (Add Job by ID: no subscription key) is asked of Download Results only: a GLB is done.
        """
        problem = task_id_problem(task_id)
        if problem is not None:
            raise InputError(words.TASK_ID_UNUSABLE, details=problem, task=shown_task_id(task_id))
        task_id = str(task_id)
        if handle == "":  # no GLB yet: still running, asked again at the next poll
            waiting = Task(task_id, TaskStatus.RUNNING, "", progress=0.0)
            return self._with_files(waiting, cancel, not_yet=waiting).redacted(self._key)
        if not isinstance(handle, str) or task_id_problem(handle) is not None:
            raise InputError(words.RODIN_NO_SUBSCRIPTION_KEY, details=f"task {task_id}", service=INFO.name)
        url = self.base_url + STATUS_PATH
        body = {"subscription_key": handle}
        data = self._json_call(
            f"status of task {task_id}",
            lambda: self._http.send("POST", url, json=body, headers=_ACCEPT_JSON),
            task_id=task_id,
            cancel=cancel,
        )
        task = self._task_from_status(task_id, handle, data)
        if task.status is TaskStatus.COMPLETED:
            task = self._with_files(task, cancel)
        return task.redacted(self._key)

    def _task_from_status(self, task_id: str, handle: str, data: object) -> Task:
        if not isinstance(data, Mapping):
            raise ServiceError(201, "the status answer is not a JSON object")
        error = self._error_in(data, status=201, task_id=task_id)
        if error is not None:
            raise error
        jobs = data.get("jobs")
        states = []
        failed: list[str] = []
        said: str | None = None
        for job in jobs[:MAX_JOBS] if isinstance(jobs, list) else []:
            if not isinstance(job, Mapping):
                continue
            word = job.get("status")
            word = word.strip() if isinstance(word, str) and len(word) <= 64 else ""
            states.append(word)
            if word.lower() in _FAILED_STATES:
                reason = describe_error({k: job.get(k) for k in ("message", "error", "reason") if job.get(k)})
                said = said or plain_reason(job.get("message") or job.get("reason"))
                failed.append(f"job {_short(job.get('uuid'))} {word}: {reason}")
        lowered = [state.lower() for state in states]
        if failed:
            reason = "; ".join(failed)[:400]
            return Task(task_id, TaskStatus.FAILED, STATE_FAILED, error=reason, said=said, handle=handle)
        done = lowered.count(STATE_DONE.lower())
        if states and done == len(states):
            return Task(task_id, TaskStatus.COMPLETED, STATE_DONE, progress=100.0, handle=handle)
        generating = lowered.count(STATE_GENERATING.lower())
        # No job yet (an empty or missing list), or all Waiting: queued. Anything else: running.
        if not states or lowered.count(STATE_WAITING.lower()) == len(states):
            raw = STATE_WAITING if states else ""
            return Task(task_id, TaskStatus.QUEUED, raw, progress=0.0, handle=handle)
        progress = min(99.0, 100.0 * (done + 0.5 * generating) / len(states))
        raw = STATE_GENERATING if generating else next(s for s in states if s.lower() != STATE_DONE.lower())
        return Task(task_id, TaskStatus.RUNNING, raw, progress=progress, handle=handle)

    def _with_files(self, task: Task, cancel: threading.Event | None, not_yet: Task | None = None) -> Task:
        """Download Results: the GLB (PBR first) and the preview; no GLB yet keeps the task running
        (``not_yet``, or Done at 99 %).

        The page warns that an early call "may return … an incomplete list of files", so a list
        without a GLB is read as "not quite done" and asked again at the next poll.
        """
        url = self.base_url + DOWNLOAD_PATH
        body = {"task_uuid": task.id}
        data = self._json_call(
            f"file list of task {task.id}",
            lambda: self._http.send("POST", url, json=body, headers=_ACCEPT_JSON),
            task_id=task.id,
            cancel=cancel,
        )
        if not isinstance(data, Mapping):
            raise ServiceError(201, "the file list is not a JSON object")
        error = self._error_in(data, status=201, task_id=task.id)
        if error is not None:
            raise error
        files = _files(data.get("list"))
        mesh = _pick(files, (".glb",), ("pbr", "textured", "shaded", ""))
        if mesh is None:
            return not_yet or Task(task.id, TaskStatus.RUNNING, STATE_DONE, progress=99.0, handle=task.handle)
        preview = _pick(files, _PREVIEW_SUFFIXES, ("preview", ""))
        result = Result(mesh_url=mesh, preview_image_url=preview, format=GEOMETRY_FORMAT)
        return Task(
            task.id, TaskStatus.COMPLETED, STATE_DONE, progress=100.0, result=result, handle=task.handle
        )

    # ------------------------------------------------------------------ the account

    def balance(self, *, cancel: threading.Event | None = None) -> int | None:
        """Check Balance, in whole credits (rounded down: Rodin prices are in halves)."""
        value = self._balance_value(cancel)
        return None if value is None else math.floor(value)

    def check_connection(self, *, cancel: threading.Event | None = None) -> Message:
        """One free call (Check Balance: "We do not charge any additional credits"): key and balance."""
        value = self._balance_value(cancel)
        if value is None:
            return message(words.CONNECTED_TO_SERVICE, service=INFO.name)
        whole = math.floor(value)
        amount = f"{whole:,}" if value == whole else f"{value:,.2f}".rstrip("0")
        return message(words.CONNECTED_WITH_BALANCE, n=whole, amount=amount, service=INFO.name)

    def _balance_value(self, cancel: threading.Event | None) -> float | None:
        url = self.base_url + BALANCE_PATH
        data = self._json_call("balance", lambda: self._http.get(url, headers=_ACCEPT_JSON), cancel=cancel)
        if not isinstance(data, Mapping):
            raise ServiceError(201, "the balance answer is not a JSON object")
        error = self._error_in(data, status=201)
        if error is not None:
            raise error
        value = data.get("balance")
        # The page says int; a number in text or with a fraction is read too, anything else is "not told".
        if isinstance(value, str) and len(value) <= 32:
            try:
                value = float(value.strip())
            except ValueError:
                return None
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            return None
        return float(max(-(2**31), min(2**31, value)))

    # ------------------------------------------------------------------ errors

    def _error_from(self, resp: requests.Response, *, task_id: str | None = None) -> KilnError:
        """A non-2xx answer: Rodin's ``error`` word decides where it says more than the status."""
        body = self._http.read(resp, MAX_ERROR_BYTES, truncate=True)
        general = error_for(
            resp.status_code,
            resp.headers,
            body,
            self._key,
            task_id=task_id,
            moved=self._http.paths_documented,
        )
        try:
            data = parse_json(body)
        except ValueError:
            data = None
        retry_after = parse_retry_after(resp.headers.get("Retry-After"))
        said = None
        if isinstance(data, Mapping):
            said = self._error_in(data, status=resp.status_code, task_id=task_id, retry_after=retry_after)
        # Rodin's words win where they name a kind the status alone does not (credits, a limit, a
        # key, content, an unknown task); a general refusal or a server error keeps the status's.
        if isinstance(general, ServiceMovedError) and type(said) is NotFoundError:
            said = None  # a documented path that is gone: its "not found" is about Kiln's version
        error = said if said is not None and type(said) not in (BadRequestError, ServiceError) else general
        logger.debug("HTTP %d from %s: %s", resp.status_code, loggable(resp.url or ""), error)
        return _named(error)

    def _error_in(
        self,
        data: Mapping[str, Any],
        *,
        status: int,
        task_id: str | None = None,
        retry_after: float | None = None,
    ) -> KilnError | None:
        """The Kiln error an answer's ``error`` field names, or None when it says none ("OK", absent)."""
        code = data.get("error")
        if code is None or (isinstance(code, str) and code.strip().upper() in ERROR_NONE):
            return None
        detail = redact(describe_error({"message": data.get("message"), "code": code}), self._key)
        text = f"{code if isinstance(code, str | int) else ''} {data.get('message') or ''}"[:2000].lower()
        error: KilnError
        if any(word in text for word in CREDITS_WORDS):
            error = CreditsError(detail)
        elif any(word in text for word in RATE_WORDS):
            error = RateLimitError(retry_after, detail)
        elif any(word in text for word in RETIRED_WORDS):
            error = ServiceMovedError(status, detail)
        elif any(word in text for word in CONTENT_WORDS):
            error = BadRequestError(status, detail, words.RODIN_CONTENT_REFUSED, service=INFO.name)
        elif any(word in text for word in AUTH_WORDS):
            error = AuthError(403 if status == 403 else 401, detail)
        elif any(word in text for word in NOT_FOUND_WORDS):
            error = NotFoundError(detail, task_id=task_id)
        elif status >= 500:
            error = ServiceError(status, detail)
        else:
            error = BadRequestError(status, detail)
        return _named(error)


# ------------------------------------------------------------------ helpers


def _named(error: KilnError) -> KilnError:
    """An error about the account says which service's account: Rodin's own words for credits,
    ``{service}: …`` before the general sentence for a key or a limit."""
    if isinstance(error, CreditsError):
        return error.reworded(words.RODIN_OUT_OF_CREDITS, service=INFO.name)
    if isinstance(error, AuthError | RateLimitError | ServiceMovedError):
        return error.named(INFO.name)
    return error


def _polygons(value: object) -> int:
    """The polygon budget as a whole number in Rodin's range (0: the service's default)."""
    low, high = POLYGONS
    whole = isinstance(value, int) and not isinstance(value, bool)
    if not whole or (value != 0 and not low <= value <= high):  # type: ignore[operator]
        shown = f"{value:,}" if whole else repr(value)[:40]
        entry = words.RODIN_POLYGONS_OUT_OF_RANGE
        raise InputError(entry, service=INFO.name, low=low, high=high, value=shown)
    return int(value)  # type: ignore[call-overload]


def _png_has_alpha(data: bytes) -> bool:
    """A PNG whose colour type carries alpha (4: grey + alpha, 6: RGBA), read from its IHDR chunk."""
    return data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 25 and data[25] in (4, 6)


def _short(value: object) -> str:
    return shown_task_id(value)[:80] if isinstance(value, str | int) else "?"


def _files(value: object) -> list[tuple[str, str]]:
    """(lower-case name, url) of each usable entry of a download list; odd entries are skipped."""
    files = []
    for item in value[:MAX_FILES] if isinstance(value, list) else []:
        if not isinstance(item, Mapping):
            continue
        url, name = item.get("url"), item.get("name")
        if not isinstance(url, str) or not url.strip() or len(url) > MAX_URL_CHARS:
            continue
        if not isinstance(name, str) or len(name) > 1000:
            name = ""
        if not name:  # a list without names: the file name in the link's path
            name = PurePosixPath(urlsplit(url.strip()).path).name
        files.append((name.strip().lower(), url.strip()))
    return files


def _pick(files: list[tuple[str, str]], suffixes: tuple[str, ...], preferred: tuple[str, ...]) -> str | None:
    """The first file with one of ``suffixes`` whose name holds the earliest of ``preferred``."""
    fitting = [(name, url) for name, url in files if name.endswith(suffixes)]
    for word in preferred:
        for name, url in fitting:
            if word in name:
                return url
    return None
