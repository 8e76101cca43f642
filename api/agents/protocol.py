"""MCP's messages as Kiln answers them, apart from HTTP: the handshake, ping and the tools.

Kiln speaks the initialize-handshake revisions of MCP over Streamable HTTP, newest first
(:data:`VERSIONS`). ``initialize`` negotiates as the specification says: the client's version when
Kiln speaks it, else Kiln's newest, which the client may decline. (The SDK's 2026 revisions start
with a ``server/discover`` probe instead; the transport answers it with the versions Kiln speaks, and
the SDK's client then falls back to the handshake.) Kiln offers tools only: no resources, prompts,
logging or sampling, so those methods are "not found".
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import tools, words
from .calls import Call, Progress
from .host import AgentHost
from .jsonrpc import (
    INTERNAL_ERROR,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    Request,
    RpcError,
    error,
    error_of,
    result,
)
from .logs import log
from .sessions import Session, Sessions, agent_name

VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26")
LATEST = VERSIONS[0]

INSTRUCTIONS = (
    "Kiln turns a text prompt or one concept image into a 3D mesh in the artist's open Blender scene, "
    "through a paid cloud service. estimate_cost says what a request costs and whether the artist's "
    "library already has it (free). generate_from_text and generate_from_image answer at once with a "
    "job id; follow it with get_job and wait_seconds (up to 25 per call) until the mesh is in the "
    "scene. Each session has a budget of credits and jobs set by the artist."
)


def negotiate(requested: object) -> str:
    """The version to speak: the client's when Kiln speaks it, else Kiln's newest."""
    return requested if isinstance(requested, str) and requested in VERSIONS else LATEST


@dataclass(frozen=True)
class ServerInfo:
    version: str = ""
    name: str = "kiln"
    title: str = "Kiln"

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "title": self.title, "version": self.version or "0"}


class Protocol:
    def __init__(
        self,
        host: AgentHost,
        sessions: Sessions,
        allowed_folders: tuple[Path, ...],
        stop: threading.Event,
        info: ServerInfo,
    ) -> None:
        self.host = host
        self.sessions = sessions
        self.allowed_folders = allowed_folders
        self.stop = stop
        self.info = info

    def initialize(self, request: Request) -> tuple[Session, dict[str, Any]]:
        """A new session for the client, and the answer to its ``initialize``."""
        version = negotiate(request.params.get("protocolVersion"))
        session = self.sessions.open(version, agent_name(request.params.get("clientInfo")))
        log.info("An agent connected: %s (MCP %s)", session.agent, version)
        answer = {
            "protocolVersion": version,
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": self.info.to_json(),
            "instructions": INSTRUCTIONS,
        }
        return session, result(request.id, answer)

    def answer(self, session: Session, request: Request, progress: Progress | None) -> dict[str, Any]:
        """The response to one request in ``session`` (a result or an error, never an exception)."""
        try:
            return result(request.id, self._answer(session, request, progress))
        except RpcError as exc:
            return error_of(exc, request.id)
        except Exception:
            log.exception("Kiln's agent server failed to answer %s", ascii(request.method[:64]))
            return error(request.id, INTERNAL_ERROR, words.INTERNAL)

    def _answer(self, session: Session, request: Request, progress: Progress | None) -> dict[str, Any]:
        method = request.method
        if method == "ping":
            return {}
        if method == "tools/list":
            return {"tools": tools.listing()}
        if method == "tools/call":
            call = Call(self.host, session, self.allowed_folders, self.stop, progress)
            return tools.call_tool(request.params.get("name"), request.params.get("arguments"), call)
        if method == "initialize":
            raise RpcError(INVALID_REQUEST, words.SESSION_WITH_INITIALIZE)
        raise RpcError(METHOD_NOT_FOUND, words.UNKNOWN_METHOD.format(method=ascii(method[:64])))
