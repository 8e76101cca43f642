"""The client for the 3D generation service (spec: ``service-interface.md``): the service calls.

Rules this module keeps, and why (the transport rules sit beside it in :mod:`api.service`):

* **Deadlines always**: each API call has a total deadline (connection plus whole answer) and
  reads at most ``max_answer_bytes``; a download is cut when its throughput stays below a floor.
* **One attempt per call; never charged twice.** Whether and when to try again is the retry
  policy's (:mod:`api.service.retrying`, handed in as ``retry``; the job engine is what tries again).
  A submit carries an ``Idempotency-Key`` (the caller's, reused when it sends again). When the
  policy says a failed submit may have made a task — anything after the request left other than
  an outright refusal or a 4xx, including a 2xx answer Kiln cannot read — the client raises
  :class:`OutcomeUnknownError` with the key and any task id it could read.
* **The key goes only to the service**, judged per hop on the URL urllib3 will connect to; it
  never appears in logs, exception text or ``repr``, and service text is redacted of it.
* **Service strings never become anything but data**: task ids are checked by :mod:`api.service.ids`,
  addresses by :mod:`api.service.origin`, answers parsed by :mod:`api.service.answers`.
* **Only Kiln errors leave**: every public call raises a :class:`KilnError` with a sentence, or
  returns; no RecursionError, OverflowError, UnicodeError or OSError from odd service data escapes.
* **Thread safety**: one Client may be shared by worker threads (see :class:`.transport.Transport`).
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
import tomllib
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urljoin, urlsplit

import requests

from ..checks.glb import IMAGE_MIME, image_kind
from ..checks.inputs import (
    check_image_bytes,
    check_prompt,
    check_web_url,
    problem_words,
    read_image_file,
    shown_url,
)
from ..errors import (
    CancelledError,
    InputError,
    KilnError,
    NetworkError,
    NotFoundError,
    OutcomeUnknownError,
    ServiceError,
    UnsafeAddressError,
)
from ..words import Message, message
from ..words import catalogue as words
from .answers import parse_json, parse_retry_after
from .download import stream_to_file
from .guard import Guard, guarding
from .ids import shown_task_id, task_id_problem, url_segment
from .models import Task
from .origin import host_label, loggable
from .redact import redact
from .retrying import DEFAULT_POLICY, RetryPolicy, SubmitVerdict
from .transport import MAX_REDIRECTS, Transport

__all__ = ["MAX_REDIRECTS", "Client", "parse_retry_after"]

logger = logging.getLogger(__name__)

TEXT_TO_3D_PATH = "/v1/3d/text-to-3d"
IMAGE_TO_3D_PATH = "/v1/3d/image-to-3d"
TASKS_PATH = "/v1/3d/tasks/"

IMAGE_RESOLUTIONS = (1024, 1536)
MAX_DOWNLOAD_BYTES = 512 * 1024 * 1024
MAX_ANSWER_BYTES = 4 * 1024 * 1024  # a task is a few hundred bytes; 4 MB leaves room for verbose services
MAX_ERROR_BYTES = 64 * 1024
DEADLINE = 60.0  # seconds for one API exchange, connection and whole answer
DOWNLOAD_FLOOR = (4096.0, 30.0)  # a download slower than 4 KB/s over 30 s is cut
_SALVAGE_ID = re.compile(rb'"id"\s*:\s*("(?:[^"\\\x00-\x1f]|\\.){1,2048}")')

ProgressCallback = Callable[[int, int | None], object]
T = TypeVar("T")


def kiln_version() -> str:
    """The add-on version from the manifest next to this package (shipped in the zip)."""
    try:
        with (Path(__file__).resolve().parents[2] / "blender_manifest.toml").open("rb") as f:
            return str(tomllib.load(f).get("version", "unknown"))
    except (OSError, tomllib.TOMLDecodeError):
        return "unknown"


DEFAULT_USER_AGENT = f"Kiln/{kiln_version()} python-requests/{requests.__version__}"


class Client:
    """Talks to one service (base URL + key). See the module docstring for the rules it keeps.

    ``retry`` is the retry policy the client asks (the engine hands in its own); ``cancel_event``
    (or a per-call ``cancel`` event) ends a call with :class:`CancelledError`. ``timeout`` is
    (connect, per-read) seconds; ``deadline`` bounds a whole API exchange; ``download_floor`` is
    (bytes per second, window seconds).
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: tuple[float, float] = (5.0, 30.0),
        deadline: float = DEADLINE,
        download_floor: tuple[float, float] = DOWNLOAD_FLOOR,
        max_answer_bytes: int = MAX_ANSWER_BYTES,
        user_agent: str = DEFAULT_USER_AGENT,
        retry: RetryPolicy = DEFAULT_POLICY,
        cancel_event: threading.Event | None = None,
    ) -> None:
        base = check_web_url(base_url, "service URL")
        parts = urlsplit(base)
        if parts.query or parts.fragment:
            raise InputError(words.SERVICE_ADDRESS_HAS_QUERY, url=shown_url(base))
        if not isinstance(api_key, str) or not api_key.strip():
            raise InputError(words.API_KEY_MISSING)
        api_key = api_key.strip()
        if not re.fullmatch(r"[\x21-\x7e]+", api_key):
            # Checked here because requests would quote the bad header value, key and all, in its error.
            raise InputError(words.API_KEY_MALFORMED)
        self.base_url = base.rstrip("/")
        self.timeout = timeout
        self.deadline = deadline
        self.download_floor = download_floor
        self.max_answer_bytes = max_answer_bytes
        self.user_agent = user_agent
        self._key = api_key
        self._http = Transport(self.base_url, api_key, timeout=timeout, user_agent=user_agent)
        self.retry = retry
        self._cancel_event = cancel_event

    def __repr__(self) -> str:
        return f"Client(base_url={self.base_url!r}, api_key='***')"

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Close every thread's session; later calls raise CancelledError. Safe to call twice."""
        self._http.close()

    # ------------------------------------------------------------------ public calls

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

    def get_task(self, task_id: str, *, cancel: threading.Event | None = None) -> Task:
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

    def download(
        self,
        url: str,
        dest: str | os.PathLike[str],
        *,
        progress: ProgressCallback | None = None,
        max_bytes: int = MAX_DOWNLOAD_BYTES,
        check: Callable[[Path], object] | None = None,
        cancel: threading.Event | None = None,
    ) -> Path:
        """Stream ``url`` to ``dest`` via ``<dest>.part``; fsync, optional ``check(part)``, atomic rename.

        ``progress(done, total)`` gets the bytes so far and Content-Length (None when unknown).
        ``check`` (e.g. ``glb.check_glb``) runs before the rename, so ``dest`` only ever holds a
        checked file. A relative URL is resolved against the base URL. The key is sent only if the
        URL (or a redirect hop) is on the service's own origin. The download is cut when it stays
        below ``download_floor``.
        """
        url = self._download_url(url)
        dest = Path(dest)

        def once() -> Path:
            with guarding(Guard(None, self.download_floor, cancel=cancel)):
                return stream_to_file(
                    self._http, url, dest, progress, max_bytes, check, lambda: self._check_cancel(cancel)
                )

        return self._once(f"download from {host_label(url)}", once, cancel)

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

    # ------------------------------------------------------------------ plumbing

    def _check_cancel(self, cancel: threading.Event | None) -> None:
        if any(e is not None and e.is_set() for e in (self._cancel_event, cancel)):
            raise CancelledError()

    def _once(self, what: str, once: Callable[[], T], cancel: threading.Event | None) -> T:
        """One attempt of an idempotent call; anything that is not a Kiln error becomes one."""
        self._check_cancel(cancel)
        try:
            return once()
        except KilnError:
            raise
        except Exception as exc:
            logger.debug("Unexpected %s during %s", type(exc).__name__, what)
            raise ServiceError(None, f"Kiln could not handle the {what}: {type(exc).__name__}") from None

    def _exchange(
        self,
        send: Callable[[], requests.Response],
        *,
        task_id: str | None = None,
        cancel: threading.Event | None = None,
    ) -> tuple[int, bytes]:
        """One API exchange under the total deadline: (status, body) of a 2xx, else the Kiln error.

        ``cancel`` cuts it in flight (a poll whose job ran out of time); submits never pass one:
        a submit cut after sending would leave its outcome unknown.
        """
        with guarding(Guard(self.deadline, cancel=cancel)):
            try:
                with send() as resp:
                    if not 200 <= resp.status_code < 300:
                        raise self._error_from(resp, task_id=task_id)
                    return resp.status_code, self._http.read(resp, self.max_answer_bytes)
            except KilnError:
                raise
            except Exception as exc:
                raise self._http.transport_error(exc, self.base_url) from None

    def _error_from(self, resp: requests.Response, *, task_id: str | None = None) -> KilnError:
        return self._http.error_for(resp, task_id=task_id)

    def _download_url(self, url: object) -> str:
        if not isinstance(url, str) or not url.strip():
            raise UnsafeAddressError(what="download address", problem="it is empty")
        url = url.strip()
        if not urlsplit(url).scheme:  # the spec says "URL"; a relative one is taken relative to the service
            url = urljoin(self.base_url + "/", url)
        problem = self._http.problem(url)
        if problem is not None:
            raise UnsafeAddressError(what="download address", problem=problem_words(problem, loggable(url)))
        return url

    def _submit(
        self,
        path: str,
        payload: dict[str, Any],
        idempotency_key: str | None,
        cancel: threading.Event | None,
    ) -> Task:
        """One POST; a failure the retry policy says may have made a task is "outcome unknown"."""
        key = idempotency_key or str(uuid.uuid4())
        url = self.base_url + path
        headers = {"Idempotency-Key": key, "Accept": "application/json"}
        self._check_cancel(cancel)
        try:
            status, body = self._exchange(lambda: self._http.send("POST", url, headers=headers, **payload))
        except KilnError as error:
            if self.retry.submit_verdict(error) is not SubmitVerdict.MAY_HAVE_MADE_A_TASK:
                raise
            raise OutcomeUnknownError(key, _unknown_reason(error), status=_status(error)) from error
        return self._submitted_task(key, status, body)

    def _submitted_task(self, key: str, status: int, body: bytes) -> Task:
        """The task in a submit's 2xx answer; any answer Kiln cannot use is "outcome unknown"."""
        try:
            data = parse_json(body)
        except ValueError as exc:
            raise OutcomeUnknownError(
                key, f"its answer could not be read: {exc}", status=status, task_id=self._salvaged_id(body)
            ) from None
        try:
            task = Task.from_json(data)
            if self._key in task.id:
                raise ValueError("the task id repeats the API key")
            return task.redacted(self._key)
        except Exception as exc:
            reason = str(exc) if isinstance(exc, ValueError) else type(exc).__name__
            named = data.get("id") if isinstance(data, Mapping) else None
            usable = named is not None and task_id_problem(named) is None and self._key not in str(named)
            raise OutcomeUnknownError(
                key,
                f"its answer could not be used: {reason}",
                status=status,
                task_id=str(named) if usable else None,
                refused_id=self._shown_id(named) if named is not None and not usable else None,
            ) from None

    def _salvaged_id(self, body: bytes) -> str | None:
        """A well-formed ``"id": "…"`` from an answer that does not parse as a whole, or None."""
        match = _SALVAGE_ID.search(body[:MAX_ERROR_BYTES])
        if match is None:
            return None
        try:
            task_id = json.loads(match.group(1))
        except ValueError:
            return None
        return task_id if task_id_problem(task_id) is None and self._key not in task_id else None

    def _shown_id(self, value: object) -> str:
        """A refused id as the artist may see it: key masked, escaped (:func:`.ids.shown_task_id`)."""
        return shown_task_id(redact(value, self._key) if isinstance(value, str) else value)


def _status(error: KilnError) -> int | None:
    return error.status if isinstance(error, ServiceError) else None


def _unknown_reason(error: KilnError) -> str:
    """Why a submit's outcome is unknown, in the words ``OutcomeUnknownError`` puts after "because"."""
    if isinstance(error, NetworkError):
        return error.reason
    status = _status(error)
    if status is None:
        return "its answer could not be used"
    return "its answer was too large to read" if status < 300 else f"it answered HTTP {status}"
