"""The plumbing under every service's client: one exchange, the key kept home, one attempt per call.

Rules this module keeps for every service, and why (the transport rules sit beside it in :mod:`api.http`):

* **Deadlines always**: each API call has a total deadline (connection plus whole answer) and
  reads at most ``max_answer_bytes``; a download is cut when its throughput stays below a floor.
* **One attempt per call; never charged twice.** Whether and when to try again is the retry
  policy's (:mod:`api.http.retrying`, handed in as ``retry``; the job engine is what tries again).
  A submit carries an ``Idempotency-Key`` (the caller's, reused when it sends again). When the
  policy says a failed submit may have made a task — anything after the request left other than
  an outright refusal or a 4xx, including a 2xx answer Kiln cannot read — the client raises
  :class:`OutcomeUnknownError` with the key and any task id it could read.
* **The key goes only to the service's API origin**, judged per hop on the URL urllib3 will connect
  to; never to a download host; it never appears in logs, exception text or ``repr``, and service
  text is redacted of it.
* **Service strings never become anything but data**: task ids are checked by :mod:`api.http.ids`,
  addresses by :mod:`api.http.origin`, answers parsed by :mod:`api.http.answers`.
* **Only Kiln errors leave**: every public call raises a :class:`KilnError` with a sentence, or
  returns; no RecursionError, OverflowError, UnicodeError or OSError from odd service data escapes.
* **Thread safety**: one client may be shared by worker threads (see :class:`.transport.Transport`).

Each service's wire is its own module in :mod:`api.services` (``<service>/client.py``).
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Self, TypeVar
from urllib.parse import urljoin, urlsplit

import requests

from ..checks.inputs import check_web_url, problem_words, shown_url
from ..errors import (
    CancelledError,
    InputError,
    KilnError,
    NetworkError,
    OutcomeUnknownError,
    ServiceError,
    UnsafeAddressError,
)
from ..version import kiln_version
from ..words import catalogue as words
from .answers import parse_json
from .download import BodyWriter, copy_body, stream_to_file
from .guard import Guard, guarding
from .ids import shown_task_id, task_id_problem
from .models import Task
from .origin import host_label, loggable
from .redact import redact
from .retrying import DEFAULT_POLICY, RetryPolicy, SubmitVerdict
from .transport import Transport

__all__ = ["DEADLINE", "MAX_ANSWER_BYTES", "MAX_DOWNLOAD_BYTES", "ServiceClient"]

logger = logging.getLogger(__name__)

MAX_DOWNLOAD_BYTES = 512 * 1024 * 1024
MAX_ANSWER_BYTES = 4 * 1024 * 1024  # a task is a few hundred bytes; 4 MB leaves room for verbose services
MAX_ERROR_BYTES = 64 * 1024
DEADLINE = 60.0  # seconds for one API exchange, connection and whole answer
DOWNLOAD_FLOOR = (4096.0, 30.0)  # a download slower than 4 KB/s over 30 s is cut
_SALVAGE_ID = re.compile(rb'"id"\s*:\s*("(?:[^"\\\x00-\x1f]|\\.){1,2048}")')
ProgressCallback = Callable[[int, int | None], object]
T = TypeVar("T")


DEFAULT_USER_AGENT = f"Kiln/{kiln_version()} python-requests/{requests.__version__}"


class ServiceClient:
    """Talks to one service (its API origin or address + key): the plumbing every service's client shares.

    A service's ``Client`` subclasses it, sets ``info`` and adds its wire (``submit``, ``get_task``,
    ``check_connection``; ``balance`` and ``stages`` where they differ from the defaults here).

    ``retry`` is the retry policy the client asks (the engine hands in its own); ``cancel_event``
    (or a per-call ``cancel`` event) ends a call with :class:`CancelledError`. ``timeout`` is
    (connect, per-read) seconds; ``deadline`` bounds a whole API exchange; ``download_floor`` is
    (bytes per second, window seconds).
    """

    #: The word before the key in ``Authorization`` (a service's client sets its own, e.g. fal's ``Key``).
    auth_scheme = "Bearer"

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
        # A service that needs no key (ServiceInfo.needs_key) is sent none, and then plain http is fine.
        needs_key = getattr(getattr(self, "info", None), "needs_key", True)
        keyless = not needs_key and not str(api_key or "").strip()
        base = check_web_url(base_url, "service URL", plain_http=keyless)
        parts = urlsplit(base)
        if parts.query or parts.fragment:
            raise InputError(words.SERVICE_ADDRESS_HAS_QUERY, url=shown_url(base))
        if not isinstance(api_key, str) or not (api_key.strip() or keyless):
            raise InputError(words.API_KEY_MISSING)
        api_key = api_key.strip()
        if api_key and not re.fullmatch(r"[\x21-\x7e]+", api_key):
            # Checked here because requests would quote the bad header value, key and all, in its error.
            raise InputError(words.API_KEY_MALFORMED)
        self.base_url = base.rstrip("/")
        self.timeout = timeout
        self.deadline = deadline
        self.download_floor = download_floor
        self.max_answer_bytes = max_answer_bytes
        self.user_agent = user_agent
        self._key = api_key
        self._http = Transport(
            self.base_url,
            api_key,
            timeout=timeout,
            user_agent=user_agent,
            # A service with a documented origin asks its documented paths: a 404 or 410 there that is
            # not about a task says the service moved on (update Kiln), not that an address is wrong.
            paths_documented=bool(getattr(getattr(self, "info", None), "api_origin", "")),
            auth_scheme=self.auth_scheme,
            plain_http=keyless,
        )
        self.retry = retry
        self._cancel_event = cancel_event

    def __repr__(self) -> str:
        return f"{type(self).__name__}(base_url={self.base_url!r}, api_key='***')"

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Close every thread's session; later calls raise CancelledError. Safe to call twice."""
        self._http.close()

    # ------------------------------------------------------------------ shared calls

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
                    self._http,
                    url,
                    dest,
                    progress,
                    max_bytes,
                    check,
                    lambda: self._check_cancel(cancel),
                    self._body_for(url),
                )

        return self._once(f"download from {host_label(url)}", once, cancel)

    def balance(self, *, cancel: threading.Event | None = None) -> int | None:
        """Credits left, where the service tells; a service without a balance call says None."""
        return None

    def stages(self, order: object) -> int:
        """Submits one job takes: one, unless the service makes a job in stages."""
        return 1

    def cancel_task(self, task_id: str, *, handle: str = "") -> None:
        """A service that documents no cancel: said, nothing sent (Stop Waiting is all Kiln can do)."""
        name = str(getattr(getattr(self, "info", None), "name", "") or "The service")
        raise InputError(words.SERVICE_CANNOT_CANCEL, details=f"task {shown_task_id(task_id)}", service=name)

    # ------------------------------------------------------------------ plumbing

    def _body_for(self, url: str) -> BodyWriter:
        """How the answer at ``url`` becomes the file: as it is, unless a service wraps its meshes."""
        return copy_body

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

    def _json_call(
        self,
        what: str,
        send: Callable[[], requests.Response],
        *,
        task_id: str | None = None,
        cancel: threading.Event | None = None,
    ) -> Any:
        """One idempotent exchange whose answer is JSON (a poll, a status, a balance), parsed with limits."""

        def once() -> Any:
            status, body = self._exchange(send, task_id=task_id, cancel=cancel)
            try:
                return parse_json(body)
            except ValueError as exc:
                raise ServiceError(status, f"the answer could not be read: {exc}") from None

        return self._once(what, once, cancel)

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
            task = self._task_from_submit(data)
            if self._key and self._key in task.id:
                raise ValueError("the task id repeats the API key")
            return task.redacted(self._key)
        except KilnError:  # the service said in its answer that it made no task
            raise
        except Exception as exc:
            reason = str(exc) if isinstance(exc, ValueError) else type(exc).__name__
            named = data.get("id") if isinstance(data, Mapping) else None
            usable = (
                named is not None and task_id_problem(named) is None and not self._repeats_key(str(named))
            )
            raise OutcomeUnknownError(
                key,
                f"its answer could not be used: {reason}",
                status=status,
                task_id=str(named) if usable else None,
                refused_id=self._shown_id(named) if named is not None and not usable else None,
            ) from None

    def _task_from_submit(self, data: object) -> Task:
        """The task in a submit's parsed answer (each service's wire says where its id is).

        Raises ValueError when the answer cannot be used (the outcome is then unknown), or a
        KilnError when the answer itself says the service made no task (an error inside a 2xx).
        """
        return Task.from_json(data)

    def _salvaged_id(self, body: bytes) -> str | None:
        """A well-formed ``"id": "…"`` from an answer that does not parse as a whole, or None."""
        match = _SALVAGE_ID.search(body[:MAX_ERROR_BYTES])
        if match is None:
            return None
        try:
            task_id = json.loads(match.group(1))
        except ValueError:
            return None
        return task_id if task_id_problem(task_id) is None and not self._repeats_key(task_id) else None

    def _repeats_key(self, text: str) -> bool:
        """Whether a text from the service holds the key (never, for a client sent no key)."""
        return bool(self._key) and self._key in text

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
