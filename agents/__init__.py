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

from ..session import watcher
from . import access, serving, settings


def register() -> None:
    settings.read_environment()
    watcher.add_duty(serving.beat)


def unregister() -> None:
    watcher.remove_duty(serving.beat)
    serving.shutdown()
    access.forget()
