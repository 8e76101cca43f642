"""The HTTP client for the 3D generation service (spec: ``service-interface.md``).

Rules this module keeps, and why:

* **Timeouts always** (connect, read): a hung socket must never hang a job.
* **Retries that never charge twice.** Polls and downloads are idempotent and are retried with
  capped exponential backoff and jitter on network errors, 5xx and 429, honouring Retry-After.
  Submits carry an ``Idempotency-Key`` (reused on every attempt) and are retried only when the
  request surely never reached the server (DNS or connect failure), or when the server refused it
  outright (429, or 503 with Retry-After). Any other failure after sending raises
  :class:`OutcomeUnknownError` carrying the key.
* **The key goes only to the service.** ``Authorization`` is attached per request, and only when
  the URL's scheme, host and port equal the base URL's. Redirects are followed by hand so every hop
  is judged the same way: a CDN (or a redirect to one) never sees the key. The key never appears
  in logs, exception text or ``repr``.
* **Certificate checks are never turned off**; a failure becomes :class:`TLSError` with a hint.
* **Thread safety**: one :class:`Client` may be shared by a pool of worker threads. Each thread gets
  its own ``requests.Session`` (thread-local, created on first use) because ``Session`` is not
  documented as thread-safe; sessions keep connections alive per thread and are all closed by
  :meth:`Client.close`. Client configuration is read-only after construction.
"""

from __future__ import annotations

import email.utils
import logging
import os
import random
import re
import socket
import threading
import time
import tomllib
import uuid
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote, urljoin, urlsplit

import requests
import urllib3.exceptions

from .errors import (
    AuthError,
    BadRequestError,
    CancelledError,
    CreditsError,
    InputError,
    InvalidMeshError,
    KilnError,
    NetworkError,
    NotFoundError,
    OutcomeUnknownError,
    RateLimitError,
    ServiceError,
    StorageError,
    TLSError,
)
from .glb import IMAGE_MIME, image_kind
from .inputs import check_image_bytes, check_prompt, check_web_url, read_image_file
from .models import Task, describe_error

logger = logging.getLogger(__name__)

TEXT_TO_3D_PATH = "/v1/3d/text-to-3d"
IMAGE_TO_3D_PATH = "/v1/3d/image-to-3d"
TASKS_PATH = "/v1/3d/tasks/"

IMAGE_RESOLUTIONS = (1024, 1536)
MAX_DOWNLOAD_BYTES = 512 * 1024 * 1024
MAX_RETRY_AFTER = 60.0  # longest server-requested wait we honour before retrying anyway
MAX_REDIRECTS = 5
CHUNK_SIZE = 64 * 1024
_MAX_SERVER_WORDS = 300

ProgressCallback = Callable[[int, int | None], object]
SleepFunction = Callable[[float], object]
T = TypeVar("T")


def _kiln_version() -> str:
    """The add-on version from the manifest next to this package (shipped in the zip)."""
    try:
        with (Path(__file__).resolve().parent.parent / "blender_manifest.toml").open("rb") as f:
            return str(tomllib.load(f).get("version", "unknown"))
    except (OSError, tomllib.TOMLDecodeError):
        return "unknown"


DEFAULT_USER_AGENT = f"Kiln/{_kiln_version()} python-requests/{requests.__version__}"


def _origin(url: str) -> tuple[str, str, int]:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or "").lower(), parts.port or (443 if scheme == "https" else 80)


def _host_label(url: str) -> str:
    """host[:port] for messages: never userinfo, path or query (signed URLs carry tokens)."""
    parts = urlsplit(url)
    return f"{parts.hostname}:{parts.port}" if parts.port else str(parts.hostname)


