"""Stand-ins of the services Kiln speaks to, each written from that service's public documentation.

Every stand-in is a FastAPI app made by ``create_app(state)`` over the sandbox's shared
:class:`sandbox.state.SandboxState` (keys, credits, tasks with real GLB meshes, faults, the record
of requests), speaking its service's own wire: paths, fields, states and errors as documented.
``Sandbox(service=…)`` and ``python -m sandbox --service …`` pick one.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fastapi import FastAPI

    from sandbox.state import SandboxState

#: The stand-in of each service, by the name ``--service`` takes (the interface document's service first).
APPS = {
    "interface": "sandbox.app",
    "tripo": "sandbox.standins.tripo",
    "meshy": "sandbox.standins.meshy",
    "rodin": "sandbox.standins.rodin",
    "fal": "sandbox.standins.fal",
    "comfyui": "sandbox.standins.comfyui",
    "hunyuan3d": "sandbox.standins.hunyuan3d",
    "hunyuan3d-2.0": "sandbox.standins.hunyuan3d_2_0",
}


def create_app(service: str, state: SandboxState) -> FastAPI:
    """The app of ``service``'s stand-in over ``state``."""
    if service not in APPS:
        raise ValueError(f"no stand-in called {service!r}; choose one of {', '.join(APPS)}")
    app: FastAPI = importlib.import_module(APPS[service]).create_app(state)
    return app
