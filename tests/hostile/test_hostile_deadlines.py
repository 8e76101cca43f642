"""Every exchange has a total deadline and a size cap; slow downloads are cut by a throughput floor.

No timing assertions: each test asserts what the cut left behind (the reason named, the bytes
the server managed to send), which a per-read timeout alone could not produce.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hostile_kit import assert_sentence, client_for, task
from hostile_server import HostileServer, dripping, raw, streaming

from api.errors import InvalidMeshError, NetworkError, OutcomeUnknownError, ServiceError

POLL = "/v1/3d/tasks/task_1"
BODY = json.dumps(task("task_1", "running", progress=50, note="x" * 200)).encode()


def test_a_poll_answer_dripping_a_byte_at_a_time_is_cut_at_the_deadline(service: HostileServer) -> None:
    service.routes[POLL] = dripping(200, BODY, every=0.1)  # each read is quick: no read timeout fires
    with client_for(service, deadline=1.0) as client, pytest.raises(NetworkError) as caught:
        client.get_task("task_1")
    assert "within 1 s" in assert_sentence(caught.value)
    assert service.bytes_sent() < 100 + len(BODY) // 2  # cut mid-answer, not after the whole drip


def test_headers_dripping_a_byte_at_a_time_are_cut_at_the_deadline(service: HostileServer) -> None:
    service.routes[POLL] = dripping(200, BODY, every=0.1, headers_too=True)
    with client_for(service, deadline=1.0) as client, pytest.raises(NetworkError) as caught:
        client.get_task("task_1")
    assert "within 1 s" in assert_sentence(caught.value)


def test_a_submit_answer_dripping_is_outcome_unknown_not_resent(service: HostileServer) -> None:
    service.routes["/v1/3d/text-to-3d"] = dripping(200, BODY, every=0.1)
    with client_for(service, deadline=1.0) as client, pytest.raises(OutcomeUnknownError) as caught:
        client.submit_text("a chair")
    assert "within 1 s" in assert_sentence(caught.value)
    assert len(service.seen) == 1


def test_a_download_below_the_throughput_floor_is_cut(service: HostileServer, tmp_path: Path) -> None:
    service.routes["/files/m.glb"] = dripping(200, b"glTF" + bytes(100_000), every=0.05)
    with client_for(service) as client, pytest.raises(NetworkError) as caught:
        client.download("/files/m.glb", tmp_path / "m.glb")
    assert "KB/s" in assert_sentence(caught.value)
    assert list(tmp_path.iterdir()) == []  # the part file is gone too


def test_a_download_that_stalls_after_its_headers_is_cut(service: HostileServer, tmp_path: Path) -> None:
    service.routes["/files/m.glb"] = dripping(
        200, b"glTF" + bytes(1000), every=30.0
    )  # one byte, then silence
    with client_for(service, timeout=(2.0, 60.0)) as client, pytest.raises(NetworkError) as caught:
        client.download("/files/m.glb", tmp_path / "m.glb")
    assert "KB/s" in assert_sentence(caught.value)


def test_a_fast_download_is_not_cut_by_the_floor(service: HostileServer, tmp_path: Path) -> None:
    from hostile_glb import good_glb
    from hostile_kit import raw_glb

    service.routes["/files/m.glb"] = raw_glb(good_glb())
    with client_for(service) as client:
        assert client.download("/files/m.glb", tmp_path / "m.glb").read_bytes() == good_glb()


@pytest.mark.parametrize("declare", [True, False], ids=["declared", "undeclared"])
def test_a_200_mb_poll_answer_is_not_read_whole(service: HostileServer, declare: bool) -> None:
    service.routes[POLL] = streaming(200, 200 * 1024 * 1024, declare=declare)
    with client_for(service, deadline=10.0) as client, pytest.raises(ServiceError) as caught:
        client.get_task("task_1")
    assert "larger than" in assert_sentence(caught.value)
    assert service.bytes_sent() < 64 * 1024 * 1024  # socket buffers, not the answer, bound what left


def test_a_huge_redirect_body_is_not_read(service: HostileServer, tmp_path: Path) -> None:
    def huge_redirect(conn, req):  # type: ignore[no-untyped-def]
        conn.write(b"HTTP/1.1 302 Found\r\nLocation: /files/b.glb\r\nContent-Length: 209715200\r\n\r\n")
        while conn.write(b" " * 65536):
            pass

    service.routes["/files/a.glb"] = huge_redirect
    service.routes["/files/b.glb"] = streaming(404, 10)
    with client_for(service, deadline=10.0) as client, pytest.raises(Exception):  # noqa: B017
        client.download("/files/a.glb", tmp_path / "m.glb")
    assert service.bytes_sent() < 64 * 1024 * 1024


def test_a_download_larger_than_its_cap_is_stopped(service: HostileServer, tmp_path: Path) -> None:
    service.routes["/files/m.glb"] = streaming(200, 50 * 1024 * 1024, declare=False)
    with client_for(service) as client, pytest.raises(InvalidMeshError) as caught:
        client.download("/files/m.glb", tmp_path / "m.glb", max_bytes=1024 * 1024)
    assert "larger than" in assert_sentence(caught.value)
    assert list(tmp_path.iterdir()) == []


def test_an_answer_cut_before_its_content_length_is_a_sentence(service: HostileServer) -> None:
    service.routes[POLL] = raw(b'HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n{"id": ')
    with client_for(service) as client, pytest.raises(NetworkError) as caught:
        client.get_task("task_1")
    assert_sentence(caught.value)
