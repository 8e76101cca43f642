"""A hostile stand-in of the service: a raw-socket HTTP server on loopback that does what it is told.

Unlike ``http.server`` it can drip bytes, send malformed status lines or headers, lie about
Content-Length and hang up mid-answer. Every request it receives is recorded (method, target,
headers, body) so a test can assert what reached it — above all, that the key never reached a
server playing "another origin".
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote


@dataclass
class Request:
    method: str
    target: str  # the request target as sent (path and query)
    headers: dict[str, str]  # lower-case names
    body: bytes
    raw: bytes  # the whole request as received


class Conn:
    """One accepted connection as a handler sees it: write raw bytes, or use the helpers."""

    def __init__(self, sock: socket.socket, server: HostileServer) -> None:
        self.sock = sock
        self.server = server
        self.sent = 0

    def write(self, data: bytes) -> bool:
        """Send bytes; False once the client has gone (a cut is what many tests expect)."""
        try:
            self.sock.sendall(data)
        except OSError:
            return False
        self.sent += len(data)
        return True

    def answer(
        self, status: int, body: bytes | str | dict[str, Any] | list[Any] = b"", **headers: str
    ) -> None:
        """A complete answer; dicts and lists become JSON. ``Content_Length=""`` leaves the header out."""
        if isinstance(body, dict | list):
            body, headers = json.dumps(body).encode(), {"Content_Type": "application/json", **headers}
        elif isinstance(body, str):
            body = body.encode()
        head = [f"HTTP/1.1 {status} X"]
        headers = {"Content_Length": str(len(body)), "Connection": "close", **headers}
        head += [f"{k.replace('_', '-')}: {v}" for k, v in headers.items() if v != ""]
        self.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body)

    def drip(self, data: bytes, every: float) -> None:
        """Send ``data`` one byte at a time, ``every`` seconds apart, until sent or the client leaves."""
        for i in range(len(data)):
            if not self.write(data[i : i + 1]) or self.server.closed.wait(every):
                return


Handler = Callable[[Conn, Request], None]


def json_answer(status: int, body: Any, **headers: str) -> Handler:
    return lambda conn, req: conn.answer(status, body, **headers)


def raw(data: bytes) -> Handler:
    return lambda conn, req: conn.write(data)


def redirect(location: str, status: int = 302) -> Handler:
    return lambda conn, req: conn.answer(status, b"", Location=location)


def dripping(status: int, body: bytes, every: float, *, headers_too: bool = False) -> Handler:
    """An answer whose body (and, with ``headers_too``, its status line) arrives a byte at a time."""

    def handler(conn: Conn, req: Request) -> None:
        head = f"HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nConnection: close\r\n"
        head += f"Content-Length: {len(body)}\r\n\r\n"
        if headers_too:
            conn.drip(head.encode() + body, every)
        else:
            conn.write(head.encode())
            conn.drip(body, every)

    return handler


def streaming(status: int, total: int, *, declare: bool = True, piece: int = 64 * 1024) -> Handler:
    """``total`` bytes of spaces, sent as fast as the client reads (a huge answer, for size caps)."""

    def handler(conn: Conn, req: Request) -> None:
        length = f"Content-Length: {total}\r\n" if declare else ""
        conn.write(f"HTTP/1.1 {status} X\r\nConnection: close\r\n{length}\r\n".encode())
        chunk = b" " * piece
        left = total
        while left > 0 and conn.write(chunk[: min(piece, left)]):
            left -= piece

    return handler


@dataclass
class HostileServer:
    """Serves ``routes`` on 127.0.0.1; unknown targets get a JSON 404.

    A route is the exact target, the path before '?', or that path percent-decoded (so a test can
    name a task's URL by the task id itself, whatever the client's quoting).
    """

    routes: dict[str, Handler] = field(default_factory=dict)
    seen: list[Request] = field(default_factory=list)
    connections: list[Conn] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.closed = threading.Event()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._accept, name=f"hostile-{self.port}", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self.closed.set()
        self._listener.close()
        for conn in list(self.connections):
            with contextlib.suppress(OSError):
                conn.sock.close()

    def bytes_sent(self) -> int:
        return sum(c.sent for c in self.connections)

    def _accept(self) -> None:
        while not self.closed.is_set():
            try:
                sock, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(sock,), daemon=True).start()

    def _serve(self, sock: socket.socket) -> None:
        conn = Conn(sock, self)
        with self._lock:
            self.connections.append(conn)
        try:
            sock.settimeout(10)
            request = _read_request(sock)
            if request is None:
                return
            with self._lock:
                self.seen.append(request)
            path = request.target.split("?")[0]
            handler = (
                self.routes.get(request.target) or self.routes.get(path) or self.routes.get(unquote(path))
            )
            if handler is None:
                conn.answer(404, {"error": {"message": "no such thing"}})
            else:
                handler(conn, request)
        except OSError:
            pass
        finally:
            time.sleep(0.05)  # let the client read the last bytes before the close
            with contextlib.suppress(OSError):
                sock.close()


def _read_request(sock: socket.socket) -> Request | None:
    data = b""
    while b"\r\n\r\n" not in data:
        piece = sock.recv(65536)
        if not piece:
            return None
        data += piece
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    method, target, _ = [*lines[0].split(" ", 2), "", ""][:3]
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0") or 0)
    while len(body) < length:
        piece = sock.recv(65536)
        if not piece:
            break
        body += piece
    return Request(method, target, headers, body, data[: len(head) + 4] + body)
