"""The Blender side of Kiln's agent server: an MCP server in the artist's Blender (``api.agents``
is the protocol layer, without Blender).

Off by default. When Allow Agents is on (Preferences ▸ Kiln ▸ Agents), or ``KILN_AGENT_PORT`` and
``KILN_AGENT_TOKEN`` are set, the server listens on 127.0.0.1 and its HTTP threads serve agents; every
touch of bpy waits in a queue the watcher's pump drains on the main thread each beat, a few
milliseconds at a time, so the UI never waits on an agent. In ``blender -b`` the serve operator
drains it instead. Bottom first:

* ``access`` — the access token: made by Kiln, kept as the API key is kept.
* ``settings`` — what server is wanted: the environment, the serve operator, the preferences.
* ``views`` — Kiln's jobs as the tools report them.
* ``actions`` — what an agent's call does in the open scene (start a job, import, reuse, cancel).
* ``host`` — ``api.agents.AgentHost`` implemented: plain values on the workers, the rest on the
  main thread through the bridge.
* ``serving`` — the one running server: started, changed and stopped on the watcher's beat, its
  calls drained there.
* ``background`` — the serving loop of ``bpy.ops.kiln.serve_agents`` in ``blender -b``.

Operators (``operators/agents.py``) and panels (``panels/agents.py``) call into this room; it
never imports them.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import TYPE_CHECKING

from ..registration import release_loaded
from ..session import watcher

if TYPE_CHECKING:
    from . import access, actions, background, host, serving, settings, views  # noqa: F401

#: The room's modules, loaded on first use (``agents.serving`` and so on): most Blenders never serve
#: agents, so registering Kiln loads none of them; the watcher's first beat loads what it asks.
_LAZY = frozenset({"access", "actions", "background", "host", "serving", "settings", "views"})


def __getattr__(name: str) -> ModuleType:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return importlib.import_module(f".{name}", __name__)


def _serve() -> float | None:
    """The watcher's duty: the server's beat (``serving.beat``)."""
    from . import serving

    return serving.beat()


def register() -> None:
    watcher.add_duty(_serve)


#: What each loaded module of the room lets go of on unregister (one never loaded holds nothing).
_RELEASES = (("serving", "shutdown"), ("access", "forget"), ("settings", "forget_environment"))


def unregister() -> None:
    """Let go of what the loaded modules hold; loads none (their files may be gone: an update)."""
    watcher.remove_duty(_serve)
    release_loaded(__name__, _RELEASES)
