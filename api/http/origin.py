"""Where a request will really go, judged the way urllib3 (which makes the connection) reads it.

Python's ``urlsplit`` and urllib3's ``parse_url`` disagree on odd addresses (a backslash
before ``@`` is the classic): judging the origin with one parser while the other connects is
how a key reaches the wrong host. So an address is refused when the two disagree or when it
has anything :func:`api.checks.inputs.url_problem` refuses, and the origin used for the key decision
is urllib3's reading of the *prepared* URL (what requests hands to urllib3).
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from urllib3.util import parse_url

from ..checks.inputs import url_problem
from ..words import Entry
from ..words import catalogue as words

Origin = tuple[str, str, int]


def connect_origin(url: str) -> Origin:
    """(scheme, host, port) exactly as urllib3 will connect for ``url``."""
    parts = parse_url(url)
    scheme = (parts.scheme or "").lower()
    host = (parts.host or "").lower().strip("[]").rstrip(".")
    return scheme, host, parts.port or (443 if scheme == "https" else 80)


def address_problem(url: str, *, plain_http: bool = False) -> Entry | None:
    """Why Kiln will not open ``url`` (a catalogue sentence whose ``url`` names it), or None: the
    shared checks plus both parsers agreeing (``plain_http``: a keyless exchange may use http anywhere)."""
    problem = url_problem(url, plain_http=plain_http)
    if problem is not None:
        return problem
    try:
        theirs = connect_origin(url)
    except ValueError:  # urllib3's LocationParseError is a ValueError
        return words.ADDRESS_MALFORMED
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").strip("[]").rstrip(".")
    ours = (scheme, host, parts.port or (443 if scheme == "https" else 80))
    if ours != theirs:
        return words.ADDRESS_AMBIGUOUS
    return None


def is_local_host(host: str) -> bool:
    """This computer or a private, link-local or otherwise non-public address, written as such.

    Names are judged as written (no DNS lookup): ``localhost`` and ``*.localhost``, and literal IPs.
    """
    host = host.strip("[]").rstrip(".").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return not address.is_global


def host_label(url: str) -> str:
    """host[:port] for messages: never user info, path or query (signed URLs carry tokens)."""
    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port
    except ValueError:
        return "the service"
    if not host or not host.isprintable():
        return "the service"
    return f"{host}:{port}" if port else host


def loggable(url: str) -> str:
    """scheme://host[:port]/path for logs: the query (tokens) is left out."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "(unreadable address)"
    return ascii(f"{parts.scheme}://{host_label(url)}{parts.path[:200]}")[1:-1]
