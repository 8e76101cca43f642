"""The stand-in of Hunyuan3D-2's ``api_server.py`` (2.0): :mod:`sandbox.standins.hunyuan3d` as 2.0."""

from __future__ import annotations

from fastapi import FastAPI

from sandbox.standins import hunyuan3d
from sandbox.state import SandboxState


def create_app(state: SandboxState) -> FastAPI:
    return hunyuan3d.create_app(state, version="2.0")
