"""The door's checks, made on every request before anything else of it is read: Host, Origin, token.

* **Host** must name this computer (127.0.0.1, localhost or [::1]) with the server's own port. A web
  page whose site name an attacker points at 127.0.0.1 (DNS rebinding) still sends its own name as
  Host, so it is refused (403) even though its packets reach the loopback socket.
* **Origin**, when a browser sends one, must be a page on this computer (any port): a page from any
  other site is refused (403). Clients that are programs send no Origin.
* **The token** (``Authorization: Bearer TOKEN``), compared in constant time; missing or wrong: 401
  with ``WWW-Authenticate``, so a client knows to send one. Kiln makes the token
  (:func:`new_token`) and keeps it as it keeps the API key.

Host and Origin come first, as in the official SDK's ``transport_security``: a foreign page is told
"no" whatever it carries. The refusals' words are for the developer of the client.
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass
from email.message import Message
from urllib.parse import urlsplit

from ..checks.inputs import is_loopback_host
from . import words

#: 32 random bytes, URL-safe: 43 characters, valid in a header as is.
TOKEN_BYTES = 32
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


@dataclass(frozen=True)
class Refusal:
    """An HTTP answer given instead of handling a request: its status, words and extra headers."""

    status: int
    reason: str
    headers: tuple[tuple[str, str], ...] = ()


class Gate:
    """The checks for a server listening on ``port`` that accepts ``token``."""

    def __init__(self, token: str, port: int) -> None:
        if not token:
            raise ValueError("the agent server needs a token")
        self._token = token.encode("utf-8")
        self._hosts = frozenset(f"{name}:{port}" for name in LOOPBACK_NAMES) | (
            frozenset(LOOPBACK_NAMES) if port == 80 else frozenset()
        )

    def check(self, headers: Message) -> Refusal | None:
        """None when the request may be read on; else the refusal to send."""
        hosts = headers.get_all("Host") or []
        if len(hosts) != 1 or hosts[0].strip().lower() not in self._hosts:
            return Refusal(403, words.FOREIGN_HOST)
        origins = headers.get_all("Origin") or []
        if len(origins) > 1 or (origins and not _is_loopback_origin(origins[0])):
            return Refusal(403, words.FOREIGN_ORIGIN)
        given = headers.get_all("Authorization") or []
        if not given:
            return Refusal(401, words.NO_TOKEN, (("WWW-Authenticate", 'Bearer realm="kiln"'),))
        scheme, _, token = given[0].strip().partition(" ")
        if len(given) != 1 or scheme.lower() != "bearer" or not self._matches(token.strip()):
            challenge = 'Bearer realm="kiln", error="invalid_token"'
            return Refusal(401, words.WRONG_TOKEN, (("WWW-Authenticate", challenge),))
        return None

    def _matches(self, token: str) -> bool:
        return hmac.compare_digest(token.encode("utf-8", "replace"), self._token)


def _is_loopback_origin(origin: str) -> bool:
    """http(s)://HOST[:PORT] with HOST on this computer; "null" (a sandboxed or file page) is not."""
    parts = urlsplit(origin.strip())
    try:
        parts.port  # noqa: B018 - raises ValueError for a malformed port
    except ValueError:
        return False
    return (
        parts.scheme in ("http", "https")
        and "@" not in parts.netloc
        and parts.path in ("", "/")
        and not parts.query
        and is_loopback_host(parts.hostname)
    )
