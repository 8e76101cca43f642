"""What the artist is shown of the agent server in their Blender: where it listens, or why it does not.

The Blender side (``agents.serving``) publishes it on the main thread whenever it starts, stops or
fails to start the server; the preferences, a room below the Blender side's agents room, draw it
from here (as they draw the connection check's answer from ``api.features.connection_check``).
Plain values only: the problem is a catalogue ``Message``, said in the artist's words when drawn.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..words import Message


@dataclass(frozen=True)
class ServerStatus:
    #: Where agents reach Kiln ("" while no server runs).
    url: str = ""
    port: int = 0
    #: Why no server runs though one should, or None.
    problem: Message | None = None
    #: ``KILN_AGENT_PORT`` and ``KILN_AGENT_TOKEN`` chose the port and the token.
    from_environment: bool = False

    @property
    def running(self) -> bool:
        return bool(self.url)


#: The latest status; replaced whole, never changed in place, so a reader needs no lock.
current = ServerStatus()


def publish(status: ServerStatus) -> None:
    global current
    current = status
