"""Outermost ASGI layer: records every request and injects the HTTP-level faults.

It sits outside FastAPI so a faulted request never reaches a handler, and so it still holds
uvicorn's own `receive`, through which it can reach the socket to drop the connection.
"""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from sandbox.state import Headers, RecordedRequest, SandboxState

SUBMIT_PATHS = frozenset({"/v1/3d/text-to-3d", "/v1/3d/image-to-3d"})

BAD_GATEWAY_HTML = """<html>
<head><title>502 Bad Gateway</title></head>
<body>
<center><h1>502 Bad Gateway</h1></center>
<hr><center>nginx</center>
</body>
</html>
"""


def endpoint_kind(method: str, path: str, kinds: dict[tuple[str, str], str] | None = None) -> str | None:
    """Fault scope of a request: submit, poll, files, or None (docs and the like are never faulted).

    ``kinds`` is a stand-in's own (method, path) → scope map (``app.state.fault_kinds``), read first.
    """
    if kinds and (method, path) in kinds:
        return kinds[(method, path)]
    if method == "POST" and path in SUBMIT_PATHS:
        return "submit"
    if method == "GET" and path.startswith("/v1/3d/tasks/"):
        return "poll"
    if path.startswith("/files/"):
        return "files"
    return None


def fault_response(fault: str, retry_after: int) -> Response:
    if fault == "502":
        return HTMLResponse(BAD_GATEWAY_HTML, status_code=502)
    if fault == "429":
        body = {"error": {"code": "rate_limited", "message": "Too many requests; slow down."}}
        return JSONResponse(body, status_code=429, headers={"Retry-After": str(retry_after)})
    if fault == "503":
        body = {"error": {"code": "service_unavailable", "message": "The service is busy; try again."}}
        return JSONResponse(body, status_code=503, headers={"Retry-After": str(retry_after)})
    body = {"error": {"code": "internal_error", "message": "Internal server error."}}
    return JSONResponse(body, status_code=500)


async def swallow(message: Message) -> None:
    """A response nobody receives: the request was handled, the answer is lost on the way."""


async def drop_connection(receive: Receive) -> None:
    """Close the socket without any response, like a crashed proxy (uvicorn's cycle owns the transport)."""
    cycle: Any = getattr(receive, "__self__", None)
    transport = getattr(cycle, "transport", None)
    if transport is None:
        raise RuntimeError("connection reset fault needs uvicorn's HTTP protocol")
    transport.abort()
    # Let connection_lost run so uvicorn sees the disconnect and does not try to answer with a 500.
    for _ in range(3):
        await asyncio.sleep(0)


class FaultMiddleware:
    def __init__(self, app: ASGIApp, state: SandboxState) -> None:
        self.app = app
        self.state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers((k.decode("latin-1").lower(), v.decode("latin-1")) for k, v in scope["headers"])
        record = RecordedRequest(method=scope["method"], path=scope["path"], headers=headers)
        state = self.state
        kinds = getattr(getattr(self.app, "state", None), "fault_kinds", None)
        kind = endpoint_kind(record.method, record.path, kinds)
        with state.lock:
            state.requests.append(record)
            if kind == "submit":
                state.submit_attempts += 1
            spec = state.faults

        async def recording_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                record.status = message["status"]
            await send(message)

        if kind is not None and kind in spec.scope:
            if spec.latency:
                await asyncio.sleep(spec.latency)
            fault = state.dice.http_fault(spec)
            if fault == "reset":
                await drop_connection(receive)
                return
            if fault == "lost":
                await self.app(scope, receive, swallow)
                await drop_connection(receive)
                return
            if fault is not None:
                await fault_response(fault, spec.retry_after)(scope, receive, recording_send)
                return
        await self.app(scope, receive, recording_send)
