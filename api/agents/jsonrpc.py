"""JSON-RPC 2.0 as MCP uses it: one message per HTTP body, read strictly, written as ASCII JSON.

A body is a request (``id`` and ``method``), a notification (``method``, no ``id``) or a response
to a request of ours (``id`` and ``result`` or ``error``; Kiln sends no requests, so these are
only acknowledged). Batches (a JSON array) were dropped from MCP in 2025-06-18 and are refused.
Everything that is not one of these shapes is an :class:`RpcError` with the standard code.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from . import words

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
#: MCP's code for "this protocol version is not spoken here" (data: ``supported``, ``requested``).
UNSUPPORTED_PROTOCOL_VERSION = -32022

RequestId = str | int


class RpcError(Exception):
    """A JSON-RPC error to answer with; ``request_id`` when the message's id could be read."""

    def __init__(
        self, code: int, message: str, data: Any = None, request_id: RequestId | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data
        self.request_id = request_id


@dataclass(frozen=True)
class Request:
    id: RequestId
    method: str
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def progress_token(self) -> RequestId | None:
        """The token the client asked progress notifications under (``params._meta.progressToken``)."""
        meta = self.params.get("_meta")
        token = meta.get("progressToken") if isinstance(meta, dict) else None
        return token if _is_id(token) else None


@dataclass(frozen=True)
class Notification:
    method: str
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Response:
    """A client's answer to a request of ours (Kiln makes none; it is acknowledged and dropped)."""

    id: RequestId | None


Message = Request | Notification | Response


def _is_id(value: object) -> bool:
    return isinstance(value, str | int) and not isinstance(value, bool)


def _refuse_constant(name: str) -> float:
    raise ValueError(f"{name} is not JSON")


def parse(body: bytes | bytearray) -> Message:
    """The message in ``body``; RpcError (parse error or invalid request) when there is none."""
    try:
        data = json.loads(body, parse_constant=_refuse_constant)
    except (ValueError, RecursionError):
        raise RpcError(PARSE_ERROR, words.NOT_JSON) from None
    if isinstance(data, list):
        raise RpcError(INVALID_REQUEST, words.BATCH)
    if not isinstance(data, dict) or data.get("jsonrpc") != "2.0":
        raise RpcError(INVALID_REQUEST, words.NOT_MESSAGE)
    has_id = "id" in data
    request_id = data.get("id")
    if has_id and request_id is not None and not _is_id(request_id):
        raise RpcError(INVALID_REQUEST, words.NOT_MESSAGE)
    method = data.get("method")
    if method is None:
        if has_id and ("result" in data) != ("error" in data):
            return Response(request_id)
        raise RpcError(INVALID_REQUEST, words.NOT_MESSAGE, request_id=request_id)
    if not isinstance(method, str) or (has_id and request_id is None):
        raise RpcError(INVALID_REQUEST, words.NOT_MESSAGE, request_id=request_id)
    params = data.get("params", {})
    if not isinstance(params, dict):
        raise RpcError(INVALID_PARAMS, words.PARAMS_NOT_OBJECT, request_id=request_id)
    if has_id:
        assert request_id is not None
        return Request(request_id, method, params)
    return Notification(method, params)


def result(request_id: RequestId, value: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": value}


def error(request_id: RequestId | None, code: int, message: str, data: Any = None) -> dict[str, Any]:
    body: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        body["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": body}


def error_of(exc: RpcError, request_id: RequestId | None = None) -> dict[str, Any]:
    return error(
        exc.request_id if exc.request_id is not None else request_id, exc.code, exc.message, exc.data
    )


def notification(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "params": params}


def encode(message: dict[str, Any]) -> str:
    """Compact JSON, ASCII only (a lone surrogate an agent sent can never break the encoding)."""
    return json.dumps(message, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
