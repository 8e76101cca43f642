"""Parsing of service answers: tolerant where the spec says "not shown", strict about the id."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import pytest

from api.errors import KilnError, TaskFailedError
from api.http.models import Result, Task, TaskStatus, describe_error, plain_reason


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("queued", TaskStatus.QUEUED),
        ("QUEUED", TaskStatus.QUEUED),
        (" Queued ", TaskStatus.QUEUED),
        ("running", TaskStatus.RUNNING),
        ("processing", TaskStatus.RUNNING),
        ("in_progress", TaskStatus.RUNNING),
        ("In-Progress", TaskStatus.RUNNING),
        ("pending", TaskStatus.RUNNING),
        ("some_new_state", TaskStatus.RUNNING),
        ("", TaskStatus.RUNNING),
        (None, TaskStatus.RUNNING),
        ("completed", TaskStatus.COMPLETED),
        ("Succeeded", TaskStatus.COMPLETED),
        ("success", TaskStatus.COMPLETED),
        ("DONE", TaskStatus.COMPLETED),
        ("finished", TaskStatus.COMPLETED),
        ("complete", TaskStatus.COMPLETED),
        ("failed", TaskStatus.FAILED),
        ("error", TaskStatus.FAILED),
        ("errored", TaskStatus.FAILED),
        ("cancelled", TaskStatus.FAILED),
        ("canceled", TaskStatus.FAILED),
        ("rejected", TaskStatus.FAILED),
        ("Expired", TaskStatus.FAILED),
    ],
)
def test_status_normalisation(raw: object, expected: TaskStatus) -> None:
    assert TaskStatus.normalise(raw) is expected


def test_only_completed_and_failed_are_final() -> None:
    assert [s for s in TaskStatus if s.is_final] == [TaskStatus.COMPLETED, TaskStatus.FAILED]
    assert TaskStatus.RUNNING == "running"  # a str Enum: compares and serialises as its value


def test_submit_response_from_the_spec() -> None:
    task = Task.from_json(
        {
            "id": "tsk_1",
            "status": "queued",
            "resolution": 1536,
            "created_at": "2026-01-02T03:04:05Z",
            "eta_seconds": 42,
            "links": {"poll": "https://api.example.com/v1/3d/tasks/tsk_1"},
        }
    )
    assert task.id == "tsk_1"
    assert task.status is TaskStatus.QUEUED
    assert task.raw_status == "queued"
    assert task.resolution == 1536
    assert task.created_at == datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert task.eta_seconds == 42
    assert task.poll_url == "https://api.example.com/v1/3d/tasks/tsk_1"
    assert task.progress is None and task.result is None and task.error is None
    assert not task.is_final


def test_completed_poll_response() -> None:
    task = Task.from_json(
        {
            "id": "tsk_1",
            "status": "completed",
            "progress": 100,
            "result": {
                "mesh_url": "https://cdn.example.com/m.glb",
                "preview_image_url": "https://cdn.example.com/p.png",
                "format": "glb",
                "triangles": 12345,
            },
        }
    )
    assert task.is_final and task.progress == 100.0
    assert task.result == Result(
        "https://cdn.example.com/m.glb", "https://cdn.example.com/p.png", "glb", 12345
    )
    task.raise_if_failed()  # no exception for a completed task


def test_missing_fields_are_tolerated_and_extra_ignored() -> None:
    task = Task.from_json({"id": 7, "unexpected": {"deep": [1, 2]}, "links": "not-an-object"})
    assert task.id == "7"
    assert task.status is TaskStatus.RUNNING
    assert task.poll_url is None and task.resolution is None and task.created_at is None


def test_wrong_types_become_none_not_exceptions() -> None:
    task = Task.from_json(
        {
            "id": "x",
            "status": "running",
            "progress": "37.5%",
            "resolution": "1024",
            "created_at": "yesterday",
            "eta_seconds": True,
            "result": ["not", "an", "object"],
        }
    )
    assert task.progress == 37.5
    assert task.resolution == 1024
    assert task.created_at is None and task.eta_seconds is None and task.result is None


def test_progress_is_clamped_and_defaults_to_100_when_completed() -> None:
    assert Task.from_json({"id": "a", "progress": 140}).progress == 100.0
    assert Task.from_json({"id": "a", "progress": -3}).progress == 0.0
    assert Task.from_json({"id": "a", "status": "done"}).progress == 100.0
    assert Task.from_json({"id": "a", "status": "done", "progress": 40}).progress == 100.0, "done is done"
    assert Task.from_json({"id": "a", "progress": 10**400}).progress is None, "too large: not said"


def test_naive_timestamp_is_taken_as_utc() -> None:
    task = Task.from_json({"id": "a", "created_at": "2026-01-02T03:04:05"})
    assert task.created_at == datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


@pytest.mark.parametrize("data", [{}, {"id": ""}, {"id": None}, {"id": True}, [], "tsk_1", None])
def test_a_task_without_id_is_refused(data: object) -> None:
    with pytest.raises(ValueError):
        Task.from_json(data)


def test_models_are_frozen() -> None:
    task = Task.from_json({"id": "a"})
    with pytest.raises(dataclasses.FrozenInstanceError):
        task.id = "b"  # type: ignore[misc]


def test_failed_task_error_text_and_raise() -> None:
    task = Task.from_json(
        {"id": "a", "status": "FAILED", "error": {"code": "nsfw", "message": "Prompt refused"}}
    )
    assert task.error == "Prompt refused (code nsfw)."
    with pytest.raises(TaskFailedError) as caught:
        task.raise_if_failed()
    assert caught.value.task_id == "a"
    # The service's reason in plain words is quoted after Kiln's sentence; its code stays in the details.
    assert "Prompt refused (code nsfw)" in caught.value.details
    assert caught.value.user_message.endswith("later. (The service said: “Prompt refused”)")
    assert "nsfw" not in caught.value.user_message and caught.value.message.name == "TASK_REFUSED"
    assert isinstance(caught.value, KilnError)


@pytest.mark.parametrize(
    ("value", "plain"),
    [
        ("Prompt rejected by moderation", "Prompt rejected by moderation"),
        (
            {"code": 2010, "message": "Your prompt violates our content policy"},
            "Your prompt violates our content policy",
        ),
        ("E_MODERATION", None),  # a code, not words
        ("bad header Authorization: Bearer ***", None),  # the wire's words, a redacted key
        ("HTTP 500 from upstream", None),
        ("ValueError: prompt", None),
        ({"code": "nsfw"}, None),
        ("see https://example.com/status/abc for more", None),
        ("failed: {'trace': 1}", None),
        ("worker 9f8e7d6c5b4a3f2e died", None),  # an id
        ("x" * 30 + " " + "y" * 200, None),  # too long to quote
    ],
)
def test_only_a_reason_in_plain_words_is_quoted(value: object, plain: str | None) -> None:
    assert plain_reason(value) == plain


def test_failed_without_error_still_has_a_sentence() -> None:
    assert Task.from_json({"id": "a", "status": "failed"}).error == "The service gave no reason."


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("GPU out of memory", "GPU out of memory."),
        ("  spaced \n  out  ", "spaced out."),
        ("Already a sentence!", "Already a sentence!"),
        ({"message": "Bad image"}, "Bad image."),
        ({"detail": "Too dark"}, "Too dark."),
        ({"code": "E42"}, "Error code E42."),
        ({"code": "E42", "message": "Mesh failed"}, "Mesh failed (code E42)."),
        ({"error": {"code": "timeout", "message": "Took too long"}}, "Took too long (code timeout)."),
        (["first problem", "second problem"], "first problem; second problem."),
        ([{"loc": ["body", "prompt"], "msg": "field required"}], "prompt: field required."),
        ({"errors": [{"message": "a"}, {"message": "b"}]}, "a; b."),
        ({"foo": "bar"}, "foo: bar."),
        (500, "500."),
        (None, "The service gave no reason."),
        ("", "The service gave no reason."),
        ({}, "The service gave no reason."),
        ([], "The service gave no reason."),
    ],
)
def test_describe_error_of_any_shape(value: object, expected: str) -> None:
    assert describe_error(value) == expected


def test_describe_error_is_bounded_for_huge_or_deep_values() -> None:
    deep: object = "bottom"
    for _ in range(50):
        deep = {"error": deep}
    assert describe_error(deep) == "The service gave no reason."
    long = describe_error("x" * 5000)
    assert len(long) <= 400 and long.endswith("…")
