"""A service that takes no key (a studio's own server, ``ServiceInfo.needs_key=False``): its client is
made with an empty key and sends no Authorization header; a service that takes one still refuses an
empty key before anything is sent."""

from __future__ import annotations

import dataclasses
import http.server
import sys
import threading
from collections.abc import Iterator

import pytest

from api.errors import InputError
from api.features import service_access
from api.http.client import ServiceClient
from api.services import register_service, unregister_service
from api.services.interface import INFO as CUSTOM


class _Keyless(ServiceClient):
    info = dataclasses.replace(CUSTOM, id="KEYLESS", needs_key=False, default_address="http://127.0.0.1:8188")


class _Keyed(ServiceClient):
    info = CUSTOM


@pytest.fixture
def server() -> Iterator[tuple[str, list[dict[str, str]]]]:
    """A loopback server that answers every GET with {} and keeps each request's headers."""
    seen: list[dict[str, str]] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append({k.lower(): v for k, v in self.headers.items()})
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *args: object) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", seen
    httpd.shutdown()
    httpd.server_close()


def test_a_keyless_service_is_sent_no_authorization(server: tuple[str, list[dict[str, str]]]) -> None:
    base, seen = server
    with _Keyless(base, "") as client:
        client._http.get(f"{base}/status").close()
    assert seen and "authorization" not in seen[0]


def test_a_service_that_takes_a_key_still_refuses_an_empty_one() -> None:
    with pytest.raises(InputError):
        _Keyed("http://127.0.0.1:9", "")


def test_a_keyless_services_credentials_hold_no_key_and_its_usual_address() -> None:
    """The environment's key is not taken for a service that takes none; its usual address stands in."""
    keyless = dataclasses.replace(
        CUSTOM, id="KEYLESS", needs_key=False, default_address="http://127.0.0.1:8188"
    )
    module = type(sys)("keyless_info")
    module.INFO = keyless  # type: ignore[attr-defined]
    sys.modules["keyless_info"] = module
    register_service("KEYLESS", "keyless_info", package="")
    try:
        found = service_access.credentials("typed", "", {keyless.key_env: "from-env"}, "KEYLESS")
        assert (found.api_key, found.base_url) == ("", "http://127.0.0.1:8188")
    finally:
        unregister_service("KEYLESS")
        del sys.modules["keyless_info"]
