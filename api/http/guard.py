"""Deadlines that hold for a whole exchange, not per socket read.

``requests`` only offers a timeout per socket operation, so a server that drips one byte every
half second keeps a request alive forever. A :class:`Guard` is a total deadline (and, for
downloads, a throughput floor over a window); one watchdog thread cuts the connections of a
guard that runs out by shutting their sockets down, which wakes the blocked read at once (on
every OS). The connections register themselves: :class:`GuardedAdapter` makes urllib3 use
connection classes that attach to the guard active on the calling thread for each request they
send, whether the connection is new or reused from the keep-alive pool.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import urllib3.connection
import urllib3.connectionpool
from requests.adapters import HTTPAdapter

from .trust import system_trust

logger = logging.getLogger(__name__)

#: How often the watchdog looks at a guard's cancel event (seconds).
CANCEL_LOOK = 0.2


class Guard:
    """A total deadline and an optional throughput floor for one exchange (all its hops).

    ``floor`` is (bytes per second, window in seconds): the exchange is cut when a whole window
    passes with fewer than ``rate * window`` bytes received. ``cancel``, when set, cuts it too
    (a job's own time limit, or the artist's Cancel: ``cancelled`` is then true). ``tripped``
    names why it was cut.
    """

    def __init__(
        self,
        seconds: float | None = None,
        floor: tuple[float, float] | None = None,
        cancel: threading.Event | None = None,
    ) -> None:
        now = time.monotonic()
        self.seconds = seconds
        self.deadline = now + seconds if seconds is not None else None
        self.floor = floor
        self.cancel = cancel
        self.cancelled = False
        self._cancel_look = now + CANCEL_LOOK if cancel is not None else None
        self._window_end = now + floor[1] if floor else None
        self._window_bytes = 0
        self._connections: list[Any] = []
        self._lock = threading.Lock()
        self.tripped: str | None = None

    def remaining(self) -> float | None:
        return None if self.deadline is None else self.deadline - time.monotonic()

    def received(self, count: int) -> None:
        """Bytes arrived (called by the reader after every chunk)."""
        with self._lock:
            self._window_bytes += count

    def attach(self, connection: Any) -> None:
        """Watch ``connection`` and its current socket (http.client drops ``sock`` from a connection
        whose answer says "Connection: close", while the answer still reads from that socket)."""
        with self._lock:
            sock = getattr(connection, "sock", None)
            for item in (connection, sock):
                if item is not None and item not in self._connections:
                    self._connections.append(item)
            if self.tripped:
                self._cut_all()

    def due(self) -> float:
        """When the watchdog should look at this guard next (monotonic seconds)."""
        # An event cannot wake the watchdog, so it looks at a cancel event every CANCEL_LOOK instead.
        times = [t for t in (self.deadline, self._window_end, self._cancel_look) if t is not None]
        return min(times) if times else float("inf")

    def check(self, now: float) -> None:
        """Trip if cancelled, the deadline passed or the last window was too slow."""
        with self._lock:
            if self.tripped:
                return
            if self.cancel is not None and self.cancel.is_set():
                self.cancelled = True
                self._trip("the request was stopped")
                return
            if self._cancel_look is not None and now >= self._cancel_look:
                self._cancel_look = now + CANCEL_LOOK
            if self.deadline is not None and now >= self.deadline:
                self._trip(f"it did not finish answering within {self.seconds:g} s")
            elif self.floor and self._window_end is not None and now >= self._window_end:
                rate, window = self.floor
                if self._window_bytes < rate * window:
                    self._trip(f"the transfer stayed below {rate / 1024:g} KB/s for {window:g} s")
                else:
                    self._window_bytes, self._window_end = 0, now + window

    def _trip(self, reason: str) -> None:
        self.tripped = reason
        self._cut_all()

    def _cut_all(self) -> None:
        for item in self._connections:
            _cut(item if isinstance(item, socket.socket) else getattr(item, "sock", None))
        self._connections.clear()


def _cut(sock: Any) -> None:
    """Wake a read blocked on this socket: shutdown, not close (close would not wake it)."""
    if sock is None:
        return
    # The base method on purpose: SSLSocket.shutdown also drops its TLS state under the reader.
    with contextlib.suppress(OSError, TypeError):
        socket.socket.shutdown(sock, socket.SHUT_RDWR)


class _Watchdog:
    """One daemon thread for all guards while there are any; it sleeps until the earliest is due."""

    def __init__(self) -> None:
        self._guards: set[Guard] = set()
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None

    def add(self, guard: Guard) -> None:
        with self._changed:
            self._guards.add(guard)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="kiln-request-deadlines", daemon=True)
                self._thread.start()
            self._changed.notify()

    def discard(self, guard: Guard) -> None:
        with self._changed:
            self._guards.discard(guard)
            self._changed.notify()

    def _run(self) -> None:
        """Ends when no guard is left (an idle add-on, or one being disabled, keeps no thread)."""
        with self._changed:
            while self._guards:
                now = time.monotonic()
                for guard in list(self._guards):
                    if guard.due() <= now:
                        guard.check(now)
                        if guard.tripped:
                            self._guards.discard(guard)
                due = min((g.due() for g in self._guards), default=now)
                self._changed.wait(None if due == float("inf") else max(0.0, due - now))
            self._thread = None


_WATCHDOG = _Watchdog()
_active = threading.local()


@contextmanager
def guarding(guard: Guard) -> Iterator[Guard]:
    """Make ``guard`` the one connections on this thread attach to, and let the watchdog see it."""
    _WATCHDOG.add(guard)
    previous = getattr(_active, "guard", None)
    _active.guard = guard
    try:
        yield guard
    finally:
        _active.guard = previous
        _WATCHDOG.discard(guard)


def _attach_current(connection: Any) -> None:
    guard: Guard | None = getattr(_active, "guard", None)
    if guard is not None:
        guard.attach(connection)


class _GuardedHTTPConnection(urllib3.connection.HTTPConnection):
    def request(self, *args: Any, **kwargs: Any) -> Any:
        _attach_current(self)
        return super().request(*args, **kwargs)

    def getresponse(self, *args: Any, **kwargs: Any) -> Any:
        _attach_current(self)  # connected by now: its socket is known
        return super().getresponse(*args, **kwargs)


class _GuardedHTTPSConnection(urllib3.connection.HTTPSConnection):
    def request(self, *args: Any, **kwargs: Any) -> Any:
        _attach_current(self)
        return super().request(*args, **kwargs)

    def getresponse(self, *args: Any, **kwargs: Any) -> Any:
        _attach_current(self)
        return super().getresponse(*args, **kwargs)


class _GuardedHTTPPool(urllib3.connectionpool.HTTPConnectionPool):
    ConnectionCls = _GuardedHTTPConnection


class _GuardedHTTPSPool(urllib3.connectionpool.HTTPSConnectionPool):
    ConnectionCls = _GuardedHTTPSConnection


_GUARDED = {
    urllib3.connectionpool.HTTPConnectionPool: _GuardedHTTPPool,
    urllib3.connectionpool.HTTPSConnectionPool: _GuardedHTTPSPool,
}


def _use_guarded_pools(manager: Any) -> None:
    """Swap urllib3's plain pools for guarded ones (SOCKS and other custom pools are left alone)."""
    classes = getattr(manager, "pool_classes_by_scheme", None)
    if isinstance(classes, dict):
        manager.pool_classes_by_scheme = {k: _GUARDED.get(v, v) for k, v in classes.items()}


class GuardedAdapter(HTTPAdapter):
    """requests' adapter whose connections obey the calling thread's :class:`Guard`.

    It also verifies HTTPS against the system's trust store (:mod:`.trust`) unless a CA bundle
    was named (``REQUESTS_CA_BUNDLE``), which then wins as it does in requests.
    """

    def build_connection_pool_key_attributes(self, request: Any, verify: Any, cert: Any = None) -> Any:
        host_params, pool_kwargs = super().build_connection_pool_key_attributes(request, verify, cert)
        context = system_trust() if verify is True else None
        if context is not None:
            pool_kwargs["ssl_context"] = context
        return host_params, pool_kwargs

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        _use_guarded_pools(self.poolmanager)

    def proxy_manager_for(self, proxy: str, **proxy_kwargs: Any) -> Any:
        manager = super().proxy_manager_for(proxy, **proxy_kwargs)
        _use_guarded_pools(manager)
        return manager


def current_guard() -> Guard | None:
    """The guard active on this thread, if any (the reader asks it whether a cut was its doing)."""
    return getattr(_active, "guard", None)
