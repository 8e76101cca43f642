"""HTTPS checked against the system's trust store, as behind a company proxy that inspects HTTPS.

The stand-in service's certificate comes from a private certificate authority that only the
system trust store knows (``SSL_CERT_FILE``, as an IT department's root certificate would be
installed); requests' own bundle (certifi) has never heard of it.
"""

from __future__ import annotations

import json
import socket
import ssl
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import certifi
import pytest
import trustme

from api.errors import TLSError
from api.services.interface.client import Client

KEY = "tsk_live_Trust0123456789abcdef"


class TaskHandler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = json.dumps({"id": "task_1", "status": "queued", "progress": 0}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def private_ca() -> trustme.CA:
    return trustme.CA(organization_name="Example Corp proxy CA")


@pytest.fixture
def https_service(private_ca: trustme.CA) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), TaskHandler)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    private_ca.issue_cert("127.0.0.1").configure_cert(context)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"https://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def system_trusts(private_ca: trustme.CA, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The private CA installed in the 'system' store, and no CA-bundle override in the environment."""
    bundle = tmp_path / "system-ca.pem"
    private_ca.cert_pem.write_to_path(str(bundle))
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    for name in ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"):
        monkeypatch.delenv(name, raising=False)
    return bundle


def test_a_certificate_only_the_system_trusts_is_accepted(https_service: str, system_trusts: Path) -> None:
    assert "Example Corp" not in Path(certifi.where()).read_text()  # requests' bundle is unaware
    with Client(https_service, KEY) as client:
        task = client.get_task("task_1")
    assert task.id == "task_1"


def test_requests_ca_bundle_still_wins(
    https_service: str, system_trusts: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", certifi.where())
    with Client(https_service, KEY) as client, pytest.raises(TLSError) as caught:
        client.get_task("task_1")
    message = caught.value.user_message
    # The sentence says what an artist does; what IT does (REQUESTS_CA_BUNDLE…) is in Copy Details.
    assert "certificate could not be verified" in message and "REQUESTS_CA_BUNDLE" in caught.value.details
    assert KEY not in message and KEY not in caught.value.details


def test_python_ssl_module_is_left_alone(https_service: str, system_trusts: Path) -> None:
    """Other add-ons share Blender's Python: Kiln never injects truststore into the ssl module."""
    with Client(https_service, KEY) as client:
        client.get_task("task_1")
    assert ssl.SSLContext.__module__ == "ssl"
    plain = ssl.create_default_context(cafile=certifi.where())
    port = int(https_service.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port)) as raw, pytest.raises(ssl.SSLCertVerificationError):
        plain.wrap_socket(raw, server_hostname="127.0.0.1")


@pytest.mark.parametrize(
    ("platform", "words"),
    [("win32", "Windows' trusted root certificates"), ("darwin", "Keychain Access"), ("linux", "IT team")],
)
def test_the_certificate_sentence_says_what_to_do_on_each_system(platform: str, words: str) -> None:
    error = TLSError("api.example.com", "unable to get local issuer certificate", platform=platform)
    message = error.user_message
    assert words in message and "never turns this check off" in message
    # The machine room (certlm.msc, update-ca-certificates, REQUESTS_CA_BUNDLE) is for IT, in the details.
    assert "REQUESTS_CA_BUNDLE" not in message and "certlm.msc" not in message
    assert all(
        name in error.details for name in ("certlm.msc", "update-ca-certificates", "REQUESTS_CA_BUNDLE")
    )
