"""This Blender's agent server: started, changed and stopped to match what is wanted, its calls run
on the main thread by the watcher's pump.

Each beat of the watcher (``session.watcher``; this room gives it :func:`beat` as a duty) compares
what is wanted (``agents.settings``) with what runs: starts the server, gives a running one new
budget limits or folders, or stops it (a new port or token needs a new server). Then it copies the
plain values the server's workers answer from, runs the agents' calls waiting for the main thread
for a few milliseconds (``MainThreadBridge.drain``), and asks for the next beat soon while the
server runs: an agent's generate call is answered within about :data:`CONNECTED_SECONDS`.

A start that fails (the port is taken) is said in the preferences and not tried again until the
port or the token changes. What the artist is shown is published in ``api.agents.status``.

Background mode has no timers: there the serve operator's loop (``agents.background``) asks for a
server (:func:`ask`), beats the watcher itself and runs the agents' calls between beats (:func:`drain`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

import bpy

from ..api.agents import status as agent_status
from ..api.agents.environment import MIN_TOKEN_CHARS, PORT_VARIABLE, TOKEN_VARIABLE
from ..api.agents.status import ServerStatus
from ..api.words import Message, message
from ..api.words import catalogue as words
from ..drawing import tag_redraw
from . import settings
from .settings import Asked, EnvironmentUnusable, Wanted

if TYPE_CHECKING:
    from ..api.agents import AgentServer, AgentServerError, SessionView
    from .host import BlenderHost

log = logging.getLogger(__name__)

#: Seconds between beats while the server runs and nobody is connected, and while an agent is.
LISTENING_SECONDS = 0.25
CONNECTED_SECONDS = 0.1


@dataclass
class Running:
    server: AgentServer
    host: BlenderHost
    wanted: Wanted


_running: Running | None = None
#: The settings a start failed with: not tried again until the port or the token changes.
_failed: Wanted | None = None
#: What the serve operator asked for while it serves.
_asked: Asked | None = None
#: The sessions the Sidebar was last drawn with (it is redrawn when they change).
_shown: tuple[SessionView, ...] = ()


def sessions() -> list[SessionView]:
    """Who is connected and what each has spent (empty while no server runs)."""
    return _running.server.sessions() if _running is not None else []


def url() -> str:
    """Where agents reach Kiln, or "" while no server runs."""
    return _running.server.url if _running is not None else ""


def token() -> str:
    """The token of the running server ("" while none runs), for the client configuration."""
    return _running.wanted.token if _running is not None else ""


def disconnect() -> int:
    """End every agent session now; how many there were."""
    ended = _running.server.disconnect() if _running is not None else 0
    _redraw_if_changed()
    return ended


def beat() -> float | None:
    """The watcher's duty: match what runs to what is wanted, then run the agents' waiting calls."""
    context = bpy.context
    reconcile(context)
    running = _running
    if running is None:
        return None
    running.host.refresh(context)
    running.host.bridge.drain()
    connected = _redraw_if_changed()
    return CONNECTED_SECONDS if connected else LISTENING_SECONDS


def reconcile(context: bpy.types.Context) -> None:
    """Start, change or stop the server so it is what the settings want (main thread)."""
    global _failed
    try:
        wanted = settings.wanted(context, _asked)
    except EnvironmentUnusable:
        _stop()
        problem = message(
            words.AGENTS_ENVIRONMENT_UNUSABLE, port=PORT_VARIABLE, token=TOKEN_VARIABLE, least=MIN_TOKEN_CHARS
        )
        _publish(ServerStatus(problem=problem, from_environment=True))
        return
    if wanted is None:
        _failed = None
        _stop()
        _publish(ServerStatus())
        return
    running = _running
    if running is not None and running.wanted.same_door(wanted):
        if running.wanted != wanted:
            running.server.change(wanted.budget, wanted.folders)
            running.wanted = wanted
        return
    _stop()
    if _failed is not None and _failed.same_door(wanted):
        return
    _start(context, wanted)


def shutdown() -> None:
    """On unregister: no server, nothing waiting, nothing shown."""
    global _failed, _asked, _shown
    _stop()
    _failed, _asked, _shown = None, None, ()
    _publish(ServerStatus())


def ask(asked: Asked | None) -> None:
    """What the serve operator asks for while it serves (None: it stopped); tried even when a start
    with the same settings failed before."""
    global _asked, _failed
    _asked, _failed = asked, None


def drain(budget: float, wait: float) -> bool:
    """Run the agents' waiting calls (waiting up to ``wait`` for one); False when no server runs."""
    running = _running
    if running is None:
        return False
    running.host.bridge.drain(budget, wait=wait)
    return True


# --- inside --------------------------------------------------------------------------------------
def _start(context: bpy.types.Context, wanted: Wanted) -> None:
    global _running, _failed
    # Loaded when a server is first wanted: most Blenders never serve agents, and every start-up
    # would pay for the HTTP server, the protocol and the tools.
    from ..api.agents import AgentServer, AgentServerError, AgentSettings, MainThreadBridge
    from ..api.version import kiln_version
    from .host import BlenderHost

    host = BlenderHost(MainThreadBridge())
    host.refresh(context)
    server = AgentServer(
        host,
        AgentSettings(
            token=wanted.token,
            port=wanted.port,
            budget=wanted.budget,
            allowed_folders=wanted.folders,
            version=kiln_version(),
        ),
    )
    try:
        server.start()
    except AgentServerError as exc:
        host.bridge.close()
        _failed = wanted
        log.warning("%s", exc.user_message)
        _publish(ServerStatus(problem=_problem(exc), from_environment=wanted.from_environment))
        return
    _running, _failed = Running(server, host, wanted), None
    _publish(ServerStatus(url=server.url, port=server.port, from_environment=wanted.from_environment))


def _problem(exc: AgentServerError) -> Message:
    if exc.port_taken:
        return message(words.AGENTS_PORT_TAKEN, port=exc.port)
    return message(words.AGENTS_CANNOT_LISTEN, port=exc.port, reason=exc.reason)


def _stop() -> None:
    global _running
    running, _running = _running, None
    if running is not None:
        running.server.stop()
        running.host.bridge.close()
        _redraw_if_changed()


def _publish(status: ServerStatus) -> None:
    if status != agent_status.current:
        agent_status.publish(status)
        tag_redraw("PREFERENCES")
        tag_redraw()


def _redraw_if_changed() -> list[SessionView]:
    """The sessions now; the Sidebar is redrawn when they differ from what it shows."""
    global _shown
    connected = sessions()
    if tuple(connected) != _shown:
        _shown = tuple(connected)
        tag_redraw()
    return connected
