"""Agent sessions: who is connected, under which protocol version, and what each has spent.

``initialize`` opens a session and the client sends its id (``Mcp-Session-Id``) with every later
message; DELETE ends it, and so does the artist's Disconnect (:meth:`Sessions.end_all`). Ids are
random and unguessable. At most :data:`MAX_SESSIONS` live at once: a new one pushes out the one
unused longest, whose agent is told to start again (404) when it comes back.
"""

from __future__ import annotations

import secrets
import threading
import time
import unicodedata
from dataclasses import dataclass, field

from .budget import Budget, BudgetLimits, Spending

MAX_SESSIONS = 16
MAX_AGENT_NAME = 64
UNNAMED_AGENT = "an agent"


def agent_name(client_info: object) -> str:
    """The client's own name and version from ``initialize`` (untrusted: printable, bounded)."""
    if not isinstance(client_info, dict):
        return UNNAMED_AGENT
    parts = [client_info.get("name"), client_info.get("version")]
    text = " ".join(part for part in parts if isinstance(part, str) and part.strip())
    text = "".join(c for c in text if c.isprintable() and unicodedata.category(c) not in ("Cf", "Co"))
    return " ".join(text.split())[:MAX_AGENT_NAME] or UNNAMED_AGENT


@dataclass
class Session:
    id: str
    version: str
    agent: str
    budget: Budget
    started: float = field(default_factory=time.time)
    last_seen: float = field(default_factory=time.monotonic)


@dataclass(frozen=True)
class SessionView:
    """A session as the Sidebar shows it."""

    agent: str
    started: float
    spending: Spending


class Sessions:
    def __init__(self, limits: BudgetLimits) -> None:
        self.limits = limits
        self._lock = threading.Lock()
        self._sessions: dict[str, Session] = {}

    def open(self, version: str, agent: str) -> Session:
        session = Session(secrets.token_urlsafe(24), version, agent, Budget(self.limits))
        with self._lock:
            while len(self._sessions) >= MAX_SESSIONS:
                oldest = min(self._sessions.values(), key=lambda s: s.last_seen)
                del self._sessions[oldest.id]
            self._sessions[session.id] = session
        return session

    def get(self, session_id: str) -> Session | None:
        with self._lock:
            session = self._sessions.get(session_id)
            if session is not None:
                session.last_seen = time.monotonic()
            return session

    def set_limits(self, limits: BudgetLimits) -> None:
        """New limits for every session, live ones included (what each has spent stays)."""
        with self._lock:
            self.limits = limits
            for session in self._sessions.values():
                session.budget.set_limits(limits)

    def end(self, session_id: str) -> bool:
        with self._lock:
            return self._sessions.pop(session_id, None) is not None

    def end_all(self) -> int:
        with self._lock:
            ended = len(self._sessions)
            self._sessions.clear()
            return ended

    def views(self) -> list[SessionView]:
        with self._lock:
            sessions = list(self._sessions.values())
        return [SessionView(s.agent, s.started, s.budget.spending()) for s in sessions]
