"""A job as its service sees it: the order a request sends (:class:`api.services.order.Order`), whether
that service takes it, whether cancelling reaches it there, and whether a settled job's task can be
asked about again. Plain values, light enough for the Sidebar to ask while it draws (the engine's
heavier steps are not loaded for it)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from ..services import info
from .model import Job, JobKind, JobRequest, JobState

if TYPE_CHECKING:
    from ..services.order import Order
    from ..words import Message


def request_order(request: JobRequest) -> Order:
    """What a request asks its service to make (its first stage), in plain values."""
    from ..services.order import Order  # loaded by the first order, not when Kiln registers

    return Order(
        kind=str(request.kind),
        prompt=request.prompt,
        image_path=request.image_sent or request.image_path,  # the prepared image, when Kiln made one
        image_url="" if request.image_sent else request.image_url,
        views=request.views,
        model_path=request.model_path,
        tier=request.tier_id,
        provider=request.provider,
        quality=request.quality,
        webhook_url=request.webhook_url,
        options=request.option_values,
    )


def order_of(job: Job) -> Order:
    """What the job asks its service to make at its current stage (the task the stage before made)."""
    order = request_order(job.request)
    return replace(order, stage=job.stage, previous_task_id=job.task_id) if job.stage else order


def refusal_of(request: JobRequest) -> Message | None:
    """Why the request's service cannot take it, in a sentence (None: it can); nothing is sent then."""
    if request.kind is JobKind.TASK:
        return None
    from ..services.order import refusal

    service = info(request.service_id)
    return refusal(service.capabilities, service.name, request_order(request))


def cancels_on_service(job: Job) -> bool:
    """Whether cancelling ``job`` reaches its service: it documents a cancel, and a task is running there."""
    return info(job.request.service_id).capabilities.cancel and bool(job.task_id) and job.state.is_active


#: Endings whose sentence says to press Resume: the service has (or may have) the mesh, so asking
#: again is free, unlike Retry.
RESUMABLE_ENDINGS = frozenset(
    {"MESH_DOWNLOAD_FAILED", "SERVICE_DOWNLOAD_LINK_REFUSED", "SERVICE_DONE_WITHOUT_MESH", "MESH_DAMAGED"}
)
#: Notes of a stopped job whose task was left running on its service (Stop Waiting, or a cancel the
#: service did not confirm): asking about it again costs nothing.
LEFT_RUNNING_NOTES = frozenset({"NOTE_STOPPED_WAITING", "NOTE_CANCEL_FAILED"})


def resumable(job: Job) -> bool:
    """Whether Resume can bring the job's mesh in without a new task: it gave up waiting, was stopped
    while its task runs on, or its mesh could not be fetched (never a task its service deleted)."""
    if not job.task_id or job.state.is_active:
        return False
    if job.state is JobState.TIMED_OUT:
        return True
    if job.state is JobState.CANCELLED:
        return job.note_message is not None and job.note_message.name in LEFT_RUNNING_NOTES
    ending = job.error_message.name if job.error_message is not None else ""
    return job.state is JobState.FAILED and ending in RESUMABLE_ENDINGS
