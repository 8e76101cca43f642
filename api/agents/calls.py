"""One tool call's surroundings: the host, the session, where progress goes, and the server's stop."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from .host import AgentHost
from .sessions import Session

#: How often a waiting get_job asks the host again (and may send a progress notification).
WAIT_STEP = 1.0


class Progress(Protocol):
    """Where a call's progress notifications go (the request's event stream)."""

    @property
    def closed(self) -> bool:
        """The client went away: nobody reads what is sent."""
        ...

    def send(self, progress: float, total: float | None, message: str) -> None: ...


@dataclass(frozen=True)
class Call:
    host: AgentHost
    session: Session
    allowed_folders: tuple[Path, ...]
    stop: threading.Event
    progress: Progress | None = None
    wait_step: float = WAIT_STEP

    @property
    def abandoned(self) -> bool:
        """Nobody waits for the answer any more (the client left, or the server is stopping)."""
        return self.stop.is_set() or (self.progress is not None and self.progress.closed)
