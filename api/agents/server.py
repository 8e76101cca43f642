"""Kiln's agent server as the Blender side starts, shows and stops it.

``AgentServer(host, AgentSettings(token=…, port=…))``, then :meth:`~AgentServer.start` (binds
127.0.0.1 only and serves on a thread of its own; a port that is taken is a sentence),
:meth:`~AgentServer.sessions` for the Sidebar (who is connected, what each has spent),
:meth:`~AgentServer.disconnect` for its Disconnect button, :meth:`~AgentServer.change` when the
artist changes the budget or the allowed folders while it runs, and :meth:`~AgentServer.stop`, which
returns at once (the socket closes on a thread of its own) unless told to wait.
"""

from __future__ import annotations

import errno
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..errors import KilnError
from ..http.redact import redact
from . import words
from .budget import BudgetLimits
from .host import AgentHost
from .logs import SECRETS, log
from .protocol import Protocol, ServerInfo
from .sessions import Sessions, SessionView
from .transport import ENDPOINT, AgentHTTPServer

#: How often the serving thread looks whether it was asked to stop.
POLL_INTERVAL = 0.1


class AgentServerError(KilnError):
    """The server could not start: ``port_taken``, or the system's ``reason`` (for the artist's words)."""

    def __init__(self, message: str, port: int, *, port_taken: bool = False, reason: str = "") -> None:
        super().__init__(message)
        self.port = port
        self.port_taken = port_taken
        self.reason = reason


@dataclass(frozen=True)
class AgentSettings:
    token: str = field(repr=False)
    #: 0: the system picks a free port (``AgentServer.port`` says which).
    port: int = 0
    budget: BudgetLimits = field(default_factory=BudgetLimits)
    #: Folders whose image files an agent may name (resolved when compared); none by default.
    allowed_folders: tuple[Path, ...] = ()
    #: Kiln's version, as ``initialize`` names the server.
    version: str = ""


class AgentServer:
    def __init__(self, host: AgentHost, settings: AgentSettings) -> None:
        if not settings.token:
            raise ValueError("the agent server needs a token")
        self.host = host
        self.settings = settings
        self._stop = threading.Event()
        self._sessions = Sessions(settings.budget)
        self._protocol: Protocol | None = None
        self._httpd: AgentHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._secrets: tuple[str, ...] = ()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("the agent server is not running")
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}{ENDPOINT}"

    @property
    def running(self) -> bool:
        return self._httpd is not None and not self._stop.is_set()

    def mask(self, text: str) -> str:
        """``text`` with the token and the host's secrets (as they are now) masked."""
        text = SECRETS.mask(text)
        for secret in self.host.secrets():
            text = redact(text, secret)
        return text

    def start(self) -> None:
        if self._httpd is not None:
            raise RuntimeError("the agent server was started already")
        protocol = self._protocol = Protocol(
            self.host,
            self._sessions,
            self.settings.allowed_folders,
            self._stop,
            ServerInfo(self.settings.version),
        )
        self._secrets = (self.settings.token, *self.host.secrets())
        SECRETS.add(self._secrets)
        try:
            self._httpd = AgentHTTPServer(
                self.settings.port, self.settings.token, protocol, self._sessions, self.mask
            )
        except OSError as exc:
            SECRETS.discard(self._secrets)
            port = self.settings.port
            if exc.errno in (errno.EADDRINUSE, getattr(errno, "WSAEADDRINUSE", -1)):
                raise AgentServerError(words.PORT_IN_USE.format(port=port), port, port_taken=True) from None
            reason = exc.strerror or str(exc)
            raise AgentServerError(
                words.CANNOT_LISTEN.format(port=port, reason=reason), port, reason=reason
            ) from None
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, args=(POLL_INTERVAL,), name="kiln-agents", daemon=True
        )
        self._thread.start()
        log.info("Kiln's agent server listens at %s", self.url)

    def sessions(self) -> list[SessionView]:
        return self._sessions.views()

    def change(self, budget: BudgetLimits, allowed_folders: tuple[Path, ...]) -> None:
        """New limits and folders while serving: live sessions keep what they spent under the new
        limits (an artist who raises the budget lets an agent go on), and the next call reads the
        folders anew."""
        self.settings = replace(self.settings, budget=budget, allowed_folders=allowed_folders)
        self._sessions.set_limits(budget)
        if self._protocol is not None:
            self._protocol.allowed_folders = allowed_folders

    def disconnect(self) -> int:
        """End every agent session (each agent is told to start again); how many there were."""
        ended = self._sessions.end_all()
        if ended:
            log.info("The artist disconnected %d agent session(s)", ended)
        return ended

    def stop(self, timeout: float | None = None) -> None:
        """Stop serving; waits for the socket to close only when given a ``timeout``."""
        httpd = self._httpd
        if httpd is None or self._stop.is_set():
            return
        self._stop.set()
        self._sessions.end_all()

        def close() -> None:
            httpd.shutdown()
            httpd.server_close()
            SECRETS.discard(self._secrets)
            log.info("Kiln's agent server stopped")

        closer = threading.Thread(target=close, name="kiln-agents-stop", daemon=True)
        closer.start()
        if timeout is not None:
            closer.join(timeout)
