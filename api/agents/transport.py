"""MCP's Streamable HTTP transport on Python's own ``http.server``: one endpoint, ``/mcp``, on loopback.

Every request first passes the gate (:mod:`~api.agents.security`: Host, Origin, token), before its
path or body is read; then:

* **POST** carries one JSON-RPC message (at most :data:`BODY_LIMIT` bytes, arriving within
  :data:`BODY_DEADLINE` seconds). ``initialize`` opens a session (its id in ``Mcp-Session-Id``);
  every other message needs a live session (none given: 400; unknown or ended: 404). A request is
  answered as ``application/json``, or as a ``text/event-stream`` (progress notifications, then the
  answer) when it asked for progress (``_meta.progressToken``) and the client accepts a stream. A
  notification or response gets 202.
* **DELETE** ends the session. **GET** is 405: Kiln has nothing to say unasked, so it opens no
  stream of its own.
* ``MCP-Protocol-Version``, when sent, must be a version Kiln speaks (else 400, with the versions).

Each connection has its own thread (``ThreadingHTTPServer``), at most :data:`MAX_CONNECTIONS` at
once; every socket read and write has a timeout. Every body that leaves, and every log line, has
the token and the host's secrets masked.
"""

from __future__ import annotations

import io
import re
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from . import jsonrpc, words
from .jsonrpc import INVALID_REQUEST, UNSUPPORTED_PROTOCOL_VERSION, Request, RpcError
from .logs import log
from .protocol import VERSIONS, Protocol
from .security import Gate, Refusal
from .sessions import Session, Sessions

ENDPOINT = "/mcp"
SESSION_HEADER = "Mcp-Session-Id"
VERSION_HEADER = "MCP-Protocol-Version"
#: Large enough that a 50 MB base64 image reaches the tool's own check and gets its sentence.
BODY_LIMIT = 96 * 1024 * 1024
BODY_DEADLINE = 120.0
#: Seconds any one read or write of a socket may take (a silent client is let go after this).
SOCKET_TIMEOUT = 30.0
MAX_CONNECTIONS = 16
_CHUNK = 1024 * 1024
_LENGTH = re.compile(r"[0-9]{1,12}")


def accepts(header: str | None) -> tuple[bool, bool]:
    """Whether a client with this ``Accept`` takes (JSON, an event stream) as the answer."""
    if header is None:
        return True, False
    types = {part.split(";")[0].strip().lower() for part in header.split(",")}
    anything = "*/*" in types
    return (
        anything or bool(types & {"application/json", "application/*"}),
        anything or bool(types & {"text/event-stream", "text/*"}),
    )


def declared_length(headers: Message) -> tuple[int, Refusal | None]:
    """The body's length as the headers declare it, or why the body will not be read."""
    if headers.get("Transfer-Encoding"):
        return 0, Refusal(411, words.NO_LENGTH)
    lengths = headers.get_all("Content-Length") or []
    if len(lengths) != 1:
        return 0, Refusal(411, words.NO_LENGTH)
    if not _LENGTH.fullmatch(lengths[0].strip()):
        return 0, Refusal(400, words.BAD_LENGTH)
    size = int(lengths[0])
    if size > BODY_LIMIT:
        return size, Refusal(413, words.TOO_LARGE.format(limit=BODY_LIMIT // (1024 * 1024)))
    return size, None


class AgentHTTPServer(ThreadingHTTPServer):
    """The listening socket and what every connection's handler needs."""

    daemon_threads = True
    block_on_close = False
    # Windows lets a second socket bind a port marked reusable; there it is held exclusively instead.
    allow_reuse_address = sys.platform != "win32"

    def __init__(
        self,
        port: int,
        token: str,
        protocol: Protocol,
        sessions: Sessions,
        mask: Callable[[str], str],
    ) -> None:
        self.protocol = protocol
        self.sessions = sessions
        self.mask = mask
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        super().__init__(("127.0.0.1", port), Handler)
        self.gate = Gate(token, self.server_address[1])

    def server_bind(self) -> None:
        if sys.platform == "win32":
            self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_EXCLUSIVEADDRUSE, 1)  # type: ignore[attr-defined]
        super().server_bind()

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):
            log.warning("Kiln's agent server turned a connection away: %d are open already", MAX_CONNECTIONS)
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        log.exception("Kiln's agent server failed on a connection")


