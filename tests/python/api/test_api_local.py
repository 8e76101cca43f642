"""The client against small HTTP servers of our own on loopback: what the sandbox cannot stage.

Real sockets throughout: a stand-in service on 127.0.0.1, a stand-in CDN on 127.0.0.2, a TLS
server with a self-signed certificate, a port nobody listens on, a `.invalid` host name. They
let each test pin one status, body, header or socket behaviour exactly.
"""

from __future__ import annotations

import json
import logging
import shutil
import socket
import struct
import subprocess
import sys
import threading
import time
import traceback
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import requests
from concepts import CONCEPTS

from api.checks.glb import check_glb
from api.checks.inputs import MAX_IMAGE_BYTES
from api.errors import (
    AuthError,
    BadRequestError,
    CancelledError,
    CreditsError,
    InputError,
    InvalidMeshError,
    KilnError,
    NetworkError,
    NotFoundError,
    OutcomeUnknownError,
    RateLimitError,
    ServiceError,
    StorageError,
    TLSError,
    UnsafeAddressError,
)
from api.http.answers import parse_retry_after
from api.http.models import TaskStatus
from api.http.retrying import DEFAULT_POLICY, RetryPolicy, SubmitVerdict
from api.services.interface.client import Client
from api.words import english_message

KEY = "sbx_live_LOCALsecret0123456789abcdef"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64  # image checks look at the magic only
SAMPLE = CONCEPTS / "chair.png"


@pytest.fixture(autouse=True)
def no_key_in_logs(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """Every test in this module runs with DEBUG logs (urllib3 included) and must not log the key."""
    caplog.set_level(logging.DEBUG)
    yield
    assert KEY not in caplog.text


# --------------------------------------------------------------------------- local servers


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]  # lower-case names
    body: bytes


Handler = Callable[[BaseHTTPRequestHandler, Seen], None]


