"""One HTTP exchange with the service or its CDN: who gets the key, how long it may take, how much is read.

* **The key goes only to the service's origin, judged on the prepared URL** as urllib3 will
  connect to it (:mod:`.origin`), on every hop: redirects are followed here by hand, each hop
  prepared and judged again. Requests are prepared without the session's environment auth, so
  ``~/.netrc`` never adds credentials to another host either, and handed to the adapter
  directly, so requests' own redirect machinery never runs.
* **Every exchange has a total deadline** (or, for downloads, a throughput floor) enforced by
  :mod:`.guard`, and **every answer is read streamed with a cap**.
* **Thread safety**: one Transport may be shared by a pool of worker threads; each thread gets
  its own ``requests.Session`` (``Session`` is not documented as thread-safe).
"""

from __future__ import annotations

import logging
import re
import socket
import threading
from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import urljoin

import requests
import urllib3.exceptions

from ..checks.inputs import problem_words, shown_url
from ..errors import (
    CancelledError,
    InputError,
    KilnError,
    NetworkError,
    ServiceError,
    TLSError,
    UnsafeAddressError,
)
from ..words import Entry
from ..words import catalogue as words
from .answers import error_for
from .guard import Guard, GuardedAdapter, current_guard
from .origin import Origin, address_problem, connect_origin, host_label, is_local_host, loggable

logger = logging.getLogger(__name__)

MAX_REDIRECTS = 5
READ_CHUNK = 16 * 1024
MAX_ERROR_BYTES = 64 * 1024


