"""`Sandbox`: the sandbox service run by uvicorn in a background thread (tests, CLI and demo).

It binds its sockets itself so `port=0` yields a known free port before serving starts, and
also listens on a second loopback address (127.0.0.2, same port when free) so the `cdn` fault
can hand out file URLs on a host that looks foreign to the client.
"""

from __future__ import annotations

import ipaddress
import logging
import socket
import threading
import time
from types import TracebackType
from typing import Any

import uvicorn

from sandbox.middleware import FaultMiddleware
from sandbox.standins import create_app
from sandbox.state import DEFAULT_KEY, RecordedRequest, SandboxState, Task, WebhookDelivery
from sandbox.webhooks import WebhookSender

log = logging.getLogger(__name__)

START_TIMEOUT_SECONDS = 15.0
CDN_HOST = "127.0.0.2"


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


class Sandbox:
    """Start/stop handle plus the knobs and records tests use (see sandbox/README.md)."""

    def __init__(
        self,
        keys: list[str] | None = None,
        credits: int = 1000,
        speed: float = 1.0,
        faults: str = "",
        seed: int = 0,
        text_cost: int = 1,
        host: str = "127.0.0.1",
        port: int = 0,
        service: str = "interface",
    ) -> None:
        #: Which service this sandbox stands in for (``sandbox.standins.APPS``).
        self.service = service
        self.host = host
        self.port = port
        self._state = SandboxState(
            keys=list(keys) if keys else [DEFAULT_KEY],
            credits=credits,
            speed=speed,
            faults=faults,
            seed=seed,
            text_cost=text_cost,
        )
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._sockets: list[socket.socket] = []
        self._webhooks = WebhookSender(self._state)

    # -- life -----------------------------------------------------------------------------------

    def start(self) -> Sandbox:
        """Bind, serve in a background thread, return once connections are accepted."""
        main = _bind(self.host, self.port)
        self.port = main.getsockname()[1]
        self._sockets = [main]
        self._bind_cdn()
        config = uvicorn.Config(
            FaultMiddleware(create_app(self.service, self._state), self._state),
            http="h11",
            lifespan="off",
            log_config=None,
            log_level="warning",
            access_log=False,
            timeout_graceful_shutdown=1,
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": self._sockets}, name="sandbox-uvicorn", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("the sandbox server did not start")
            time.sleep(0.01)
        self._webhooks.start()
        log.info("sandbox serving at %s (faults: %s)", self.base_url, self._state.faults.describe())
        return self

    def _bind_cdn(self) -> None:
        try:
            loopback_v4 = ipaddress.ip_address(self.host).is_loopback and ":" not in self.host
        except ValueError:
            loopback_v4 = False
        if not loopback_v4 or self.host == CDN_HOST:
            return
        for port in (self.port, 0):
            try:
                sock = _bind(CDN_HOST, port)
            except OSError:
                continue
            self._sockets.append(sock)
            self._state.cdn_base_url = f"http://{CDN_HOST}:{sock.getsockname()[1]}"
            return
        log.warning("cannot listen on %s; the cdn fault will keep files on the main host", CDN_HOST)

    def stop(self) -> None:
        """Stop serving and join the threads; safe to call twice."""
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None
        self._webhooks.stop()
        self._state.executor.shutdown(wait=False, cancel_futures=True)
        for sock in self._sockets:
            sock.close()
        self._sockets = []

    def __enter__(self) -> Sandbox:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # -- what tests look at ---------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        return f"http://{_url_host(self.host)}:{self.port}"

    @property
    def keys(self) -> frozenset[str]:
        return self._state.keys

    @property
    def cdn_base_url(self) -> str | None:
        """Base URL on the second loopback address (None when it could not be bound)."""
        return self._state.cdn_base_url

    @property
    def submit_count(self) -> int:
        """Submits that created a task (idempotent replays and rejected requests excluded)."""
        return self._state.submit_count

    @property
    def submit_attempts(self) -> int:
        """Every POST to a submit endpoint that reached the server, whatever its outcome."""
        return self._state.submit_attempts

    @property
    def requests(self) -> list[RecordedRequest]:
        return self._state.requests

    @property
    def tasks(self) -> dict[str, Task]:
        return self._state.tasks

    @property
    def webhooks(self) -> list[WebhookDelivery]:
        return self._state.webhooks

    def credits_left(self, key: str) -> int:
        return self._state.credits[key]

    # -- what tests change ----------------------------------------------------------------------

    def set_faults(self, spec: str) -> None:
        self._state.set_faults(spec)

    def forget_tasks(self) -> None:
        self._state.forget_tasks()

    def complete_now(self, task_id: str, timeout: float = 60.0) -> None:
        """Finish a task at once (waits for its mesh, which is built in the background)."""
        task = self._state.tasks[task_id]
        task.artifacts.result(timeout=timeout)
        task.forced = ("completed", None)

    def fail_now(self, task_id: str, error: Any = "Forced failure.") -> None:
        self._state.tasks[task_id].forced = ("failed", error)