class QuietServer(ThreadingHTTPServer):
    """Clients that hang up early (cancelled or capped downloads) are expected, not worth a traceback."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def send(
    h: BaseHTTPRequestHandler, status: int, body: bytes | str | dict[str, Any] = b"", **headers: str
) -> None:
    """Write one complete answer; dict bodies become JSON."""
    if isinstance(body, dict):
        body, headers = json.dumps(body).encode(), {"Content-Type": "application/json", **headers}
    elif isinstance(body, str):
        body = body.encode()
    h.send_response(status)
    for name, value in headers.items():
        h.send_header(name.replace("_", "-"), value)
    h.send_header("Content-Length", str(len(body)))
    h.end_headers()
    h.wfile.write(body)


def answer(status: int, body: bytes | str | dict[str, Any] = b"", **headers: str) -> Handler:
    return lambda h, seen: send(h, status, body, **headers)


def drop(h: BaseHTTPRequestHandler, seen: Seen) -> None:
    """Reset the connection after reading the request: the server got it, the client hears nothing."""
    h.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    h.close_connection = True


def task(task_id: str = "tsk_local", status: str = "queued", **extra: Any) -> dict[str, Any]:
    return {"id": task_id, "status": status, "resolution": 1536, "links": {"poll": "x"}, **extra}


class LocalServer:
    """A recording HTTP/1.1 server.

    ``routes[path]`` is a handler, or a list of handlers used one per request (the last repeats);
    ``fallback`` answers every other path (by default a JSON 404, like the service).
    """

    def __init__(self, host: str = "127.0.0.1", tls: tuple[Path, Path] | None = None, port: int = 0) -> None:
        self.seen: list[Seen] = []
        self.routes: dict[str, Handler | list[Handler]] = {}
        self.fallback: Handler = answer(404, {"error": {"code": "not_found", "message": "No such thing."}})
        server = self

        class RequestHandler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def handle_one(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                seen = Seen(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                server.seen.append(seen)
                route = server.routes.get(urlsplit(self.path).path)
                if isinstance(route, list):
                    route = route.pop(0) if len(route) > 1 else route[0]
                (route or server.fallback)(self, seen)

            do_GET = do_POST = handle_one

        self.httpd = QuietServer((host, port), RequestHandler)
        self.scheme = "http"
        if tls is not None:
            import ssl

            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*tls)
            self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
            self.scheme = "https"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.01,), daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"{self.scheme}://{host!s}:{port}"

    def paths(self, method: str | None = None) -> list[str]:
        return [s.path for s in self.seen if method in (None, s.method)]

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def stub() -> Iterator[LocalServer]:
    """A stand-in for the service on 127.0.0.1 (the base URL's origin)."""
    server = LocalServer("127.0.0.1")
    yield server
    server.close()


@pytest.fixture
def cdn() -> Iterator[LocalServer]:
    """A foreign host: same machine, different address, so a different origin."""
    server = LocalServer("127.0.0.2")
    yield server
    server.close()


def client_for(server: LocalServer | str, **kwargs: Any) -> Client:
    base = server if isinstance(server, str) else server.url
    return Client(base, KEY, **kwargs)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# --------------------------------------------------------------------------- construction


@pytest.mark.parametrize(
    "base",
    [
        "http://example.com",
        "ftp://127.0.0.1",
        "127.0.0.1:8000",
        "https://",
        "https://h/?x=1",
        "http://10.0.0.1",
    ],
)
def test_unsafe_or_malformed_base_url_is_refused(base: str) -> None:
    with pytest.raises(InputError):
        Client(base, KEY)


@pytest.mark.parametrize(
    "base",
    [
        "https://api.example.com",
        "http://127.0.0.1:9",
        "http://127.5.6.7",
        "http://localhost:1",
        "http://[::1]:1",
    ],
)
def test_https_or_loopback_base_url_is_accepted(base: str) -> None:
    assert Client(base + "/", KEY).base_url == base


@pytest.mark.parametrize("key", ["", "   ", "sbx_live_with space", "sbx_live_new\nline", "sbx_live_ünïcode"])
def test_a_malformed_key_is_refused_without_echoing_it(key: str) -> None:
    with pytest.raises(InputError) as caught:
        Client("https://api.example.com", key)
    assert not key.strip() or key.strip() not in str(caught.value)


def test_repr_masks_the_key() -> None:
    client = Client("https://api.example.com", KEY)
    assert KEY not in repr(client) and "***" in repr(client)


# --------------------------------------------------------------------------- input checks (no request)


def png_file(tmp_path: Path, data: bytes = PNG, name: str = "in.png") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def oversized(tmp_path: Path) -> Path:
    path = png_file(tmp_path, name="huge.png")
    with path.open("r+b") as f:
        f.truncate(MAX_IMAGE_BYTES + 1)  # sparse: instant, and still starts with the PNG magic
    return path


INPUT_CASES: dict[str, Callable[[Client, Path], object]] = {
    "empty prompt": lambda c, p: c.submit_text(""),
    "blank prompt": lambda c, p: c.submit_text(" \n\t "),
    "zero text resolution": lambda c, p: c.submit_text("a chair", resolution=0),
    "negative text resolution": lambda c, p: c.submit_text("a chair", resolution=-5),
    "text resolution as text": lambda c, p: c.submit_text("a chair", resolution="1024"),  # type: ignore[arg-type]
    "bool text resolution": lambda c, p: c.submit_text("a chair", resolution=True),
    "image model not text": lambda c, p: c.submit_text("a chair", image_model={"provider": 3}),  # type: ignore[dict-item]
    "no image": lambda c, p: c.submit_image(),
    "two images": lambda c, p: c.submit_image(path=png_file(p), url="https://example.com/a.png"),
    "missing file": lambda c, p: c.submit_image(path=p / "missing.png"),
    "directory": lambda c, p: c.submit_image(path=p),
    "unreadable path": lambda c, p: c.submit_image(path=png_file(p) / "child.png"),
    "empty file": lambda c, p: c.submit_image(path=png_file(p, b"")),
    "gif file": lambda c, p: c.submit_image(path=png_file(p, b"GIF89a" + bytes(50), "looks.png")),
    "oversized file": lambda c, p: c.submit_image(path=oversized(p)),
    "empty bytes": lambda c, p: c.submit_image(data=b""),
    "text bytes": lambda c, p: c.submit_image(data=b"hello"),
    "resolution 1000": lambda c, p: c.submit_image(data=PNG, resolution=1000),
    "resolution as text": lambda c, p: c.submit_image(data=PNG, resolution="1536"),  # type: ignore[arg-type]
    "http image url": lambda c, p: c.submit_image(url="http://example.com/a.png"),
    "ftp image url": lambda c, p: c.submit_image(url="ftp://example.com/a.png"),
    "empty image url": lambda c, p: c.submit_image(url=" "),
    "http webhook": lambda c, p: c.submit_image(data=PNG, webhook_url="http://hooks.example.com/x"),
    "blank task id": lambda c, p: c.get_task(" "),
    "http download": lambda c, p: c.download("http://cdn.example.com/m.glb", p / "m.glb"),
}


@pytest.mark.parametrize("case", INPUT_CASES)
def test_bad_input_is_refused_before_any_request(stub: LocalServer, tmp_path: Path, case: str) -> None:
    with client_for(stub) as client, pytest.raises(InputError) as caught:
        INPUT_CASES[case](client, tmp_path)
    assert caught.value.user_message.endswith((".", ")"))
    assert stub.seen == []


def test_loopback_http_urls_are_allowed_for_image_and_webhook(stub: LocalServer) -> None:
    stub.routes["/v1/3d/image-to-3d"] = answer(200, task())
    with client_for(stub) as client:
        client.submit_image(url="http://127.0.0.1:1/a.png", webhook_url="http://localhost:2/hook")
    assert json.loads(stub.seen[0].body)["webhook_url"] == "http://localhost:2/hook"


# --------------------------------------------------------------------------- wire format


def test_text_submit_sends_json_key_and_idempotency_key(stub: LocalServer) -> None:
    stub.routes["/v1/3d/text-to-3d"] = answer(200, task(created_at="2026-01-01T00:00:00Z", eta_seconds=9))
    with client_for(stub) as client:
        t = client.submit_text(
            "  a red chair ", resolution=1024, image_model={"provider": "p", "quality": "high"}
        )
    assert t.id == "tsk_local" and t.status is TaskStatus.QUEUED and t.eta_seconds == 9
    seen = stub.seen[0]
    assert seen.headers["authorization"] == f"Bearer {KEY}"
    assert seen.headers["content-type"] == "application/json"
    assert seen.headers["user-agent"].startswith("Kiln/")
    assert uuid.UUID(seen.headers["idempotency-key"]).version == 4
    assert json.loads(seen.body) == {
        "prompt": "a red chair",
        "resolution": 1024,
        "image_model": {"provider": "p", "quality": "high"},
    }


def test_text_submit_omits_optional_fields(stub: LocalServer) -> None:
    stub.routes["/v1/3d/text-to-3d"] = answer(200, task())
    with client_for(stub) as client:
        client.submit_text("a mug", idempotency_key="job-42")
    assert json.loads(stub.seen[0].body) == {"prompt": "a mug"}
    assert stub.seen[0].headers["idempotency-key"] == "job-42"


def test_image_file_goes_as_multipart_with_form_fields(stub: LocalServer, tmp_path: Path) -> None:
    stub.routes["/v1/3d/image-to-3d"] = answer(200, task())
    with client_for(stub) as client:
        client.submit_image(path=SAMPLE, resolution=1024, webhook_url="https://hooks.example.com/done")
    seen = stub.seen[0]
    assert seen.headers["content-type"].startswith("multipart/form-data; boundary=")
    assert b'name="image"; filename="chair.png"' in seen.body
    assert b"Content-Type: image/png" in seen.body
    assert SAMPLE.read_bytes() in seen.body
    assert b'name="resolution"\r\n\r\n1024\r\n' in seen.body
    assert b'name="webhook_url"\r\n\r\nhttps://hooks.example.com/done\r\n' in seen.body


def test_image_bytes_get_a_name_and_type_from_their_content(stub: LocalServer) -> None:
    stub.routes["/v1/3d/image-to-3d"] = answer(200, task())
    jpeg = b"\xff\xd8\xff\xe0" + bytes(40)
    with client_for(stub) as client:
        client.submit_image(data=jpeg)
    assert b'filename="image.jpeg"' in stub.seen[0].body
    assert b"Content-Type: image/jpeg" in stub.seen[0].body
    assert b'name="resolution"\r\n\r\n1536\r\n' in stub.seen[0].body


def test_image_url_goes_as_json(stub: LocalServer) -> None:
    stub.routes["/v1/3d/image-to-3d"] = answer(200, task())
    with client_for(stub) as client:
        client.submit_image(url="https://images.example.com/chair.png", resolution=1024)
    assert json.loads(stub.seen[0].body) == {
        "image_url": "https://images.example.com/chair.png",
        "resolution": 1024,
    }


def test_task_id_is_quoted_into_the_path(stub: LocalServer) -> None:
    stub.routes["/v1/3d/tasks/a.b-c_1"] = answer(200, task("a.b-c_1", "Processing", progress=12))
    with client_for(stub) as client:
        t = client.get_task("a.b-c_1")
    assert (t.id, t.status, t.progress) == ("a.b-c_1", TaskStatus.RUNNING, 12.0)


# --------------------------------------------------------------------------- error mapping


ERROR_CASES: list[tuple[int, Any, dict[str, str], type[KilnError], str]] = [
    (
        400,
        {"error": {"code": "bad_request", "message": "prompt is empty"}},
        {},
        BadRequestError,
        "prompt is empty",
    ),
    (
        401,
        {"error": {"code": "unauthorized", "message": "Invalid API key"}},
        {},
        AuthError,
        "Invalid API key",
    ),
    (
        402,
        {"error": {"code": "insufficient_credits", "message": "Need 4 credits"}},
        {},
        CreditsError,
        "Need 4",
    ),
    (403, {"detail": "Key lacks scope"}, {}, AuthError, "Key lacks scope"),
    (404, {"error": {"code": "not_found", "message": "Unknown task"}}, {}, NotFoundError, "Unknown task"),
    (409, {"error": "Duplicate request"}, {}, BadRequestError, "Duplicate request"),
    (413, {"error": {"message": "Image too large"}}, {}, BadRequestError, "Image too large"),
    (415, {"message": "Unsupported type"}, {}, BadRequestError, "Unsupported type"),
    (
        422,
        {"detail": [{"loc": ["body", "resolution"], "msg": "must be 1024"}]},
        {},
        BadRequestError,
        "resolution",
    ),
    (410, "gone", {"Content-Type": "text/plain"}, BadRequestError, "gone"),
    (429, {"error": {"message": "Slow down"}}, {"Retry-After": "7"}, RateLimitError, "Slow down"),
    (500, {"error": {"message": "boom"}}, {}, ServiceError, "HTTP 500"),
    (502, "<html><h1>502 Bad Gateway</h1></html>", {"Content-Type": "text/html"}, ServiceError, "HTTP 502"),
    (503, {"error": {"message": "busy"}}, {}, ServiceError, "HTTP 503"),
    (200, "<html>not json</html>", {"Content-Type": "text/html"}, ServiceError, "not JSON"),
    (200, '["queued"]', {"Content-Type": "application/json"}, ServiceError, "not a JSON object"),
]


@pytest.mark.parametrize(("status", "body", "headers", "kind", "words"), ERROR_CASES)
def test_each_status_becomes_its_error_class(
    stub: LocalServer, status: int, body: Any, headers: dict[str, str], kind: type[KilnError], words: str
) -> None:
    stub.routes["/v1/3d/tasks/t1"] = answer(status, body, **headers)
    with client_for(stub) as client, pytest.raises(KilnError) as caught:
        client.get_task("t1")
    error = caught.value
    assert type(error) is kind
    # The service's words and the status are details: the sentence is Kiln's own for each kind.
    assert words in error.details and str(error) == error.user_message
    assert error.user_message == english_message(error.message) and words not in error.user_message
    assert "<html" not in error.user_message  # an HTML page never leaks into a sentence
    assert "HTTP" not in error.user_message
    if status >= 400:
        assert error.status == status  # type: ignore[attr-defined]


def test_a_rate_limit_says_how_long_the_service_asked_to_wait(stub: LocalServer) -> None:
    stub.routes["/v1/3d/tasks/t1"] = answer(429, {"error": "Slow down"}, **{"Retry-After": "7"})
    with client_for(stub) as client, pytest.raises(RateLimitError) as caught:
        client.get_task("t1")
    assert "wait 7 seconds" in caught.value.user_message and caught.value.retry_after == 7.0


def test_not_found_carries_the_task_id(stub: LocalServer) -> None:
    with client_for(stub) as client, pytest.raises(NotFoundError) as caught:
        client.get_task("gone-1")
    assert caught.value.task_id == "gone-1" and isinstance(caught.value, BadRequestError)
    assert len(stub.seen) == 1  # a 4xx is never retried


def test_submit_404_points_at_the_service_url(stub: LocalServer) -> None:
    with client_for(stub) as client, pytest.raises(NotFoundError) as caught:
        client.submit_text("a chair")
    assert caught.value.message.name == "SERVICE_ADDRESS_WRONG" and caught.value.task_id is None


def test_retry_after_as_http_date() -> None:
    now = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
    assert parse_retry_after(format_datetime(now + timedelta(seconds=30), usegmt=True), now=now) == 30.0
    assert parse_retry_after(format_datetime(now - timedelta(seconds=30), usegmt=True), now=now) == 0.0
    assert parse_retry_after("2.5") == 2.5
    assert parse_retry_after("soon") is None and parse_retry_after(None) is None


def test_rate_limit_with_http_date_retry_after(stub: LocalServer) -> None:
    when = format_datetime(datetime.now(UTC) + timedelta(seconds=120), usegmt=True)
    stub.routes["/v1/3d/tasks/t1"] = answer(429, {"error": "slow"}, Retry_After=when)
    with client_for(stub) as client, pytest.raises(RateLimitError) as caught:
        client.get_task("t1")
    assert caught.value.retry_after is not None and 110 < caught.value.retry_after <= 120


# --------------------------------------------------------------------------- retry rules
# The client makes one attempt per call and asks its retry policy (api.http.retrying) only whether a
# failed submit may have made a task. Whether and when to go again is the policy's, asked by the
# engine (tests/python/jobs): here each failure is produced for real and the policy's answer checked.

POLICY = RetryPolicy()


@pytest.mark.parametrize(
    "failure",
    [
        answer(500, {"error": "x"}),
        answer(502, "<html>bad gateway</html>"),
        answer(503, {"error": "busy"}),
        answer(429, {"error": "slow"}),
        answer(200, "<html>Sign in to Wi-Fi</html>", Content_Type="text/html"),
    ],
)
def test_a_transient_poll_failure_is_one_request_and_polled_again(
    stub: LocalServer, failure: Handler
) -> None:
    """A captive portal's page too: once the artist signs in, the next poll reaches the service."""
    stub.routes["/v1/3d/tasks/t1"] = failure
    with client_for(stub) as client, pytest.raises(KilnError) as caught:
        client.get_task("t1")
    assert len(stub.seen) == 1 and client.retry is DEFAULT_POLICY
    assert POLICY.poll_again(caught.value) and POLICY.download_again(caught.value, 1)
    assert not POLICY.download_again(caught.value, POLICY.download_attempts)


def test_a_final_poll_failure_is_not_polled_again(stub: LocalServer) -> None:
    stub.routes["/v1/3d/tasks/t1"] = answer(403, {"error": "no"})
    with client_for(stub) as client, pytest.raises(KilnError) as caught:
        client.get_task("t1")
    assert not POLICY.poll_again(caught.value) and not POLICY.download_again(caught.value, 1)


def test_backoff_grows_from_its_base_and_is_capped() -> None:
    policy = RetryPolicy(base_delay=1.0, max_delay=3.0)
    for attempt, limit in ((1, 1.0), (2, 2.0), (3, 3.0), (9, 3.0)):
        waits = [policy.delay(attempt) for _ in range(50)]
        assert all(0.8 * limit <= w <= 1.2 * limit for w in waits), (attempt, waits)
    assert all(2.4 <= policy.delay(1, base=5.0) <= 3.6 for _ in range(50))  # a larger base is capped too


def test_retry_after_is_honoured_when_longer_and_capped(stub: LocalServer) -> None:
    stub.routes["/v1/3d/tasks/t1"] = [
        answer(429, {"error": "slow"}, Retry_After="4"),
        answer(503, {"error": "busy"}, Retry_After="3600"),
    ]
    errors = []
    with client_for(stub) as client:
        for _ in range(2):
            with pytest.raises(KilnError) as caught:
                client.get_task("t1")
            errors.append(caught.value)
    assert POLICY.delay(1, errors[0]) == 4.0  # longer than the first backoff (1 s ± 20%)
    assert POLICY.delay(1, errors[1]) == POLICY.max_delay == 60.0
    assert POLICY.delay(9, errors[0]) > 4.0  # the backoff is longer than the Retry-After: it wins


def test_submit_503_without_retry_after_is_outcome_unknown(stub: LocalServer) -> None:
    stub.routes["/v1/3d/text-to-3d"] = answer(503, {"error": "busy"})
    with client_for(stub) as client, pytest.raises(OutcomeUnknownError) as caught:
        client.submit_text("a chair", idempotency_key="job-1")
    assert len(stub.seen) == 1
    assert caught.value.idempotency_key == "job-1" and caught.value.status == 503
    assert "avoid paying twice" in caught.value.user_message


@pytest.mark.parametrize(
    "refusal",
    [answer(503, {"error": "busy"}, Retry_After="2"), answer(429, {"error": "slow"}, Retry_After="1")],
)
def test_a_submit_refused_outright_may_be_sent_again(stub: LocalServer, refusal: Handler) -> None:
    stub.routes["/v1/3d/text-to-3d"] = refusal
    with client_for(stub) as client, pytest.raises((ServiceError, RateLimitError)) as caught:
        client.submit_text("a chair")
    assert len(stub.seen) == 1
    assert POLICY.submit_verdict(caught.value) is SubmitVerdict.NO_TASK_TRY_AGAIN
    assert POLICY.submit_again(caught.value, 1)
    assert not POLICY.submit_again(caught.value, POLICY.submit_attempts)


def test_submit_success_with_unreadable_body_is_outcome_unknown(stub: LocalServer) -> None:
    stub.routes["/v1/3d/text-to-3d"] = answer(200, "<html>hello</html>")
    with client_for(stub) as client, pytest.raises(OutcomeUnknownError) as caught:
        client.submit_text("a chair")
    assert len(stub.seen) == 1 and caught.value.status == 200


def test_submit_4xx_is_final_and_not_outcome_unknown(stub: LocalServer) -> None:
    stub.routes["/v1/3d/text-to-3d"] = answer(402, {"error": {"message": "no credits"}})
    with client_for(stub) as client, pytest.raises(CreditsError) as caught:
        client.submit_text("a chair")
    assert len(stub.seen) == 1
    assert POLICY.submit_verdict(caught.value) is SubmitVerdict.NO_TASK_FINAL
    assert not POLICY.submit_again(caught.value, 1)


def test_submit_reset_after_sending_is_outcome_unknown(stub: LocalServer) -> None:
    stub.routes["/v1/3d/text-to-3d"] = drop
    with client_for(stub) as client, pytest.raises(OutcomeUnknownError) as caught:
        client.submit_text("a chair")
    assert len(stub.seen) == 1
    assert isinstance(caught.value.__cause__, NetworkError) and caught.value.__cause__.sent


def slow(seconds: float, then: Handler) -> Handler:
    def handler(h: BaseHTTPRequestHandler, seen: Seen) -> None:
        time.sleep(seconds)
        then(h, seen)

    return handler


def test_submit_read_timeout_is_outcome_unknown(stub: LocalServer) -> None:
    stub.routes["/v1/3d/text-to-3d"] = slow(1.0, answer(200, task()))
    with client_for(stub, timeout=(2.0, 0.2)) as client, pytest.raises(OutcomeUnknownError):
        client.submit_text("a chair")
    assert len(stub.seen) == 1


def test_poll_read_timeout_is_polled_again(stub: LocalServer) -> None:
    stub.routes["/v1/3d/tasks/t1"] = [slow(1.0, answer(200, task("t1"))), answer(200, task("t1", "done"))]
    with client_for(stub, timeout=(2.0, 0.2)) as client:
        with pytest.raises(NetworkError) as caught:
            client.get_task("t1")
        assert POLICY.poll_again(caught.value)
        assert client.get_task("t1").status is TaskStatus.COMPLETED


def test_connection_refused_submit_was_never_sent_so_may_go_again() -> None:
    with client_for(f"http://127.0.0.1:{free_port()}") as client, pytest.raises(NetworkError) as caught:
        client.submit_text("a chair")
    assert not caught.value.sent and caught.value.message.name == "NETWORK_REFUSED"
    assert POLICY.submit_again(caught.value, 1) and POLICY.poll_again(caught.value)


def test_dns_failure_submit_was_never_sent_so_may_go_again() -> None:
    client = client_for("https://kiln-test-no-such-host.invalid")
    with client, pytest.raises(NetworkError) as caught:
        client.submit_image(data=PNG)
    assert not caught.value.sent and "DNS" in caught.value.details
    assert caught.value.message.name == "NETWORK_NAME_NOT_FOUND"
    assert POLICY.submit_again(caught.value, 1)


def test_a_submit_sent_again_with_the_same_key_reaches_the_service_once() -> None:
    """The first send hits a dead port; the service starts; the same key goes again: one request."""
    port = free_port()
    server: LocalServer | None = None
    try:
        with Client(f"http://127.0.0.1:{port}", KEY) as client:
            with pytest.raises(NetworkError) as caught:
                client.submit_text("a chair", idempotency_key="job-7")
            assert POLICY.submit_again(caught.value, 1)
            server = LocalServer("127.0.0.1", port=port)
            server.routes["/v1/3d/text-to-3d"] = answer(200, task())
            assert client.submit_text("a chair", idempotency_key="job-7").id == "tsk_local"
        assert [s.headers["idempotency-key"] for s in server.seen] == ["job-7"]
    finally:
        if server is not None:
            server.close()


def test_a_cancel_event_set_ends_a_call_before_anything_is_sent(stub: LocalServer) -> None:
    stub.routes["/v1/3d/tasks/t1"] = answer(200, task("t1"))
    stop, per_call = threading.Event(), threading.Event()
    with Client(stub.url, KEY, cancel_event=stop) as client:
        per_call.set()
        with pytest.raises(CancelledError):
            client.get_task("t1", cancel=per_call)
        stop.set()
        with pytest.raises(CancelledError):
            client.get_task("t1")
        with pytest.raises(CancelledError):
            client.submit_text("a chair")
    assert stub.seen == []


# --------------------------------------------------------------------------- security: where the key goes


def real_glb() -> bytes:
    body = json.dumps({"asset": {"version": "2.0"}}).encode()
    body += b" " * (-len(body) % 4)
    return b"glTF" + struct.pack("<II", 2, 20 + len(body)) + struct.pack("<II", len(body), 0x4E4F534A) + body


def test_download_from_a_cdn_never_sends_the_key(stub: LocalServer, cdn: LocalServer, tmp_path: Path) -> None:
    cdn.routes["/m.glb"] = answer(200, real_glb(), Content_Type="model/gltf-binary")
    with client_for(stub) as client:
        path = client.download(f"{cdn.url}/m.glb?sig=abc", tmp_path / "m.glb")
    assert check_glb(path).size == len(real_glb())
    assert len(cdn.seen) == 1 and "authorization" not in cdn.seen[0].headers
    assert stub.seen == []


def test_redirect_from_the_service_to_a_cdn_drops_the_key(
    stub: LocalServer, cdn: LocalServer, tmp_path: Path
) -> None:
    stub.routes["/files/m.glb"] = answer(302, b"", Location=f"{cdn.url}/signed/m.glb?token=t")
    cdn.routes["/signed/m.glb"] = answer(307, b"", Location="/final/m.glb")  # a hop inside the CDN
    cdn.routes["/final/m.glb"] = answer(200, real_glb())
    with client_for(stub) as client:
        client.download("/files/m.glb", tmp_path / "m.glb")  # relative: resolved against the service
    assert stub.seen[0].headers["authorization"] == f"Bearer {KEY}"
    assert [s.path for s in cdn.seen] == ["/signed/m.glb?token=t", "/final/m.glb"]
    assert all("authorization" not in s.headers for s in cdn.seen)


def test_redirect_back_to_the_service_origin_may_carry_the_key(
    stub: LocalServer, cdn: LocalServer, tmp_path: Path
) -> None:
    cdn.routes["/m.glb"] = answer(302, b"", Location=f"{stub.url}/files/m.glb")
    stub.routes["/files/m.glb"] = answer(200, real_glb())
    with client_for(stub) as client:
        client.download(f"{cdn.url}/m.glb", tmp_path / "m.glb")
    assert "authorization" not in cdn.seen[0].headers
    assert stub.seen[0].headers["authorization"] == f"Bearer {KEY}"


def test_same_host_other_port_is_another_origin(stub: LocalServer, tmp_path: Path) -> None:
    other = LocalServer("127.0.0.1")
    try:
        other.routes["/m.glb"] = answer(200, real_glb())
        stub.routes["/v1/3d/tasks/t1"] = answer(302, b"", Location=f"{other.url}/m.glb")
        with client_for(stub) as client:
            client.download(f"{other.url}/m.glb", tmp_path / "m.glb")
        assert "authorization" not in other.seen[0].headers
    finally:
        other.close()


def test_redirect_to_plain_http_elsewhere_is_refused(stub: LocalServer, tmp_path: Path) -> None:
    stub.routes["/files/m.glb"] = answer(302, b"", Location="http://cdn.example.com/m.glb")
    with client_for(stub) as client, pytest.raises(UnsafeAddressError) as caught:
        client.download("/files/m.glb", tmp_path / "m.glb")
    assert "https://" in caught.value.details and caught.value.what == "redirect"
    assert not (tmp_path / "m.glb").exists()


def test_poll_redirect_loop_is_bounded(stub: LocalServer) -> None:
    stub.routes["/v1/3d/tasks/t1"] = answer(302, b"", Location="/v1/3d/tasks/t1")
    with client_for(stub) as client, pytest.raises(ServiceError) as caught:
        client.get_task("t1")
    assert "too many redirects" in caught.value.details
    assert len(stub.seen) == 6


def test_netrc_never_replaces_the_bearer_key(
    stub: LocalServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    netrc = tmp_path / "netrc"
    netrc.write_text("machine 127.0.0.1 login someone password other\n")
    netrc.chmod(0o600)
    monkeypatch.setenv("NETRC", str(netrc))
    stub.routes["/v1/3d/tasks/t1"] = answer(200, task("t1"))
    with client_for(stub) as client:
        client.get_task("t1")
    assert stub.seen[0].headers["authorization"] == f"Bearer {KEY}"


# --------------------------------------------------------------------------- TLS


@pytest.fixture(scope="module")
def self_signed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    if shutil.which("openssl") is None:
        pytest.skip("openssl is needed to make a test certificate")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


def test_untrusted_certificate_is_a_tls_error_with_a_hint(self_signed: tuple[Path, Path]) -> None:
    server = LocalServer("127.0.0.1", tls=self_signed)
    try:
        with client_for(server) as client, pytest.raises(TLSError) as caught:
            client.submit_text("a chair")
    finally:
        server.close()
    assert "root certificate" in caught.value.user_message and "REQUESTS_CA_BUNDLE" in caught.value.details
    assert "self-signed" in caught.value.details or "self signed" in caught.value.details
    assert server.seen == []  # nothing reached the HTTP layer
    assert POLICY.submit_verdict(caught.value) is SubmitVerdict.NO_TASK_FINAL


def test_trusting_the_certificate_through_requests_ca_bundle_works(
    self_signed: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Verification stays on: trusting our certificate is the only way through."""
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(self_signed[0]))
    server = LocalServer("127.0.0.1", tls=self_signed)
    server.routes["/v1/3d/tasks/t1"] = answer(200, task("t1"))
    try:
        with client_for(server) as client:
            assert client.get_task("t1").id == "t1"
    finally:
        server.close()
    assert server.seen[0].headers["authorization"] == f"Bearer {KEY}"


# --------------------------------------------------------------------------- downloads


def test_download_streams_with_progress_and_renames_atomically(cdn: LocalServer, tmp_path: Path) -> None:
    payload = bytes(range(256)) * 1024  # 256 KiB: several chunks
    cdn.routes["/big.bin"] = answer(200, payload)
    progress: list[tuple[int, int | None]] = []
    seen_part: list[bool] = []
    dest = tmp_path / "sub" / "big.bin"

    def on_progress(done: int, total: int | None) -> None:
        progress.append((done, total))
        seen_part.append(dest.with_name("big.bin.part").exists() and not dest.exists())

    with client_for("http://127.0.0.1:1") as client:
        assert client.download(f"{cdn.url}/big.bin", dest, progress=on_progress) == dest
    assert dest.read_bytes() == payload and not dest.with_name("big.bin.part").exists()
    assert progress[0] == (0, len(payload)) and progress[-1] == (len(payload), len(payload))
    assert len(progress) > 3 and all(seen_part[1:])
    assert cdn.seen[0].headers["accept-encoding"] == "identity"


def chunked(h: BaseHTTPRequestHandler, seen: Seen, size: int = 300_000) -> None:
    """No Content-Length: the size cap must work while streaming."""
    h.send_response(200)
    h.send_header("Transfer-Encoding", "chunked")
    h.end_headers()
    for _ in range(size // 10_000):
        h.wfile.write(b"2710\r\n" + bytes(10_000) + b"\r\n")
    h.wfile.write(b"0\r\n\r\n")


@pytest.mark.parametrize("route", ["declared", "streamed"])
def test_download_size_cap(cdn: LocalServer, tmp_path: Path, route: str) -> None:
    cdn.routes["/x"] = answer(200, bytes(300_000)) if route == "declared" else chunked
    progress: list[tuple[int, int | None]] = []
    with client_for("http://127.0.0.1:1") as client, pytest.raises(InvalidMeshError, match="larger than the"):
        client.download(
            f"{cdn.url}/x", tmp_path / "x", max_bytes=100_000, progress=lambda d, t: progress.append((d, t))
        )
    assert list(tmp_path.iterdir()) == []  # no dest, no .part
    assert len(cdn.seen) == 1  # too large is not retried
    if route == "streamed":
        assert progress[0] == (0, None)


def truncated(h: BaseHTTPRequestHandler, seen: Seen) -> None:
    h.send_response(200)
    h.send_header("Content-Length", "100000")
    h.end_headers()
    h.wfile.write(bytes(40_000))
    h.close_connection = True


def test_a_truncated_download_leaves_no_files_and_is_tried_again(cdn: LocalServer, tmp_path: Path) -> None:
    cdn.routes["/m.glb"] = [truncated, answer(200, real_glb())]
    with client_for("http://127.0.0.1:1") as client:
        with pytest.raises(NetworkError) as caught:
            client.download(f"{cdn.url}/m.glb", tmp_path / "m.glb")
        assert caught.value.sent and list(tmp_path.iterdir()) == []
        assert POLICY.download_again(caught.value, 1)
        client.download(f"{cdn.url}/m.glb", tmp_path / "m.glb")
    assert (tmp_path / "m.glb").read_bytes() == real_glb() and len(cdn.seen) == 2


def test_failed_check_keeps_dest_untouched(cdn: LocalServer, tmp_path: Path) -> None:
    cdn.routes["/m.glb"] = answer(200, b"<html>not a mesh</html>")
    dest = tmp_path / "m.glb"
    dest.write_bytes(b"previous good file")
    with client_for("http://127.0.0.1:1") as client, pytest.raises(InvalidMeshError) as caught:
        client.download(f"{cdn.url}/m.glb", dest, check=check_glb)
    assert "magic" in caught.value.details
    assert dest.read_bytes() == b"previous good file" and not dest.with_name("m.glb.part").exists()
    assert len(cdn.seen) == 1
    assert not POLICY.download_again(caught.value, 1)  # a damaged file is reported, not fetched again


@pytest.mark.parametrize(
    ("status", "kind"), [(403, BadRequestError), (404, NotFoundError), (410, NotFoundError)]
)
def test_refused_download_link_talks_about_the_link(
    cdn: LocalServer, tmp_path: Path, status: int, kind: type[KilnError]
) -> None:
    cdn.routes["/m.glb"] = answer(status, "<html>AccessDenied</html>")
    with client_for("http://127.0.0.1:1") as client, pytest.raises(kind) as caught:
        client.download(f"{cdn.url}/m.glb", tmp_path / "m.glb")
    assert "download link" in caught.value.user_message and "API key" not in caught.value.user_message
    assert str(status) in caught.value.details


def test_unwritable_destination_is_a_storage_error(cdn: LocalServer, tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where a folder should be")
    cdn.routes["/m.glb"] = answer(200, real_glb())
    with client_for("http://127.0.0.1:1") as client, pytest.raises(StorageError) as caught:
        client.download(f"{cdn.url}/m.glb", blocker / "m.glb")
    assert caught.value.message.name == "FILES_NOT_A_FOLDER" and cdn.seen == []
    assert str(blocker) in caught.value.details and str(blocker) not in caught.value.user_message


def test_progress_callback_error_removes_the_part_file(cdn: LocalServer, tmp_path: Path) -> None:
    cdn.routes["/m.glb"] = answer(200, bytes(200_000))

    def explode(done: int, total: int | None) -> None:
        if done > 0:
            raise RuntimeError("ui went away")

    with client_for("http://127.0.0.1:1") as client, pytest.raises(KilnError) as caught:
        client.download(f"{cdn.url}/m.glb", tmp_path / "m.glb", progress=explode)
    assert "RuntimeError" in caught.value.details
    assert list(tmp_path.iterdir()) == []


def test_cancel_stops_a_download_between_chunks(cdn: LocalServer, tmp_path: Path) -> None:
    cdn.routes["/m.glb"] = answer(200, bytes(1_000_000))
    stop = threading.Event()

    def cancel_midway(done: int, total: int | None) -> None:
        if done >= 200_000:
            stop.set()

    with client_for("http://127.0.0.1:1") as client, pytest.raises(CancelledError):
        client.download(f"{cdn.url}/m.glb", tmp_path / "m.glb", progress=cancel_midway, cancel=stop)
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------- connection check


def test_check_connection_ok_on_json_404(stub: LocalServer) -> None:
    with client_for(stub) as client:
        assert "accepted your API key" in str(client.check_connection())
    assert stub.seen[0].path.startswith("/v1/3d/tasks/kiln-connection-check-")
    assert stub.seen[0].headers["authorization"] == f"Bearer {KEY}"


def test_check_connection_reports_a_rejected_key(stub: LocalServer) -> None:
    stub.fallback = answer(401, {"error": {"code": "unauthorized", "message": "Invalid API key."}})
    with client_for(stub) as client, pytest.raises(AuthError, match="did not accept your API key"):
        client.check_connection()


def test_check_connection_spots_a_site_that_is_not_the_service(stub: LocalServer) -> None:
    stub.fallback = answer(404, "<html>Not Found</html>", Content_Type="text/html")
    with client_for(stub) as client, pytest.raises(NotFoundError, match="not like the 3D service"):
        client.check_connection()


def test_check_connection_dead_service() -> None:
    with client_for(f"http://127.0.0.1:{free_port()}") as client, pytest.raises(NetworkError):
        client.check_connection()


# --------------------------------------------------------------------------- threads


def test_one_client_shared_by_worker_threads(stub: LocalServer) -> None:
    stub.routes.update({f"/v1/3d/tasks/t{i}": answer(200, task(f"t{i}", "running")) for i in range(16)})
    client = client_for(stub)
    results: dict[int, str] = {}
    errors: list[BaseException] = []

    def worker(n: int) -> None:
        try:
            for i in range(n, 16, 4):
                results[i] = client.get_task(f"t{i}").id
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert errors == [] and results == {i: f"t{i}" for i in range(16)}
    assert len(client._http._sessions) == 4  # one keep-alive session per worker thread
    client.close()
    assert client._http._sessions == []
    with pytest.raises(CancelledError):
        client.get_task("t1")


# --------------------------------------------------------------------------- the key never leaks


def all_texts(exc: BaseException) -> str:
    """Everything a user or a log could see of an exception: message, repr, chained traceback."""
    return "\n".join([str(exc), repr(exc), *traceback.format_exception(exc)])


def test_key_never_appears_in_logs_exceptions_or_repr(
    stub: LocalServer, cdn: LocalServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)  # root, urllib3 and api loggers all at DEBUG
    logging.getLogger("urllib3").setLevel(logging.DEBUG)
    echo = {"error": {"code": "unauthorized", "message": f"Key {KEY} is not valid"}}  # a careless server
    stub.routes.update(
        {
            "/v1/3d/tasks/auth": answer(401, echo),
            "/v1/3d/tasks/busy": answer(503, echo),
            "/v1/3d/tasks/gone": answer(404, echo),
            "/v1/3d/tasks/html": answer(502, f"<html>{KEY}</html>"),
            "/v1/3d/text-to-3d": drop,
            "/v1/3d/image-to-3d": answer(500, echo),
            "/files/m.glb": answer(302, b"", Location=f"{cdn.url}/m.glb"),
        }
    )
    cdn.routes["/m.glb"] = answer(200, b"not a glb")
    texts: list[str] = []
    with client_for(stub) as client:
        texts.append(repr(client))
        calls: list[Callable[[], object]] = [
            lambda: client.get_task("auth"),
            lambda: client.get_task("busy"),
            lambda: client.get_task("gone"),
            lambda: client.get_task("html"),
            lambda: client.submit_text("a chair"),
            lambda: client.submit_image(data=PNG),
            lambda: client.download("/files/m.glb", tmp_path / "m.glb", check=check_glb),
            lambda: client.check_connection(),
        ]
        for call in calls:
            try:
                call()
            except KilnError as exc:
                texts.append(all_texts(exc))
    for bad in (f"http://127.0.0.1:{free_port()}", "https://kiln-test-no-such-host.invalid"):
        with client_for(bad) as client:
            for call in (lambda: client.submit_text("x"), lambda: client.get_task("t")):
                try:
                    call()
                except KilnError as exc:
                    texts.append(all_texts(exc))
    assert len(texts) >= 12
    assert "urllib3" in {r.name.split(".")[0] for r in caplog.records}  # the debug logs were really on
    assert "api.http.transport" in {r.name for r in caplog.records}  # Kiln's own debug logs too
    assert KEY not in caplog.text
    assert all(KEY not in r.getMessage() for r in caplog.records)
    assert [t for t in texts if KEY in t] == []
    assert any("***" in t for t in texts)  # the echoed key was redacted, not just lost
    assert requests.__version__  # requests (not a mock) did the work
