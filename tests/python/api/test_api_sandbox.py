"""The client against the sandbox over real HTTP: every endpoint, error class and fault kind.

The sandbox counts what reached it (``submit_attempts``) and what it created (``submit_count``),
which is how these tests prove that a submit that may have arrived is never sent twice.
Every test here also checks that the key never reached a log record (``no_key_in_logs``).
"""

from __future__ import annotations

import io
import json
import logging
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

import pytest
import requests
import trimesh
from concepts import CONCEPTS
from PIL import Image

from api.checks.glb import check_glb, check_preview
from api.errors import (
    AuthError,
    BadRequestError,
    CreditsError,
    InputError,
    InvalidMeshError,
    KilnError,
    NetworkError,
    NotFoundError,
    OutcomeUnknownError,
    RateLimitError,
    ServiceError,
    TaskFailedError,
)
from api.http.models import Task, TaskStatus
from api.http.retrying import RetryPolicy
from api.services.interface.client import Client
from sandbox.server import Sandbox

SAMPLE = CONCEPTS / "chair.png"
MakeSandbox = Callable[..., Sandbox]


@pytest.fixture(autouse=True)
def no_key_in_logs(caplog: pytest.LogCaptureFixture, sandbox_key: str) -> Iterator[None]:
    """Every test in this module runs with DEBUG logs (urllib3 included) and must not log the key."""
    caplog.set_level(logging.DEBUG)
    yield
    assert sandbox_key not in caplog.text
    assert all(sandbox_key not in r.getMessage() for r in caplog.records)


POLICY = RetryPolicy()  # asked here as the job engine asks it: the client makes one attempt per call


def client_for(sb: Sandbox, key: str, **kwargs: Any) -> Client:
    return Client(sb.base_url, key, **kwargs)


@pytest.fixture
def client(sandbox: Sandbox, sandbox_key: str) -> Iterator[Client]:
    with client_for(sandbox, sandbox_key) as c:
        yield c


E = TypeVar("E", bound=KilnError)


@contextmanager
def raises(kind: type[E], key: str) -> Iterator[pytest.ExceptionInfo[E]]:
    """pytest.raises that also checks the error's text, repr and chained traceback for the key."""
    with pytest.raises(kind) as caught:
        yield caught
    error = caught.value
    assert str(error) == error.user_message
    texts = "\n".join([str(error), repr(error), error.details, *traceback.format_exception(error)])
    assert key not in texts


def wait_final(client: Client, task_id: str, timeout: float = 60.0) -> Task:
    deadline = time.monotonic() + timeout
    while True:
        task = client.get_task(task_id)
        if task.is_final or time.monotonic() > deadline:
            return task
        time.sleep(0.05)


def triangles_in(path: Path) -> int:
    scene: Any = trimesh.load(path, file_type="glb", force="scene")
    return sum(len(g.faces) for g in scene.geometry.values())


def sb_requests(sb: Sandbox, prefix: str) -> list[Any]:
    return [r for r in sb.requests if r.path.startswith(prefix)]


# --------------------------------------------------------------------------- endpoints


def test_text_task_from_submit_to_checked_files(sandbox: Sandbox, client: Client, tmp_path: Path) -> None:
    task = client.submit_text("a red chair", resolution=1024, image_model={"provider": "p", "quality": "q"})
    assert task.status is TaskStatus.QUEUED and task.raw_status == "queued" and task.resolution == 1024
    assert task.poll_url == f"{sandbox.base_url}/v1/3d/tasks/{task.id}"
    seen_states: set[TaskStatus] = {task.status}
    while not task.is_final:
        task = client.get_task(task.id)
        seen_states.add(task.status)
        time.sleep(0.02)
    assert task.status is TaskStatus.COMPLETED and task.progress == 100.0 and task.error is None
    assert TaskStatus.RUNNING in seen_states
    result = task.result
    assert result is not None and result.format == "glb" and result.mesh_url and result.preview_image_url

    progress: list[tuple[int, int | None]] = []
    mesh = client.download(result.mesh_url, tmp_path / "m.glb", progress=lambda d, t: progress.append((d, t)),
                           check=check_glb)  # fmt: skip
    assert check_glb(mesh).size == mesh.stat().st_size
    assert triangles_in(mesh) == result.triangles
    assert progress[-1] == (mesh.stat().st_size, mesh.stat().st_size)
    preview = client.download(result.preview_image_url, tmp_path / "p.png", check=check_preview)
    assert check_preview(preview) == "png"
    assert sandbox.submit_count == 1


