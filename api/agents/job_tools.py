"""The tools that follow, list, stop, import and show jobs agents asked for; none of them costs credits.

``get_job`` waits in bounded steps (at most :data:`MAX_WAIT` seconds per call, asking the host again
every :data:`~api.agents.calls.WAIT_STEP`), with a progress notification whenever the job's progress
grew and the client asked for them: long work is waited on in several short calls, never one long
call that a client's timeout cuts off.
"""

from __future__ import annotations

import time
from typing import Any

from ..checks.glb import IMAGE_MIME, check_preview, image_kind
from ..errors import InputError
from ..jobs import JobState
from . import words
from .arguments import Arguments, Choice, Number, Text
from .calls import Call
from .host import JobView
from .results import Picture, ToolResult, job_json, job_result, job_sentence

MAX_WAIT = 25
MAX_LISTED = 50
#: The largest preview an agent is sent (as base64 in the answer).
MAX_PREVIEW_BYTES = 8 * 1024 * 1024
ACTIVE = "active"

JOB_ID = Text(
    "The job's id, as generate_from_text, generate_from_image or list_jobs gave it.",
    64,
    r"[A-Za-z0-9_-]{1,64}",
    "letters, digits, - and _",
)
JOB_ARGUMENTS = Arguments({"job_id": JOB_ID}, required=("job_id",))
GET_ARGUMENTS = Arguments(
    {
        "job_id": JOB_ID,
        "wait_seconds": Number(
            f"Wait up to this many seconds (at most {MAX_WAIT}) for the job to settle, with progress "
            "notifications on the way; 0 answers at once.",
            0,
            MAX_WAIT,
            default=0,
        ),
    },
    required=("job_id",),
)
LIST_ARGUMENTS = Arguments(
    {
        "state": Choice(
            "Only jobs in this state ('active': still being worked on).",
            (ACTIVE, *(state.value for state in JobState)),
        )
    }
)


def agent_job(call: Call, job_id: str) -> JobView:
    """The job, when an agent asked for it; InputError otherwise (the artist's jobs are not shown)."""
    view = call.host.job(job_id)
    if view is None or not view.agent:
        raise InputError(words.NO_SUCH_JOB.format(job_id=job_id))
    return view


def get_job(call: Call, args: dict[str, Any]) -> ToolResult:
    job_id = args["job_id"]
    view = agent_job(call, job_id)
    deadline = time.monotonic() + float(args["wait_seconds"])
    sent = -1.0
    while True:
        if call.progress is not None and view.progress > sent:
            call.progress.send(min(view.progress, 100.0), 100.0, job_sentence(view))
            sent = view.progress
        left = deadline - time.monotonic()
        if view.settled or left <= 0 or call.abandoned:
            return job_result(view)
        if call.stop.wait(min(call.wait_step, left)):
            return job_result(view)
        view = agent_job(call, job_id)


def list_jobs(call: Call, args: dict[str, Any]) -> ToolResult:
    state = args.get("state")
    views = [view for view in call.host.jobs() if view.agent]
    if state == ACTIVE:
        views = [view for view in views if view.state.is_active]
    elif state:
        views = [view for view in views if view.state.value == state]
    views.sort(key=lambda view: view.created, reverse=True)
    shown = views[:MAX_LISTED]
    text = "\n".join([words.jobs_listed(len(shown), len(views)), *(job_sentence(view) for view in shown)])
    return ToolResult(text, {"jobs": [job_json(view) for view in shown], "total": len(views)})


def cancel_job(call: Call, args: dict[str, Any]) -> ToolResult:
    agent_job(call, args["job_id"])
    return job_result(call.host.cancel(args["job_id"]))


def import_job(call: Call, args: dict[str, Any]) -> ToolResult:
    agent_job(call, args["job_id"])
    return job_result(call.host.import_job(args["job_id"]))


def get_preview(call: Call, args: dict[str, Any]) -> ToolResult:
    job_id = args["job_id"]
    agent_job(call, job_id)
    path = call.host.preview_path(job_id)
    if path is None:
        raise InputError(words.NO_PREVIEW_YET.format(job_id=job_id))

    def unusable(reason: str) -> InputError:
        return InputError(words.PREVIEW_UNUSABLE.format(job_id=job_id, reason=reason))

    try:
        if path.stat().st_size > MAX_PREVIEW_BYTES:
            raise unusable(f"it is larger than {MAX_PREVIEW_BYTES // (1024 * 1024)} MB")
        kind = check_preview(path)
        data = path.read_bytes()
    except OSError as exc:
        raise unusable(exc.strerror or "it cannot be read") from None
    if len(data) > MAX_PREVIEW_BYTES or image_kind(data[:16]) != kind:
        raise unusable("it changed while Kiln read it")
    mime = IMAGE_MIME[kind]
    structured = {"job_id": job_id, "mime_type": mime, "bytes": len(data)}
    return ToolResult(words.PREVIEW_SHOWN.format(job_id=job_id), structured, Picture(data, mime))
