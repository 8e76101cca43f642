"""Task ids from the service never become paths or anything but a checked name."""

from __future__ import annotations

import pytest
from hostile_kit import KEY, assert_sentence, client_for, task
from hostile_server import HostileServer, json_answer

from api.errors import InputError, OutcomeUnknownError

SUBMIT = "/v1/3d/text-to-3d"

HOSTILE_IDS = {
    "parent path": "../../x",
    "absolute path": "/etc/passwd",
    "windows path": "..\\..\\x",
    "drive path": "C:\\Windows\\win.ini",
    "nul byte": "abc\x00def",
    "5000 characters": "a" * 5000,
    "dot dot": "..",
    "windows device": "NUL",
    "url pieces": "x?y#z",
    "newline": "task\nX-Injected: 1",
    "not text": {"nested": "id"},
    "huge number": 10**60,
    "empty": "",
    "the key itself": KEY,
}


@pytest.mark.parametrize("name", HOSTILE_IDS)
def test_a_submit_answer_with_an_unusable_id_is_outcome_unknown(service: HostileServer, name: str) -> None:
    service.routes[SUBMIT] = json_answer(200, task(HOSTILE_IDS[name]))  # type: ignore[arg-type]
    with client_for(service) as client, pytest.raises(OutcomeUnknownError) as caught:
        client.submit_text("a chair")
    assert_sentence(caught.value)
    assert caught.value.task_id is None and caught.value.idempotency_key
    assert len(service.seen) == 1  # never re-sent: it may have cost credits


def test_plain_ids_and_numbers_are_accepted(service: HostileServer) -> None:
    service.routes[SUBMIT] = json_answer(200, task(12345))  # type: ignore[arg-type]
    with client_for(service) as client:
        assert client.submit_text("a chair").id == "12345"
        service.routes[SUBMIT] = json_answer(200, task("task_01HZY.v2-a"))
        assert client.submit_text("a chair").id == "task_01HZY.v2-a"


@pytest.mark.parametrize("task_id", ["../x", "a/b", "x" * 129, "a b", "CON", "\x00"])
def test_polling_an_odd_id_is_refused_before_any_request(service: HostileServer, task_id: str) -> None:
    with client_for(service) as client, pytest.raises(InputError) as caught:
        client.get_task(task_id)
    assert_sentence(caught.value)
    assert service.seen == []


def test_a_poll_answer_cannot_rename_the_task(service: HostileServer) -> None:
    service.routes["/v1/3d/tasks/task_1"] = json_answer(200, task("../../evil", "running", progress=5))
    with client_for(service) as client:
        polled = client.get_task("task_1")
    assert polled.id == "task_1" and polled.progress == 5.0
    assert service.seen[0].target == "/v1/3d/tasks/task_1"


def test_a_garbled_answer_keeps_a_well_formed_id_it_names(service: HostileServer) -> None:
    service.routes[SUBMIT] = json_answer(200, '{"id": "task_777", "status": "queued", "eta": [[[[')
    with client_for(service) as client, pytest.raises(OutcomeUnknownError) as caught:
        client.submit_text("a chair")
    assert caught.value.task_id == "task_777" and "task_777" in assert_sentence(caught.value)