def test_image_file_task_costs_two_credits_at_1024(
    sandbox: Sandbox, client: Client, sandbox_key: str
) -> None:
    before = sandbox.credits_left(sandbox_key)
    task = client.submit_image(path=SAMPLE, resolution=1024)
    assert task.resolution == 1024 and task.created_at is not None and isinstance(task.eta_seconds, int)
    assert sandbox.credits_left(sandbox_key) == before - 2
    assert wait_final(client, task.id).status is TaskStatus.COMPLETED


def test_image_bytes_task_costs_four_credits_at_1536(
    sandbox: Sandbox, client: Client, sandbox_key: str
) -> None:
    before = sandbox.credits_left(sandbox_key)
    task = client.submit_image(data=SAMPLE.read_bytes())
    assert task.resolution == 1536 and sandbox.credits_left(sandbox_key) == before - 4
    assert wait_final(client, task.id).status is TaskStatus.COMPLETED


class QuietServer(ThreadingHTTPServer):
    """Clients that hang up early (cancelled or capped downloads) are expected, not worth a traceback."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class ImageHost:
    """A loopback web server serving one image and recording webhook POSTs (the sandbox has no internet)."""

    def __init__(self, image: bytes) -> None:
        self.hooks: list[dict[str, Any]] = []
        host = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Length", str(len(image)))
                self.end_headers()
                self.wfile.write(image)

            def do_POST(self) -> None:
                host.hooks.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
                self.send_response(204)
                self.end_headers()

        self.httpd = QuietServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, args=(0.01,), daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def image_host() -> Iterator[ImageHost]:
    host = ImageHost(SAMPLE.read_bytes())
    yield host
    host.close()


def test_image_url_task_with_webhook(client: Client, image_host: ImageHost) -> None:
    task = client.submit_image(url=f"{image_host.url}/chair.png", resolution=1024,
                               webhook_url=f"{image_host.url}/hook")  # fmt: skip
    assert wait_final(client, task.id).status is TaskStatus.COMPLETED
    deadline = time.monotonic() + 10
    while not image_host.hooks and time.monotonic() < deadline:
        time.sleep(0.05)
    assert image_host.hooks and image_host.hooks[0]["id"] == task.id


def test_bad_input_never_reaches_the_sandbox(sandbox: Sandbox, client: Client, tmp_path: Path) -> None:
    not_an_image = tmp_path / "notes.png"
    not_an_image.write_text("just text")
    for call in (
        lambda: client.submit_text("   "),
        lambda: client.submit_image(path=not_an_image),
        lambda: client.submit_image(data=SAMPLE.read_bytes(), resolution=2048),
        lambda: client.submit_image(url="http://images.example.com/chair.png"),
    ):
        with pytest.raises(InputError):
            call()
    assert sandbox.requests == [] and sandbox.submit_attempts == 0


def test_check_connection(sandbox: Sandbox, client: Client) -> None:
    assert "accepted your API key" in str(client.check_connection())
    assert sandbox.submit_count == 0


# --------------------------------------------------------------------------- every error class


def test_unknown_key_is_an_auth_error(sandbox: Sandbox) -> None:
    wrong = "sbx_live_wrongwrongwrong00"
    with client_for(sandbox, wrong) as c:
        with raises(AuthError, wrong) as caught:
            c.check_connection()
        assert caught.value.status == 401 and "not valid" in caught.value.details
        assert caught.value.message.name == "SERVICE_KEY_REJECTED"
        with raises(AuthError, wrong):
            c.submit_text("a chair")
    assert sandbox.submit_attempts == 1 and sandbox.submit_count == 0


def test_out_of_credits(sandbox_factory: MakeSandbox, sandbox_key: str) -> None:
    sb = sandbox_factory(credits=3)
    with client_for(sb, sandbox_key) as c, raises(CreditsError, sandbox_key) as caught:
        c.submit_image(data=SAMPLE.read_bytes(), resolution=1536)
    assert "4 credits" in caught.value.details and sb.credits_left(sandbox_key) == 3 and sb.submit_count == 0


def test_unknown_and_forgotten_tasks_are_not_found(
    sandbox: Sandbox, client: Client, sandbox_key: str
) -> None:
    with raises(NotFoundError, sandbox_key) as caught:
        client.get_task("task_does_not_exist")
    assert caught.value.task_id == "task_does_not_exist" and "no longer knows" in caught.value.user_message
    assert "task_does_not_exist" in caught.value.details
    task = client.submit_text("a mug")
    sandbox.forget_tasks()
    with raises(NotFoundError, sandbox_key):
        client.get_task(task.id)


def test_unsupported_text_resolution_comes_back_in_the_services_words(
    client: Client, sandbox_key: str
) -> None:
    with raises(BadRequestError, sandbox_key) as caught:
        client.submit_text("a lamp", resolution=2048)
    assert caught.value.status == 422 and "resolution must be one of 1024, 1536" in caught.value.details


def test_image_over_the_services_limit_is_413(sandbox: Sandbox, client: Client, sandbox_key: str) -> None:
    big = b"\x89PNG\r\n\x1a\n" + bytes(11 * 1024 * 1024)  # under Kiln's limit, over the sandbox's
    with raises(BadRequestError, sandbox_key) as caught:
        client.submit_image(data=big)
    assert caught.value.status == 413 and sandbox.submit_count == 0


def test_undecodable_image_is_400(client: Client, sandbox_key: str) -> None:
    with raises(BadRequestError, sandbox_key) as caught:
        client.submit_image(data=b"\x89PNG\r\n\x1a\n" + b"garbage" * 10)
    assert caught.value.status == 400 and "could not be decoded" in caught.value.details


def test_url_to_a_non_image_is_415(client: Client, sandbox_key: str) -> None:
    gif = io.BytesIO()
    Image.new("RGB", (4, 4)).save(gif, "GIF")
    host = ImageHost(gif.getvalue())
    try:
        with raises(BadRequestError, sandbox_key) as caught:
            client.submit_image(url=f"{host.url}/x.gif")
    finally:
        host.close()
    assert caught.value.status == 415 and "PNG, JPEG or WebP" in caught.value.details


@pytest.mark.parametrize(
    ("faults", "words"),
    [
        ("fail=1", "Reconstruction failed"),
        ("fail_object=1", "The generator could not produce a mesh (code generation_failed)"),
    ],
)
def test_failed_task(sandbox_factory: MakeSandbox, sandbox_key: str, faults: str, words: str) -> None:
    sb = sandbox_factory(faults=faults)
    with client_for(sb, sandbox_key) as c:
        task = wait_final(c, c.submit_text("a sword").id)
    assert task.status is TaskStatus.FAILED and words in (task.error or "")
    with raises(TaskFailedError, sandbox_key) as caught:
        task.raise_if_failed()
    # Kiln's own sentence, then the service's reason in its plain words, quoted; the code stays in the
    # details.
    assert words in caught.value.details
    plain = words.split(" (code")[0]
    assert f"later. (The service said: “{plain}" in caught.value.user_message
    assert "generation_failed" not in caught.value.user_message
    assert caught.value.message.name == "TASK_REFUSED"


@pytest.mark.parametrize(
    ("error", "words"),
    [
        ({"detail": [{"loc": ["image"], "msg": "too dark"}]}, "image: too dark."),
        (["first", {"message": "second"}], "first; second."),
        ({"error": {"error": {"message": "deep"}}}, "deep."),
    ],
)
def test_forced_failures_of_other_shapes(sandbox: Sandbox, client: Client, error: Any, words: str) -> None:
    task = client.submit_text("a rock")
    sandbox.fail_now(task.id, error)
    assert client.get_task(task.id).error == words


# --------------------------------------------------------------------------- faults on polls and files


def test_poll_faults_are_polled_again_until_they_clear(sandbox: Sandbox, sandbox_key: str) -> None:
    for fault in ("500=1", "502=1", "503=1", "429=1", "reset=1"):
        task_id = client_for(sandbox, sandbox_key).submit_text("a tree").id
        sandbox.set_faults(f"{fault},scope=poll")
        polls_before = len(sb_requests(sandbox, "/v1/3d/tasks/"))
        with client_for(sandbox, sandbox_key) as c:
            with pytest.raises(KilnError) as caught:
                c.get_task(task_id)
            assert POLICY.poll_again(caught.value), fault
            sandbox.set_faults("")
            assert c.get_task(task_id).id == task_id, fault
        assert len(sb_requests(sandbox, "/v1/3d/tasks/")) - polls_before == 2, fault
        if fault in ("503=1", "429=1"):
            assert POLICY.delay(1, caught.value) >= 1.0, fault  # the sandbox's Retry-After: 1


@pytest.mark.parametrize(
    ("fault", "kind", "status"),
    [
        ("500=1", ServiceError, 500),
        ("502=1", ServiceError, 502),
        ("503=1", ServiceError, 503),
        ("429=1", RateLimitError, 429),
        ("reset=1", NetworkError, None),
    ],
)
def test_persistent_poll_faults_end_in_their_error_class(
    sandbox: Sandbox, sandbox_key: str, fault: str, kind: type[KilnError], status: int | None
) -> None:
    task_id = client_for(sandbox, sandbox_key).submit_text("a tree").id
    sandbox.set_faults(f"{fault},scope=poll")
    with client_for(sandbox, sandbox_key) as c, raises(kind, sandbox_key) as caught:
        c.get_task(task_id)
    assert getattr(caught.value, "status", None) == status
    assert len(sb_requests(sandbox, "/v1/3d/tasks/")) == 1 and POLICY.poll_again(caught.value)
    assert "<html" not in caught.value.user_message.lower()
    if kind is NetworkError:
        assert caught.value.sent  # type: ignore[attr-defined]
    if kind is RateLimitError:
        assert caught.value.retry_after == 1.0  # type: ignore[attr-defined]


def test_latency_beyond_the_read_timeout_is_a_network_error_polled_again(
    sandbox: Sandbox, sandbox_key: str
) -> None:
    task_id = client_for(sandbox, sandbox_key).submit_text("a house").id
    sandbox.set_faults("latency=0.5,scope=poll")
    c = client_for(sandbox, sandbox_key, timeout=(2.0, 0.1))
    with c, raises(NetworkError, sandbox_key) as caught:
        c.get_task(task_id)
    assert caught.value.sent and "stopped answering" in caught.value.details
    assert POLICY.poll_again(caught.value)


def test_restart_forgets_tasks(sandbox_factory: MakeSandbox, sandbox_key: str) -> None:
    sb = sandbox_factory(faults="restart_after=2")
    with client_for(sb, sandbox_key) as c:
        task = c.submit_text("a lamp")
        c.get_task(task.id)
        c.get_task(task.id)
        with raises(NotFoundError, sandbox_key):
            c.get_task(task.id)


def finished(sb: Sandbox, c: Client, prompt: str = "a chair") -> Task:
    task = c.submit_text(prompt)
    sb.complete_now(task.id)
    done = c.get_task(task.id)
    assert done.status is TaskStatus.COMPLETED and done.result and done.result.mesh_url
    return done


@pytest.mark.parametrize(("fault", "words"), [("corrupt=1", "JSON chunk"), ("truncate=1", "header says")])
def test_damaged_glb_is_caught_before_it_lands(
    sandbox: Sandbox, client: Client, tmp_path: Path, sandbox_key: str, fault: str, words: str
) -> None:
    result = finished(sandbox, client).result
    assert result is not None and result.mesh_url
    sandbox.set_faults(fault)
    with raises(InvalidMeshError, sandbox_key) as caught:
        client.download(result.mesh_url, tmp_path / "m.glb", check=check_glb)
    assert words in caught.value.problem and list(tmp_path.iterdir()) == []


def test_slow_download_reports_progress(sandbox: Sandbox, client: Client, tmp_path: Path) -> None:
    result = finished(sandbox, client).result
    assert result is not None and result.mesh_url
    size = len(requests.get(result.mesh_url, timeout=30).content)
    sandbox.set_faults(f"slow={size * 3}")  # about three ticks of 0.1 s
    progress: list[tuple[int, int | None]] = []
    path = client.download(result.mesh_url, tmp_path / "m.glb", progress=lambda d, t: progress.append((d, t)))
    check_glb(path)
    assert len(progress) >= 3 and progress[-1] == (size, size)
    assert [d for d, _ in progress] == sorted(d for d, _ in progress)


def test_file_faults_are_downloaded_again(sandbox: Sandbox, sandbox_key: str, tmp_path: Path) -> None:
    with client_for(sandbox, sandbox_key) as c:
        result = finished(sandbox, c).result
    assert result is not None and result.mesh_url
    sandbox.set_faults("503=1,scope=files")
    with client_for(sandbox, sandbox_key) as c:
        with pytest.raises(ServiceError) as caught:
            c.download(result.mesh_url, tmp_path / "m.glb", check=check_glb)
        assert POLICY.download_again(caught.value, 1) and list(tmp_path.iterdir()) == []
        sandbox.set_faults("")
        c.download(result.mesh_url, tmp_path / "m.glb", check=check_glb)
    assert len(sb_requests(sandbox, "/files/")) == 2


def test_cdn_host_never_sees_the_key(sandbox_factory: MakeSandbox, sandbox_key: str, tmp_path: Path) -> None:
    sb = sandbox_factory(faults="cdn=1")
    assert sb.cdn_base_url is not None, "the sandbox could not listen on 127.0.0.2"
    with client_for(sb, sandbox_key) as c:
        result = finished(sb, c).result
        assert result is not None and result.mesh_url and result.preview_image_url
        assert urlsplit(result.mesh_url).hostname == "127.0.0.2"
        check_glb(c.download(result.mesh_url, tmp_path / "m.glb"))
        check_preview(c.download(result.preview_image_url, tmp_path / "p.png"))
    files = sb_requests(sb, "/files/")
    api = sb_requests(sb, "/v1/")
    assert len(files) == 2 and all("authorization" not in r.headers for r in files)
    assert api and all(r.headers.get("authorization") == f"Bearer {sandbox_key}" for r in api)


# --------------------------------------------------------------------------- submit rules


@pytest.mark.parametrize("fault", ["500=1", "502=1", "reset=1"])
def test_submit_failing_after_sending_is_not_resent(sandbox: Sandbox, sandbox_key: str, fault: str) -> None:
    sandbox.set_faults(f"{fault},scope=submit")
    with client_for(sandbox, sandbox_key) as c, raises(OutcomeUnknownError, sandbox_key) as caught:
        c.submit_text("a chair", idempotency_key="job-1")
    assert caught.value.idempotency_key == "job-1"
    assert sandbox.submit_attempts == 1 and sandbox.submit_count == 0


@pytest.mark.parametrize("fault", ["503=1", "429=1"])
def test_submit_refused_with_retry_after_may_go_again_with_the_same_key(
    sandbox: Sandbox, sandbox_key: str, fault: str
) -> None:
    sandbox.set_faults(f"{fault},scope=submit")
    with client_for(sandbox, sandbox_key) as c:
        with pytest.raises((ServiceError, RateLimitError)) as caught:
            c.submit_image(data=SAMPLE.read_bytes(), resolution=1024, idempotency_key="job-2")
        assert POLICY.submit_again(caught.value, 1) and POLICY.delay(1, caught.value) >= 1.0
        sandbox.set_faults("")
        task = c.submit_image(data=SAMPLE.read_bytes(), resolution=1024, idempotency_key="job-2")
    keys = {r.headers["idempotency-key"] for r in sb_requests(sandbox, "/v1/3d/image-to-3d")}
    assert sandbox.submit_attempts == 2 and sandbox.submit_count == 1 and keys == {"job-2"}
    assert task.id in sandbox.tasks


def test_outcome_unknown_keeps_the_key_that_was_sent_and_resubmitting_with_it_charges_once(
    sandbox: Sandbox, sandbox_key: str
) -> None:
    """A read timeout after sending: not re-sent; the error keeps the key the request carried."""
    sandbox.set_faults("latency=0.5,scope=submit")
    before = sandbox.credits_left(sandbox_key)
    with (
        client_for(sandbox, sandbox_key, timeout=(2.0, 0.1)) as c,
        raises(OutcomeUnknownError, sandbox_key) as caught,
    ):
        c.submit_text("a chair")
    assert sandbox.submit_attempts == 1
    sent = sb_requests(sandbox, "/v1/3d/text-to-3d")[0].headers["idempotency-key"]
    assert caught.value.idempotency_key == sent
    sandbox.set_faults("")
    with client_for(sandbox, sandbox_key) as c:
        first = c.submit_text("a chair", idempotency_key=caught.value.idempotency_key)
        again = c.submit_text("a chair", idempotency_key=caught.value.idempotency_key)
    assert first.id == again.id and sandbox.submit_count == 1
    assert sandbox.credits_left(sandbox_key) == before - 1


def test_a_task_created_but_its_answer_lost_is_outcome_unknown_and_never_resent(
    sandbox: Sandbox, sandbox_key: str
) -> None:
    """The service made (and billed) the task, the answer never arrived: surfaced, not re-sent."""
    sandbox.set_faults("lost=1,scope=submit")
    before = sandbox.credits_left(sandbox_key)
    with client_for(sandbox, sandbox_key) as c, raises(OutcomeUnknownError, sandbox_key):
        c.submit_text("a chair")
    assert sandbox.submit_attempts == 1 and sandbox.submit_count == 1
    assert sandbox.credits_left(sandbox_key) == before - 1


def test_idempotency_key_is_reused_by_the_service(sandbox: Sandbox, client: Client, sandbox_key: str) -> None:
    first = client.submit_text("a mug", idempotency_key="job-99")
    second = client.submit_text("a mug", idempotency_key="job-99")
    assert first.id == second.id and sandbox.submit_count == 1 and sandbox.submit_attempts == 2


def test_dead_sandbox_submit_never_reaches_it_and_may_go_again(
    sandbox_factory: MakeSandbox, sandbox_key: str
) -> None:
    sb = sandbox_factory()
    base = sb.base_url
    sb.stop()
    with Client(base, sandbox_key) as c, raises(NetworkError, sandbox_key) as caught:
        c.submit_text("a chair")
    assert not caught.value.sent and sb.submit_attempts == 0 and POLICY.submit_again(caught.value, 1)