class EventStream:
    """The answer to one request as server-sent events: progress notifications, then the response."""

    def __init__(self, out: io.BufferedIOBase, token: jsonrpc.RequestId, mask: Callable[[str], str]) -> None:
        self._out = out
        self._token = token
        self._mask = mask
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed

    def write(self, message: dict[str, Any]) -> None:
        if self._closed:
            return
        data = self._mask(jsonrpc.encode(message))
        try:
            self._out.write(f"event: message\ndata: {data}\n\n".encode("ascii"))
            self._out.flush()
        except OSError:
            self._closed = True

    def send(self, progress: float, total: float | None, message: str) -> None:
        params: dict[str, Any] = {"progressToken": self._token, "progress": progress, "message": message}
        if total is not None:
            params["total"] = total
        self.write(jsonrpc.notification("notifications/progress", params))


class Handler(BaseHTTPRequestHandler):
    server: AgentHTTPServer
    protocol_version = "HTTP/1.1"
    timeout = SOCKET_TIMEOUT
    # Headers and body leave in separate writes; with Nagle's algorithm the body would wait for the
    # client's delayed acknowledgement (about 40 ms on every answer of a kept-alive connection).
    disable_nagle_algorithm = True

    def version_string(self) -> str:
        return "Kiln"

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("Agent HTTP %s: " + format, self.client_address[0], *args)

    # --- the gate, for every method ---------------------------------------------------------------
    def _refusal(self) -> Refusal | None:
        refusal = self.server.gate.check(self.headers)
        if refusal is None and urlsplit(self.path).path != ENDPOINT:
            refusal = Refusal(404, words.NOT_FOUND)
        return refusal

    def handle_expect_100(self) -> bool:
        """Say "go on" only to a request that may send its body (else it would send it for nothing)."""
        refusal = self._refusal() or declared_length(self.headers)[1]
        if refusal is not None:
            self._refuse(refusal)
            return False
        return super().handle_expect_100()

    def _serve(self, handle: Callable[[], None]) -> None:
        refusal = self._refusal()
        if refusal is not None:
            self._refuse(refusal)
            return
        handle()

    def do_POST(self) -> None:
        self._serve(self._post)

    def do_DELETE(self) -> None:
        self._serve(self._delete)

    def do_GET(self) -> None:
        self._serve(self._not_allowed)

    do_PUT = do_PATCH = do_HEAD = do_OPTIONS = do_GET

    # --- answers ---------------------------------------------------------------------------------
    def _send(
        self, status: int, body: str = "", headers: Iterable[tuple[str, str]] = (), close: bool = False
    ) -> None:
        data = self.server.mask(body).encode("ascii") if body else b""
        self.send_response(status)
        if data:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        for name, value in headers:
            self.send_header(name, value)
        if close:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        if data and self.command != "HEAD":
            self.wfile.write(data)

    def _send_message(
        self, status: int, message: dict[str, Any], headers: Iterable[tuple[str, str]] = ()
    ) -> None:
        self._send(status, jsonrpc.encode(message), headers)

    def _refuse(self, refusal: Refusal) -> None:
        """An answer before the body was read: the connection closes (its unread body goes with it)."""
        body = jsonrpc.encode(jsonrpc.error(None, INVALID_REQUEST, refusal.reason))
        self._send(refusal.status, body, refusal.headers, close=True)

    def _not_allowed(self) -> None:
        self._refuse(Refusal(405, words.METHOD_NOT_ALLOWED, (("Allow", "POST, DELETE"),)))

    # --- POST ------------------------------------------------------------------------------------
    def _read_body(self) -> bytearray | None:
        """The body, or None once the request was answered (refused) or the client went away."""
        size, refusal = declared_length(self.headers)
        if refusal is not None:
            self._refuse(refusal)
            return None
        body = bytearray()
        deadline = time.monotonic() + BODY_DEADLINE
        try:
            while len(body) < size:
                if time.monotonic() > deadline:
                    raise TimeoutError
                chunk = self.rfile.read1(min(size - len(body), _CHUNK))
                if not chunk:
                    self.close_connection = True
                    return None
                body += chunk
        except TimeoutError:
            self._refuse(Refusal(408, words.SLOW_BODY))
            return None
        return body  # not copied: a body may be close to the cap

    def _post(self) -> None:
        media = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if media != "application/json":
            self._refuse(Refusal(415, words.NOT_JSON_TYPE))
            return
        json_ok, stream_ok = accepts(self.headers.get("Accept"))
        if not (json_ok or stream_ok):
            self._refuse(Refusal(406, words.NOT_ACCEPTABLE))
            return
        body = self._read_body()
        if body is None:
            return
        try:
            message = jsonrpc.parse(body)
        except RpcError as exc:
            self._send_message(400, jsonrpc.error_of(exc))
            return
        request_id = message.id if isinstance(message, Request) else None
        version = self.headers.get(VERSION_HEADER)
        if version is not None and version.strip() not in VERSIONS:
            said = words.UNSUPPORTED_VERSION.format(
                versions=", ".join(VERSIONS), requested=ascii(version[:40])
            )
            data = {"supported": list(VERSIONS), "requested": version[:40]}
            self._send_message(400, jsonrpc.error(request_id, UNSUPPORTED_PROTOCOL_VERSION, said, data))
            return
        session_id = self.headers.get(SESSION_HEADER)
        if isinstance(message, Request) and message.method == "initialize":
            if session_id is not None:
                self._send_message(
                    400, jsonrpc.error(request_id, INVALID_REQUEST, words.SESSION_WITH_INITIALIZE)
                )
                return
            opened, answer = self.server.protocol.initialize(message)
            self._send_message(200, answer, ((SESSION_HEADER, opened.id),))
            return
        session = self._session(session_id, request_id)
        if session is None:
            return
        if not isinstance(message, Request):
            self._send(202)  # a notification (initialized, cancelled) or a response: nothing to answer
            return
        if message.progress_token is not None and stream_ok:
            self._stream(session, message)
        else:
            self._send_message(200, self.server.protocol.answer(session, message, None))

    def _session(self, session_id: str | None, request_id: jsonrpc.RequestId | None) -> Session | None:
        """The live session the request names; None once the request was answered with why not."""
        if session_id is None:
            self._send_message(400, jsonrpc.error(request_id, INVALID_REQUEST, words.NO_SESSION))
            return None
        session = self.server.sessions.get(session_id.strip())
        if session is None:
            self._send_message(404, jsonrpc.error(request_id, INVALID_REQUEST, words.UNKNOWN_SESSION))
        return session

    def _stream(self, session: Session, request: Request) -> None:
        assert request.progress_token is not None
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Connection", "close")  # the stream ends with the answer; its end is the close
        self.close_connection = True
        self.end_headers()
        stream = EventStream(self.wfile, request.progress_token, self.server.mask)
        stream.write(self.server.protocol.answer(session, request, stream))

    # --- DELETE ----------------------------------------------------------------------------------
    def _delete(self) -> None:
        session_id = self.headers.get(SESSION_HEADER)
        if session_id is None:
            self._send_message(400, jsonrpc.error(None, INVALID_REQUEST, words.NO_SESSION))
        elif self.server.sessions.end(session_id.strip()):
            log.info("An agent ended its session")
            self._send(200, close=True)  # a body sent with a DELETE is never read
        else:
            self._send_message(404, jsonrpc.error(None, INVALID_REQUEST, words.UNKNOWN_SESSION))