class Transport:
    """Sends one request at a time per thread; see the module docstring for the rules it keeps."""

    def __init__(
        self,
        base_url: str,
        key: str,
        *,
        timeout: tuple[float, float],
        user_agent: str,
        paths_documented: bool = False,
        auth_scheme: str = "Bearer",
        plain_http: bool = False,
    ) -> None:
        # A service sent no key (a studio's own server) may be reached over plain http beyond this
        # computer; a key goes only over HTTPS or to this computer, whatever the caller asks.
        self._plain_http = plain_http and not key
        problem = address_problem(base_url, plain_http=self._plain_http)
        if problem is not None:
            raise InputError(problem, details="the service URL", url=shown_url(base_url))
        self.base_url = base_url
        self.timeout = timeout
        self.user_agent = user_agent
        #: The paths asked for are the service's own documented ones (see ``answers.error_for``'s ``moved``).
        self.paths_documented = paths_documented
        #: The word before the key in ``Authorization`` (fal.ai's queue wants ``Key``, the rest ``Bearer``).
        self.auth_scheme = auth_scheme
        self._key = key
        self._origin: Origin = connect_origin(requests.Request("GET", base_url).prepare().url or base_url)
        # A service on this computer (the sandbox) may send local addresses; a remote one may not:
        # its links to 127.0.0.1, 10.x or 169.254.169.254 would make Kiln probe the artist's network.
        self._local_base = is_local_host(self._origin[1])
        self._local = threading.local()
        self._lock = threading.Lock()
        self._sessions: list[requests.Session] = []
        self._closed = False

    def close(self) -> None:
        with self._lock:
            self._closed = True
            sessions, self._sessions = self._sessions, []
        for session in sessions:
            session.close()

    def session(self) -> requests.Session:
        """This thread's session (created on first use, registered so close() can reach it)."""
        session: requests.Session | None = getattr(self._local, "session", None)
        if session is None:
            session = requests.Session()
            session.headers["User-Agent"] = self.user_agent
            for prefix in ("http://", "https://"):
                session.mount(prefix, GuardedAdapter())
            with self._lock:
                if not self._closed:
                    self._sessions.append(session)
                    self._local.session = session
        if self._closed:
            session.close()
            raise CancelledError(words.CONNECTION_CLOSED)
        return session

    def problem(self, url: str) -> Entry | None:
        """Why Kiln will not open ``url`` from this service, or None (see :func:`.origin.address_problem`)."""
        problem = address_problem(url, plain_http=self._plain_http)
        if problem is None and not self._local_base and is_local_host(connect_origin(url)[1]):
            return words.ADDRESS_LOCAL
        return problem

    def send(
        self, method: str, url: str, *, headers: Mapping[str, str] | None = None, **kwargs: Any
    ) -> requests.Response:
        """One hop, streamed, no redirects followed; the key only if the prepared URL is the service's."""
        session = self.session()
        try:
            prepared = requests.Request(
                method, url, headers={**session.headers, **(headers or {})}, **kwargs
            ).prepare()
        except (requests.RequestException, ValueError, UnicodeError) as exc:
            raise UnsafeAddressError(
                what="web address", problem=f"it cannot be prepared ({type(exc).__name__})"
            ) from None
        target = prepared.url or ""
        problem = self.problem(target)
        if problem is not None:
            raise UnsafeAddressError(what="web address", problem=problem_words(problem, loggable(target)))
        with_key = bool(self._key) and connect_origin(target) == self._origin
        if with_key:
            prepared.headers["Authorization"] = f"{self.auth_scheme} {self._key}"
        guard = current_guard()
        remaining = guard.remaining() if guard is not None else None
        connect = self.timeout[0] if remaining is None else max(0.05, min(self.timeout[0], remaining))
        try:
            settings = session.merge_environment_settings(target, {}, True, None, None)
            # The adapter, not session.send: even with allow_redirects=False, send() prepares the
            # next hop itself and reads the whole body of a redirect answer, uncapped.
            resp = session.get_adapter(target).send(
                prepared,
                stream=True,
                timeout=(connect, self.timeout[1]),
                verify=True if settings["verify"] is None else settings["verify"],
                cert=settings["cert"],
                proxies=settings["proxies"],
            )
        except KilnError:
            raise
        except Exception as exc:
            raise self.transport_error(exc, target) from None
        logger.debug(
            "%s %s -> HTTP %d%s",
            method,
            loggable(target),
            resp.status_code,
            " (with key)" if with_key else "",
        )
        return resp

    def get(self, url: str, *, headers: Mapping[str, str] | None = None) -> requests.Response:
        """GET following redirects by hand, so each hop is judged (and given the key) on its own."""
        headers = {"Accept": "application/json, */*", **(headers or {})}
        status = 0
        for _ in range(MAX_REDIRECTS + 1):
            resp = self.send("GET", url, headers=headers)
            try:
                target = self.session().get_redirect_target(resp)
            except (ValueError, UnicodeError):
                resp.close()
                raise UnsafeAddressError(what="redirect", problem="its address cannot be read") from None
            if target is None:
                return resp
            resp.close()
            status = resp.status_code
            # A backslash is refused as sent: urljoin would read it one way, urllib3 another.
            next_url = target if "\\" in target else urljoin(url, target)
            problem = self.problem(next_url)
            if problem is not None:
                raise UnsafeAddressError(what="redirect", problem=problem_words(problem, loggable(next_url)))
            url = next_url
            logger.debug("Redirected to %s", loggable(url))
        raise ServiceError(status, "too many redirects")

    def read(self, resp: requests.Response, limit: int, *, truncate: bool = False) -> bytes:
        """The whole body, streamed; past ``limit`` bytes: ServiceError, or the first ``limit`` bytes."""
        length = resp.headers.get("Content-Length", "").strip()
        declared = int(length) if length.isascii() and length.isdigit() and len(length) < 30 else None
        if not truncate and declared is not None and declared > limit:
            raise _too_big(resp.status_code, limit)
        body = bytearray()
        for chunk in self.chunks(resp):
            body += chunk
            if len(body) > limit:
                if truncate:
                    return bytes(body[:limit])
                raise _too_big(resp.status_code, limit)
        # urllib3 1.x (which an older Blender may bundle) does not enforce Content-Length itself.
        if (
            not truncate
            and declared is not None
            and len(body) != declared
            and "Content-Encoding" not in resp.headers
        ):
            raise NetworkError(
                host_label(resp.url or ""),
                f"the answer stopped after {len(body)} of {declared} bytes",
                sent=True,
                said=words.NETWORK_CUT_OFF,
            )
        return bytes(body)

    def chunks(self, resp: requests.Response, size: int = READ_CHUNK) -> Iterator[bytes]:
        """The body in pieces, each counted by the guard; a cut or broken transfer becomes a Kiln error."""
        guard = current_guard()
        try:
            for chunk in resp.iter_content(size):
                if guard is not None:
                    guard.received(len(chunk))
                    if guard.tripped:
                        break
                yield chunk
        except KilnError:
            raise
        except Exception as exc:
            raise self.transport_error(exc, resp.url or "") from None
        if guard is not None and guard.tripped:
            # A cut on a body without Content-Length looks like a normal end: the guard knows better.
            raise _cut_error(guard, host_label(resp.url or ""))

    def error_for(
        self, resp: requests.Response, *, task_id: str | None = None, download: bool = False
    ) -> KilnError:
        """The Kiln error for a non-2xx answer, from at most the first 64 KB of its body."""
        body = self.read(resp, MAX_ERROR_BYTES, truncate=True)
        error = error_for(
            resp.status_code,
            resp.headers,
            body,
            self._key,
            task_id=task_id,
            download=download,
            moved=self.paths_documented,
        )
        logger.debug("HTTP %d from %s: %s", resp.status_code, loggable(resp.url or ""), error)
        return error

    def transport_error(self, exc: BaseException, url: str) -> KilnError:
        """Any failure below requests as a sentence; ``sent`` False only if the server surely saw none."""
        host = host_label(url)
        guard = current_guard()
        if guard is not None and guard.tripped:
            return _cut_error(guard, host)
        if isinstance(exc, requests.exceptions.SSLError):
            return TLSError(host, _tls_detail(exc))
        if isinstance(exc, requests.exceptions.InvalidHeader | requests.exceptions.InvalidURL):
            return UnsafeAddressError(what="web address", problem=f"it cannot be used ({type(exc).__name__})")
        if isinstance(exc, requests.RequestException):
            said, reason = _network_reason(exc)
            return NetworkError(host, reason, sent=not _surely_not_sent(exc), said=said)
        logger.debug("Unexpected %s talking to %s", type(exc).__name__, host)
        return NetworkError(host, f"the exchange failed unexpectedly ({type(exc).__name__})", sent=True)


