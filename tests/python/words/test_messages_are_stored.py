"""A message survives JSON and the real job store: a job's error and note are said again after a restart.

A stored message keeps its entry's name (not its words), so it is said in the current words and the
artist's language; an older job list without messages, or a damaged one, still loads.
"""

from __future__ import annotations

import json
from pathlib import Path

from api.jobs import Job, JobRequest, JobState, job_details
from api.jobs.model import sentence
from api.jobs.store import JobStore
from api.words import Message, english_message, message
from api.words import catalogue as words


def test_a_message_goes_through_json_and_back_whole() -> None:
    said = message(words.JOB_TIMED_OUT, details="task task_7 is kept")
    assert Message.from_json(json.loads(json.dumps(said.to_json()))) == said


def test_a_message_holding_messages_goes_through_json_and_back_whole() -> None:
    inner = message(words.SERVICE_BUSY, details="HTTP 429")
    note = message(words.NOTE_TRYING_AGAIN, problem=inner, seconds=3)
    back = Message.from_json(json.loads(json.dumps(note.to_json())))
    assert back == note and back is not None and back.values["problem"] == inner
    assert english_message(back).endswith("Trying again in 3 s.")


def test_what_is_not_a_message_reads_as_none() -> None:
    for data in (None, "JOB_TIMED_OUT", 7, [], {"values": {}}, {"name": 5}):
        assert Message.from_json(data) is None


def _job(**changes: object) -> Job:
    job = Job(id="job0001", request=JobRequest(kind="text", prompt="a chair"), task_id="task_1")
    for name, value in changes.items():
        setattr(job, name, value)
    return job


def test_a_job_with_messages_is_saved_and_read_back_by_the_real_store(tmp_path: Path) -> None:
    error = message(words.SERVICE_OUT_OF_CREDITS, details="HTTP 402; Need 4 credits")
    note = message(words.NOTE_DOWNLOADING, percent=40)
    job = _job(state=JobState.FAILED, **sentence("error", error), **sentence("note", note))
    store = JobStore(tmp_path)
    store.open()
    try:
        store.put(job.id, job.state.value, job.to_json(), 0)
        (row,) = store.load()
    finally:
        store.close()
    assert row.data is not None
    back = Job.from_json(row.data)
    assert back.error_message == error and back.note_message == note
    assert back.error == english_message(error) and back.note == "Downloading 40%"
    assert "Need 4 credits" in job_details(back) and "task_1" in job_details(back)
    assert "Need 4 credits" not in back.error


def test_a_row_of_an_older_list_loads_without_messages() -> None:
    data = _job(error="The download failed.").to_json()
    for name in ("error_message", "note_message"):
        del data[name]
    back = Job.from_json(data)
    assert back.error == "The download failed." and back.error_message is None and back.note_message is None


def test_a_damaged_message_loads_as_none() -> None:
    data = _job(error="The download failed.").to_json()
    data["error_message"] = {"name": ["not", "a", "name"]}
    data["note_message"] = "Downloading 40%"
    back = Job.from_json(data)
    assert back.error_message is None and back.note_message is None and back.error == "The download failed."


def test_copy_details_gathers_what_support_needs_and_no_path_of_kilns_own() -> None:
    cache = Path("/home/artist/.config/blender/extensions/.user/kiln/cache")
    job = _job(
        task_id="",
        refused_task_id="abc\\x00def",
        state=JobState.OUTCOME_UNKNOWN,
        mesh_path=str(cache / "job0001.glb"),
        **sentence("error", message(words.OUTCOME_UNKNOWN, details="idempotency key k-1; HTTP 502")),
    )
    details = job_details(job).splitlines()
    assert "Kiln job: job0001" in details and "State: outcome unknown" in details
    assert "Service task Kiln refused to follow (escaped): abc\\x00def" in details
    assert "Error details: idempotency key k-1; HTTP 502" in details and "Files: job0001.glb" in details
    assert str(cache) not in job_details(job)
