"""Task ids from the service: any text is followed (quoted in URLs, never a path); what can hurt is
refused, and then kept escaped and said, so the artist can still quote it to the service."""

from __future__ import annotations

from urllib.parse import unquote

import pytest
from hostile_kit import KEY, assert_sentence, client_for, task
from hostile_server import HostileServer, json_answer

from api.errors import InputError, OutcomeUnknownError

SUBMIT = "/v1/3d/text-to-3d"
TASKS = "/v1/3d/tasks/"

#: Ids real services use, or could: all followed as they are.
ODD_IDS = {
    "unicode": "задача-日本語-✓-🦊",
    "slash": "tasks/2026/11/a1b2",
    "colon and equals": "urn:task:v2=abc==",
    "plus": "a+b+c",
    "spaces": "my task 7 ",
    "parent path": "../../x",
    "absolute path": "/etc/passwd",
    "windows path": "..\\..\\x",
    "drive path": "C:\\Windows\\win.ini",
    "dot dot": "..",
    "windows device": "NUL",
    "url pieces": "x?y#z&w=%2F",
    "number": 12345,
}

#: Ids that can hurt: refused, kept escaped. (name: (id, how the artist sees it))
REFUSED_IDS = {
    "nul byte": ("abc\x00def", "abc\\x00def"),
    "newline": ("task\nX-Injected: 1", "task\\nX-Injected: 1"),
    "bidi override": ("abc\u202eexe.gpj", "abc\\u202eexe.gpj"),
    "lone surrogate": ("a\ud800b", "a\\ud800b"),
    "5000 characters": ("a" * 5000, "a" * 200 + "… (5000 characters)"),
    "not text": ({"nested": "id"}, "<dict, not text>"),
    "huge number": (10**60, str(10**60)),
    "blank": ("   ", "   "),
    "the key itself": (KEY, "***"),
    "the key inside": (f"task-{KEY}", "task-***"),
}


@pytest.mark.parametrize("name", ODD_IDS)
def test_an_odd_id_is_followed_as_it_is(service: HostileServer, name: str) -> None:
    task_id = ODD_IDS[name]
    text = str(task_id)
    service.routes[SUBMIT] = json_answer(200, task(task_id))  # type: ignore[arg-type]
    service.routes[TASKS + text] = json_answer(200, task(task_id, "running", progress=40))  # type: ignore[arg-type]
    with client_for(service) as client:
        submitted = client.submit_text("a chair")
        assert submitted.id == text
        polled = client.get_task(submitted.id)
    assert polled.id == text and polled.progress == 40.0
    target = service.seen[-1].target
    segment = target.removeprefix(TASKS)
    assert target.startswith(TASKS) and unquote(segment) == text
    assert not set("/?#") & set(segment), "the id is one quoted path segment"


@pytest.mark.parametrize("name", REFUSED_IDS)
def test_a_submit_answer_with_an_id_that_can_hurt_is_outcome_unknown_and_says_the_id(
    service: HostileServer, name: str
) -> None:
    task_id, shown = REFUSED_IDS[name]
    service.routes[SUBMIT] = json_answer(200, task(task_id))  # type: ignore[arg-type]
    with client_for(service) as client, pytest.raises(OutcomeUnknownError) as caught:
        client.submit_text("a chair")
    sentence = assert_sentence(caught.value)
    assert caught.value.task_id is None and caught.value.idempotency_key
    assert caught.value.refused_id == shown and f"task “{shown}”" in sentence
    assert len(service.seen) == 1  # never re-sent: it may have cost credits


def test_a_submit_answer_with_an_empty_id_is_outcome_unknown(service: HostileServer) -> None:
    service.routes[SUBMIT] = json_answer(200, task(""))
    with client_for(service) as client, pytest.raises(OutcomeUnknownError) as caught:
        client.submit_text("a chair")
    assert "empty" in assert_sentence(caught.value) and caught.value.task_id is None


@pytest.mark.parametrize("task_id", ["a\x00b", "a\nb", "x" * 513, "", "   ", "\u2028"])
def test_polling_an_id_that_can_hurt_is_refused_before_any_request(
    service: HostileServer, task_id: str
) -> None:
    with client_for(service) as client, pytest.raises(InputError) as caught:
        client.get_task(task_id)
    assert_sentence(caught.value)
    assert service.seen == []


def test_a_poll_answer_cannot_rename_the_task(service: HostileServer) -> None:
    service.routes[TASKS + "task_1"] = json_answer(200, task("../../evil", "running", progress=5))
    with client_for(service) as client:
        polled = client.get_task("task_1")
    assert polled.id == "task_1" and polled.progress == 5.0
    assert service.seen[0].target == TASKS + "task_1"


@pytest.mark.parametrize("task_id", ["task_777", "задача/7 = ok"])
def test_a_garbled_answer_keeps_a_usable_id_it_names(service: HostileServer, task_id: str) -> None:
    escaped = task_id.replace("/", "\\/")  # JSON may escape a slash
    service.routes[SUBMIT] = json_answer(200, f'{{"id": "{escaped}", "status": "queued", "eta": [[[[')
    with client_for(service) as client, pytest.raises(OutcomeUnknownError) as caught:
        client.submit_text("a chair")
    assert caught.value.task_id == task_id and task_id in assert_sentence(caught.value)