def _cut_error(guard: Guard, host: str) -> KilnError:
    """Why the guard cut an exchange: the caller's own stop, or the service too slow."""
    if guard.cancelled:
        return CancelledError()
    return NetworkError(host, guard.tripped or "the transfer was cut", sent=True, said=words.NETWORK_TOO_SLOW)


def _too_big(status: int, limit: int) -> ServiceError:
    return ServiceError(status, f"its answer is larger than the {limit // 1024:,} KB Kiln reads")


def _causes(exc: BaseException) -> Iterator[object]:
    """The exception, its args and its cause chain: where urllib3 hides the real reason."""
    seen: set[int] = set()
    stack: list[object] = [exc]
    while stack and len(seen) < 100:
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


def _network_reason(exc: requests.RequestException) -> tuple[Entry, str]:
    """The sentence for this kind of failure, and what it was in a few words (for the details)."""
    causes = list(_causes(exc))
    if any(isinstance(c, socket.gaierror) for c in causes):
        return words.NETWORK_NAME_NOT_FOUND, "its name could not be found (DNS)"
    if isinstance(exc, requests.exceptions.ConnectTimeout):
        return words.NETWORK_TIMED_OUT, "the connection timed out"
    if any(isinstance(c, ConnectionRefusedError) for c in causes):
        return words.NETWORK_REFUSED, "the connection was refused"
    if _surely_not_sent(exc):
        return words.NETWORK_NO_CONNECTION, "the connection could not be opened"
    if isinstance(exc, requests.exceptions.ReadTimeout) or any(
        isinstance(c, urllib3.exceptions.ReadTimeoutError) for c in causes
    ):
        return words.NETWORK_TIMED_OUT, "it stopped answering (read timed out)"
    if isinstance(exc, requests.exceptions.ChunkedEncodingError | requests.exceptions.ContentDecodingError):
        return words.NETWORK_CUT_OFF, "the transfer was cut off"
    return words.NETWORK_CUT_OFF, "the connection was dropped"


def _tls_detail(exc: requests.exceptions.SSLError) -> str:
    text = str(exc)
    match = re.search(r"certificate verify failed: ([^(]+)", text)
    if match:
        return match.group(1).strip()
    match = re.search(r"\[SSL: ([A-Z_]+)\]", text)
    return match.group(1).replace("_", " ").lower() if match else "TLS handshake failed"
