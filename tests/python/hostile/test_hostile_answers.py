"""Odd JSON, odd fields, odd statuses: a Kiln error with a sentence, or a tolerant reading; nothing else."""

from __future__ import annotations

from typing import Any

import pytest
from hostile_kit import assert_sentence, client_for, task
from hostile_server import HostileServer, json_answer, raw

from api.errors import KilnError, NetworkError, OutcomeUnknownError, ServiceError
from api.http.models import TaskStatus

POLL = "/v1/3d/tasks/task_1"
SUBMIT = "/v1/3d/text-to-3d"

UNREADABLE = {
    "deeply nested list": "[" * 100_000 + "]" * 100_000,
    "deeply nested object": '{"a":' * 50_000 + "1" + "}" * 50_000,
    "deep inside a task": '{"id": "task_1", "error": ' + "[" * 200_000 + "]" * 200_000 + "}",
    "a 5000-digit integer": '{"id": "task_1", "progress": ' + "9" * 5000 + "}",
    "NaN": '{"id": "task_1", "progress": NaN}',
    "Infinity": '{"id": "task_1", "progress": -Infinity}',
    "not UTF-8": b'{"id": "task_1", "status": "\xff\xfe"}',
    "truncated": '{"id": "task_1", "status": "que',
    "empty body": "",
    "a bare string": '"queued"',
    "null": "null",
    "an HTML page": "<html><body>Service Unavailable</body></html>",
}


@pytest.mark.parametrize("name", UNREADABLE)
def test_an_unreadable_poll_answer_is_a_sentence(service: HostileServer, name: str) -> None:
    service.routes[POLL] = json_answer(200, UNREADABLE[name], Content_Type="application/json")
    with client_for(service) as client, pytest.raises(ServiceError) as caught:
        client.get_task("task_1")
    assert_sentence(caught.value)


@pytest.mark.parametrize(
    "name", ["deeply nested list", "a 5000-digit integer", "NaN", "not UTF-8", "empty body"]
)
def test_an_unreadable_submit_answer_is_outcome_unknown(service: HostileServer, name: str) -> None:
    service.routes[SUBMIT] = json_answer(200, UNREADABLE[name])
    with client_for(service) as client, pytest.raises(OutcomeUnknownError) as caught:
        client.submit_text("a chair")
    assert_sentence(caught.value)
    assert len(service.seen) == 1


ODD_FIELDS: dict[str, dict[str, Any]] = {
    "numbers as text": {"progress": "1e999", "eta_seconds": "1e999", "resolution": "-1e999"},
    "wrong types everywhere": {
        "status": {"state": "running"},
        "progress": [50],
        "eta_seconds": {"s": 3},
        "resolution": True,
        "created_at": 12,
        "links": ["poll"],
        "result": "https://cdn/m.glb",
        "error": None,
    },
    "odd text": {"status": "x" * 100_000, "created_at": "9" * 10_000, "progress": "12" * 5000},
    "odd dates": {"created_at": "99999-99-99T99:99:99Z", "eta_seconds": "soon"},
    "nested error": {
        "status": "failed",
        "error": {"a": [{"b": {"c": [{"d": {"e": {"f": {"g": "deep"}}}}]}}]},
    },
    "result of odd types": {
        "status": "completed",
        "result": {"mesh_url": 5, "triangles": "1e999", "format": []},
    },
}


LITERALS = {
    "huge float literals": '{"id": "task_1", "progress": 1e999, "eta_seconds": -1e999, "resolution": 1E400}',
    "huge integers": '{"id": "task_1", "progress": 1' + "0" * 300 + ', "resolution": 18446744073709551616}',
}
ODD_FIELDS.update({name: {} for name in LITERALS})


@pytest.mark.parametrize("name", ODD_FIELDS)
def test_odd_fields_are_read_tolerantly(service: HostileServer, name: str) -> None:
    body = {"id": "task_1", **ODD_FIELDS[name]}
    if name in LITERALS:  # numbers json.dumps will not write
        service.routes[POLL] = json_answer(200, LITERALS[name], Content_Type="application/json")
    else:
        service.routes[POLL] = json_answer(200, body)
    with client_for(service) as client:
        polled = client.get_task("task_1")
    assert polled.id == "task_1"
    assert polled.progress is None or 0 <= polled.progress <= 100
    assert polled.eta_seconds is None or abs(polled.eta_seconds) <= 2**31
    assert polled.resolution is None or polled.resolution < 2**31


@pytest.mark.parametrize(
    ("word", "status"),
    [
        ("COMPLETED ", TaskStatus.COMPLETED),
        ("in-queue", TaskStatus.QUEUED),
        ("weird-new-state", TaskStatus.RUNNING),
        ("", TaskStatus.RUNNING),
        ("failed\x00", TaskStatus.RUNNING),
    ],
)
def test_odd_status_words_never_end_polling_by_accident(
    service: HostileServer, word: str, status: TaskStatus
) -> None:
    service.routes[POLL] = json_answer(200, task("task_1", word))
    with client_for(service) as client:
        assert client.get_task("task_1").status is status


@pytest.mark.parametrize(
    "answer",
    [
        b"HTTP/1.1 999 Whatever\r\nContent-Length: 2\r\n\r\n{}",
        b"HTTP/1.1 302 Found\r\nContent-Length: 0\r\n\r\n",  # a redirect with nowhere to go
        b"HTTP/1.1 abc Broken\r\n\r\n",
        b"hello, I am not HTTP\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999999\r\n\r\n{}",
        b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Long: " + b"a" * 200_000 + b"\r\n\r\n{}",
        b"HTTP/1.1 200 OK\r\n" + b"X-Many: 1\r\n" * 500 + b"\r\n{}",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nZZZ\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 4\r\n\r\nnope",
        b"",
    ],
    ids=[
        "status 999",
        "redirect without location",
        "broken status line",
        "not http",
        "absurd length",
        "huge header",
        "many headers",
        "broken chunking",
        "bad gzip",
        "silent close",
    ],
)
def test_malformed_http_is_a_sentence(service: HostileServer, answer: bytes) -> None:
    service.routes[POLL] = raw(answer)
    with client_for(service) as client, pytest.raises(KilnError) as caught:
        client.get_task("task_1")
    assert_sentence(caught.value)


def test_malformed_http_after_a_submit_is_outcome_unknown(service: HostileServer) -> None:
    service.routes[SUBMIT] = raw(b"HTTP/1.1 abc Broken\r\n\r\n")
    with (
        client_for(service) as client,
        pytest.raises((OutcomeUnknownError, NetworkError)) as caught,
    ):
        client.submit_text("a chair")
    assert isinstance(caught.value, OutcomeUnknownError)
    assert len(service.seen) == 1


def test_a_204_submit_answer_is_outcome_unknown(service: HostileServer) -> None:
    service.routes[SUBMIT] = raw(b"HTTP/1.1 204 No Content\r\n\r\n")
    with client_for(service) as client, pytest.raises(OutcomeUnknownError) as caught:
        client.submit_text("a chair")
    assert_sentence(caught.value)


def test_a_redirect_after_a_submit_is_outcome_unknown_not_followed(service: HostileServer) -> None:
    service.routes[SUBMIT] = raw(
        b"HTTP/1.1 303 See Other\r\nLocation: /v1/3d/tasks/task_1\r\nContent-Length: 0\r\n\r\n"
    )
    with client_for(service) as client, pytest.raises(OutcomeUnknownError) as caught:
        client.submit_text("a chair")
    assert "HTTP 303" in assert_sentence(caught.value)
    assert [r.target for r in service.seen] == [SUBMIT]