def _loggable(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{_host_label(url)}{parts.path}"


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Seconds to wait from a Retry-After header: delta-seconds or an HTTP date; None if absent/bad."""
    if not value or not value.strip():
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


class _BearerAuth(requests.auth.AuthBase):
    """Adds the key to one prepared request; passing ``auth=`` also keeps ~/.netrc from overriding it."""

    def __init__(self, key: str) -> None:
        self._key = key

    def __call__(self, r: requests.PreparedRequest) -> requests.PreparedRequest:
        r.headers["Authorization"] = f"Bearer {self._key}"
        return r

    def __repr__(self) -> str:
        return "_BearerAuth(***)"


def _causes(exc: BaseException) -> Iterator[object]:
    """The exception, its args and its cause chain: where urllib3 hides the real reason."""
    seen: set[int] = set()
    stack: list[object] = [exc]
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        yield item
        if isinstance(item, BaseException):
            stack.extend(item.args)
            stack.extend(x for x in (item.__cause__, item.__context__, getattr(item, "reason", None)) if x)


def _surely_not_sent(exc: requests.RequestException) -> bool:
    """DNS failure or connection never established: the server cannot have seen the request.

    urllib3 raises NewConnectionError (NameResolutionError is a subclass in urllib3 2) before a
    single byte is sent; ConnectTimeout likewise fires before the connection exists.
    """
    if isinstance(exc, requests.exceptions.ConnectTimeout):
        return True
    return any(isinstance(c, urllib3.exceptions.NewConnectionError) for c in _causes(exc))


def _network_reason(exc: requests.RequestException) -> str:
    causes = list(_causes(exc))
    if any(isinstance(c, socket.gaierror) for c in causes):
        return "its name could not be found (DNS)"
    if isinstance(exc, requests.exceptions.ConnectTimeout):
        return "the connection timed out"
    if any(isinstance(c, ConnectionRefusedError) for c in causes):
        return "the connection was refused (is the service running?)"
    if _surely_not_sent(exc):
        return "the connection could not be opened"
    if isinstance(exc, requests.exceptions.ReadTimeout) or any(
        isinstance(c, urllib3.exceptions.ReadTimeoutError) for c in causes
    ):
        return "it stopped answering (read timed out)"
    if isinstance(exc, requests.exceptions.ChunkedEncodingError | requests.exceptions.ContentDecodingError):
        return "the transfer was cut off"
    return "the connection was dropped"


def _tls_detail(exc: requests.exceptions.SSLError) -> str:
    text = str(exc)
    match = re.search(r"certificate verify failed: ([^(]+)", text)
    if match:
        return match.group(1).strip()
    match = re.search(r"\[SSL: ([A-Z_]+)\]", text)
    return match.group(1).replace("_", " ").lower() if match else "TLS handshake failed"


class Client:
    """Talks to one service (base URL + key). See the module docstring for the rules it keeps.

    Safe to share between threads: each thread uses its own ``requests.Session`` (keep-alive per
    thread); ``close()`` closes them all, after which every call raises CancelledError.

    ``sleep`` replaces the wait between retries (tests inject a recorder); by default waits use
    ``threading.Event.wait`` so ``cancel_event`` (or a per-call ``cancel`` event) interrupts them
    at once with :class:`CancelledError`. ``retries`` is the number of extra attempts.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: tuple[float, float] = (5.0, 30.0),
        user_agent: str = DEFAULT_USER_AGENT,
        retries: int = 4,
        backoff: tuple[float, float] = (0.5, 8.0),
        max_retry_after: float = MAX_RETRY_AFTER,
        sleep: SleepFunction | None = None,
        cancel_event: threading.Event | None = None,
    ) -> None:
        base = check_web_url(base_url, "service URL")
        parts = urlsplit(base)
        if parts.query or parts.fragment:
            raise InputError(f"The service URL must not contain '?' or '#': {base}")
        if not isinstance(api_key, str) or not api_key.strip():
            raise InputError(
                "No API key is set. Paste your secret key in Kiln's preferences (or set KILN_API_KEY)."
            )
        api_key = api_key.strip()
        if not re.fullmatch(r"[\x21-\x7e]+", api_key):
            # Checked here because requests would quote the bad header value, key and all, in its error.
            raise InputError(
                "The API key contains spaces or unusual characters. Copy it again from the dashboard."
            )
        if retries < 0:
            raise ValueError("retries must be >= 0")
        self.base_url = base.rstrip("/")
        self.timeout = timeout
        self.user_agent = user_agent
        self.retries = retries
        self.backoff = backoff
        self.max_retry_after = max_retry_after
        self._origin = _origin(self.base_url)
        self._key = api_key
        self._auth = _BearerAuth(api_key)
        self._sleep = sleep
        self._cancel_event = cancel_event
        self._random = random.Random()
        self._local = threading.local()
        self._lock = threading.Lock()
        self._sessions: list[requests.Session] = []
        self._closed = False

    def __repr__(self) -> str:
        return f"Client(base_url={self.base_url!r}, api_key='***')"

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Close every thread's session; later calls raise CancelledError. Safe to call twice."""
        with self._lock:
            self._closed = True
            sessions, self._sessions = self._sessions, []
        for session in sessions:
            session.close()

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
            if isinstance(resolution, bool) or not isinstance(resolution, int) or resolution <= 0:
                raise InputError(f"The resolution must be a positive whole number, not {resolution!r}.")
            body["resolution"] = resolution
        if image_model is not None:
            if not isinstance(image_model, Mapping) or not all(
                isinstance(v, str) for v in image_model.values()
            ):
                raise InputError("The image model must be given as text values (provider, quality).")
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
            raise InputError("Give exactly one image: a file, image data or an image URL.")
        if resolution not in IMAGE_RESOLUTIONS or isinstance(resolution, bool):
            raise InputError(f"The resolution must be 1024 or 1536, not {resolution!r}.")
        webhook = check_web_url(webhook_url, "webhook URL") if webhook_url is not None else None
        if url is not None:
            body: dict[str, Any] = {"image_url": check_web_url(url, "image URL"), "resolution": resolution}
            if webhook:
                body["webhook_url"] = webhook
            return self._submit(IMAGE_TO_3D_PATH, {"json": body}, idempotency_key, cancel)
        if path is not None:
            image, filename = read_image_file(Path(path)), Path(path).name
        else:
            image, filename = check_image_bytes(data, "The image data"), ""
        kind = image_kind(image[:16])
        assert kind is not None  # _check_image_bytes guarantees it
        form = {"resolution": str(resolution)}
        if webhook:
            form["webhook_url"] = webhook
        files = {"image": (filename or f"image.{kind}", image, IMAGE_MIME[kind])}
        return self._submit(IMAGE_TO_3D_PATH, {"data": form, "files": files}, idempotency_key, cancel)

    def get_task(self, task_id: str, *, cancel: threading.Event | None = None) -> Task:
        """GET the task (retried). A 404 raises NotFoundError: the service no longer knows it."""
        if not isinstance(task_id, str) or not task_id.strip():
            raise InputError("The task id is empty.")
        task_id = task_id.strip()
        url = self.base_url + TASKS_PATH + quote(task_id, safe="")

        def once() -> Task:
            with self._get(url, cancel) as resp:
                if not resp.ok:
                    raise self._error_for(resp, task_id=task_id)
                data = self._json(resp)
            try:
                return Task.from_json(data)
            except ValueError as exc:
                raise ServiceError(resp.status_code, f"the task could not be read: {exc}") from None

        return self._with_retries(f"poll of task {task_id}", once, cancel)

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

        ``progress(done, total)`` gets the bytes so far and Content-Length (None when unknown); on a
        retry it restarts from 0. ``check`` (e.g. ``glb.check_glb``) runs before the rename, so
        ``dest`` only ever holds a checked file. A relative URL is resolved against the base URL.
        The key is sent only if the URL (or a redirect hop) is on the service's own origin.
        """
        if isinstance(url, str):  # the spec says "URL"; a relative one is taken relative to the service
            url = urljoin(self.base_url + "/", url.strip())
        url = check_web_url(url, "download URL")
        dest = Path(dest)
        part = dest.with_name(dest.name + ".part")
        try:
            dest.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StorageError(dest.parent, exc) from exc

        def once() -> Path:
            try:
                self._stream_to(url, part, progress, max_bytes, cancel)
                if check is not None:
                    check(part)
                part.replace(dest)
            except BaseException:
                part.unlink(missing_ok=True)
                raise
            _fsync_dir(dest.parent)
            return dest

        return self._with_retries(f"download from {_host_label(url)}", once, cancel)

    def check_connection(self, *, cancel: threading.Event | None = None) -> str:
        """One cheap request for the preferences' "Test connection"; returns a sentence or raises.

        The spec has no health endpoint, so this polls a task id that cannot exist: a JSON 404 means
        the service is reachable and accepted the key (polls cost no credits), 401/403 raise
        AuthError. Caveat: a service that looked up the task before checking the key would also
        answer 404 to a bad key. Not retried: the artist is waiting for an answer.
        """
        url = f"{self.base_url}{TASKS_PATH}kiln-connection-check-{uuid.uuid4().hex}"
        with self._get(url, cancel) as resp:
            if resp.status_code == 404:
                try:
                    resp.json()
                except ValueError:
                    raise NotFoundError(
                        user_message=f"{_host_label(url)} answered, but not like the 3D service "
                        "(no JSON). Check the service URL in Kiln's preferences."
                    ) from None
            elif not resp.ok:
                raise self._error_for(resp)
        return f"Connected to {_host_label(url)}: the service answered and accepted the API key."

    # ------------------------------------------------------------------ plumbing

    def _session(self) -> requests.Session:
        """This thread's session (created on first use, registered so close() can reach it)."""
        session: requests.Session | None = getattr(self._local, "session", None)
        if session is None:
            session = requests.Session()
            session.headers["User-Agent"] = self.user_agent
            with self._lock:
                if not self._closed:
                    self._sessions.append(session)
                    self._local.session = session
        if self._closed:
            session.close()
            raise CancelledError("Kiln's connection to the service was closed.")
        return session

    def _check_cancel(self, cancel: threading.Event | None) -> None:
        if any(e is not None and e.is_set() for e in (self._cancel_event, cancel)):
            raise CancelledError()

    def _pause(self, seconds: float, cancel: threading.Event | None) -> None:
        """Wait between attempts; returns early (raising CancelledError) when cancelled."""
        self._check_cancel(cancel)
        events = [e for e in (self._cancel_event, cancel) if e is not None]
        if self._sleep is not None:
            self._sleep(seconds)
        elif not events:
            time.sleep(seconds)
        elif len(events) == 1:
            events[0].wait(seconds)
        else:
            deadline = time.monotonic() + seconds
            while not any(e.is_set() for e in events) and (left := deadline - time.monotonic()) > 0:
                events[1].wait(min(left, 0.05))
        self._check_cancel(cancel)

    def _backoff(self, attempt: int) -> float:
        """Capped exponential backoff with jitter (half fixed, half random) for attempt 0, 1, …"""
        base, cap = self.backoff
        delay = min(cap, base * 2**attempt)
        return self._random.uniform(delay / 2, delay)

    def _wait_for(self, error: KilnError, attempt: int) -> float:
        retry_after = getattr(error, "retry_after", None)
        if retry_after is not None:
            return float(min(retry_after, self.max_retry_after))
        return self._backoff(attempt)

    def _with_retries(self, what: str, once: Callable[[], T], cancel: threading.Event | None) -> T:
        """Run an idempotent operation, retrying network errors, 5xx and 429.

        Other service errors (a non-JSON 200, a redirect loop) will not fix themselves: not retried.
        """
        for attempt in range(self.retries + 1):
            self._check_cancel(cancel)
            try:
                return once()
            except (NetworkError, ServiceError, RateLimitError) as error:
                status = getattr(error, "status", None)
                if attempt >= self.retries or (isinstance(error, ServiceError) and (status or 500) < 500):
                    raise
                wait = self._wait_for(error, attempt)
                logger.info(
                    "Retrying %s in %.1f s (attempt %d of %d): %s",
                    what,
                    wait,
                    attempt + 2,
                    self.retries + 1,
                    error,
                )
                self._pause(wait, cancel)
        raise AssertionError("unreachable")

    def _request(
        self, method: str, url: str, cancel: threading.Event | None, **kwargs: Any
    ) -> requests.Response:
        """One exchange, no redirects followed; requests' exceptions become Kiln errors."""
        self._check_cancel(cancel)
        auth = self._auth if _origin(url) == self._origin else None
        try:
            resp = self._session().request(
                method, url, auth=auth, timeout=self.timeout, allow_redirects=False, **kwargs
            )
        except requests.RequestException as exc:
            raise self._transport_error(exc, url) from exc
        logger.debug(
            "%s %s -> HTTP %d%s", method, _loggable(url), resp.status_code, " (with key)" if auth else ""
        )
        return resp

    def _get(
        self,
        url: str,
        cancel: threading.Event | None,
        *,
        headers: Mapping[str, str] | None = None,
        stream: bool = False,
    ) -> requests.Response:
        """GET following redirects by hand, so each hop gets the key only if it is the service origin."""
        session = self._session()
        headers = {"Accept": "application/json, */*", **(headers or {})}
        for _ in range(MAX_REDIRECTS + 1):
            resp = self._request("GET", url, cancel, headers=headers, stream=stream)
            target = session.get_redirect_target(resp)
            if target is None:
                return resp
            resp.close()
            status = resp.status_code
            next_url = urljoin(url, target)
            try:
                url = check_web_url(next_url, "redirect target")
            except InputError:
                raise ServiceError(
                    resp.status_code, f"it redirected to an insecure address {_loggable(next_url)}"
                ) from None
            logger.debug("Redirected to %s", _loggable(url))
        raise ServiceError(status, "too many redirects")

    def _submit(
        self,
        path: str,
        payload: dict[str, Any],
        idempotency_key: str | None,
        cancel: threading.Event | None,
    ) -> Task:
        """POST with the one-key, never-twice retry rule described in the module docstring."""
        key = idempotency_key or str(uuid.uuid4())
        url = self.base_url + path
        headers = {"Idempotency-Key": key, "Accept": "application/json"}
        for attempt in range(self.retries + 1):
            last = attempt >= self.retries
            try:
                resp = self._request("POST", url, cancel, headers=headers, **payload)
            except NetworkError as unsent:
                if unsent.sent:
                    raise OutcomeUnknownError(key, unsent.reason) from unsent
                if last:
                    raise
                self._retry_submit(unsent, attempt, cancel)
                continue
            with resp:
                if resp.ok:
                    try:
                        return Task.from_json(resp.json())
                    except ValueError:
                        raise OutcomeUnknownError(
                            key, "its answer could not be read", status=resp.status_code
                        ) from None
                error = self._error_for(resp)
            status = resp.status_code
            refused = status == 429 or (status == 503 and getattr(error, "retry_after", None) is not None)
            if refused and not last:
                self._retry_submit(error, attempt, cancel)
                continue
            if refused or status < 500:
                raise error  # the service answered and did not create a task
            raise OutcomeUnknownError(
                key, f"it answered HTTP {resp.status_code}", status=resp.status_code
            ) from error
        raise AssertionError("unreachable")

    def _retry_submit(self, error: KilnError, attempt: int, cancel: threading.Event | None) -> None:
        wait = self._wait_for(error, attempt)
        logger.info("Submit not taken (no task was made); sending again in %.1f s: %s", wait, error)
        self._pause(wait, cancel)

    def _stream_to(
        self,
        url: str,
        part: Path,
        progress: ProgressCallback | None,
        max_bytes: int,
        cancel: threading.Event | None,
    ) -> None:
        # identity: Content-Length then counts the bytes we store, for progress and the size cap.
        with self._get(url, cancel, stream=True, headers={"Accept-Encoding": "identity"}) as resp:
            if not resp.ok:
                raise self._download_error(resp, url)
            length = resp.headers.get("Content-Length", "")
            total = int(length) if length.isdigit() and "Content-Encoding" not in resp.headers else None
            if total is not None and total > max_bytes:
                raise _too_large(url, max_bytes)
            done = 0
            if progress is not None:
                progress(0, total)
            try:
                with part.open("wb") as f:
                    for chunk in resp.iter_content(CHUNK_SIZE):
                        self._check_cancel(cancel)
                        done += len(chunk)
                        if done > max_bytes:
                            raise _too_large(url, max_bytes)
                        f.write(chunk)
                        if progress is not None:
                            progress(done, total)
                    f.flush()
                    os.fsync(f.fileno())
            except requests.RequestException as exc:
                raise self._transport_error(exc, url) from exc
            except OSError as exc:
                raise StorageError(part, exc) from exc
            # urllib3 1.x (which an older Blender may bundle) does not enforce Content-Length itself.
            if total is not None and done != total:
                raise NetworkError(
                    _host_label(url), f"the transfer stopped after {done} of {total} bytes", sent=True
                )
        logger.debug("Downloaded %d bytes from %s", done, _loggable(url))

    def _download_error(self, resp: requests.Response, url: str) -> KilnError:
        """Like _error_for, but a refused download link is about the link, not the API key."""
        status = resp.status_code
        if status in (401, 403, 404, 410):
            message = (
                f"The download link was refused (HTTP {status}); it may have expired. "
                "Check the task again to get a fresh link."
            )
            if status == 404 or status == 410:
                return NotFoundError(self._server_words(resp), user_message=message)
            return BadRequestError(status, self._server_words(resp), message)
        return self._error_for(resp)

    def _json(self, resp: requests.Response) -> object:
        try:
            return resp.json()
        except ValueError:
            raise ServiceError(resp.status_code, "the answer was not JSON") from None

    def _server_words(self, resp: requests.Response) -> str | None:
        """The service's own explanation from an error body (JSON of any shape, or short plain text)."""
        try:
            body = resp.json()
        except ValueError:
            text = resp.text.strip() if resp.headers.get("Content-Type", "").startswith("text/plain") else ""
            words = text[:_MAX_SERVER_WORDS] or None
        else:
            # Sandbox and most services: {"error": {"code", "message"}}; FastAPI: {"detail": …}.
            words = describe_error(body) if body not in (None, "", {}, []) else None
        return words.replace(self._key, "***") if words else None

    def _error_for(self, resp: requests.Response, *, task_id: str | None = None) -> KilnError:
        """Map a non-2xx answer to the exception family (the spec shows no error statuses)."""
        status = resp.status_code
        words = self._server_words(resp)
        retry_after = parse_retry_after(resp.headers.get("Retry-After"))
        error: KilnError
        if status in (401, 403):
            error = AuthError(status, words)
        elif status == 402:
            error = CreditsError(words)
        elif status == 429:
            error = RateLimitError(retry_after, words)
        elif status == 404:
            error = NotFoundError(words, task_id=task_id)
        elif 400 <= status < 500:
            error = BadRequestError(status, words)
        elif 300 <= status < 400:
            error = ServiceError(status, "an unexpected redirect")
        else:
            error = ServiceError(status, words, retry_after=retry_after)  # an HTML page gives no words
        logger.debug("HTTP %d from %s: %s", status, _loggable(resp.url or ""), error)
        return error

    def _transport_error(self, exc: requests.RequestException, url: str) -> KilnError:
        host = _host_label(url)
        if isinstance(exc, requests.exceptions.SSLError):
            return TLSError(host, _tls_detail(exc))
        if isinstance(exc, requests.exceptions.InvalidHeader | requests.exceptions.InvalidURL):
            return InputError(f"The address {_loggable(url)} cannot be used: {type(exc).__name__}.")
        return NetworkError(host, _network_reason(exc), sent=not _surely_not_sent(exc))


def _too_large(url: str, max_bytes: int) -> InvalidMeshError:
    limit = f"{max_bytes / (1024 * 1024):.0f} MB"
    return InvalidMeshError(
        f"larger than the {limit} limit",
        f"The file from {_host_label(url)} is larger than the {limit} Kiln accepts, so the download "
        "was stopped. Try resolution 1024 for a smaller mesh.",
    )


def _fsync_dir(directory: Path) -> None:
    """Make the rename durable; directories cannot be opened for fsync on Windows, so best effort."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        logger.debug("fsync of %s not supported", directory)
    finally:
        os.close(fd)
