"""What a request asks its service to make, and whether that service takes it: plain values, light
enough for the Sidebar to ask while it draws (the engine's heavier steps are not loaded for it), and
whether cancelling a job reaches its service."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from ..services import info
from .model import Job, JobKind, JobRequest

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
