"""What the job engine asks a service to make: one plain value, whatever the service.

The engine builds an :class:`Order` from a job's request on a worker; each service module turns
it into its own wire. Options a service lacks never reach it: they are refused before a job is
recorded (``refusal``). A re-texture's mesh is read once for every service (``model_bytes``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError
from ..words import Message, message
from ..words import catalogue as words
from .capabilities import OPTION_NAMES, Capabilities


@dataclass(frozen=True)
class Order:
    """One submit: a text or image job (``stage`` > 0: a later stage of the same job)."""

    kind: str  # "text", "image" or "retexture"
    prompt: str = ""
    image_path: str = ""
    image_url: str = ""
    #: More images of the same object after the front, read by position as (back, left, right); a
    #: missing view in the middle is "" (each client leaves it out as its service documents).
    views: tuple[str, ...] = ()
    #: A re-texture's mesh (a GLB Kiln exported); its style is ``prompt`` or ``image_path``.
    model_path: str = ""
    #: A tier of the service's capabilities ("" : its default).
    tier: str = ""
    #: The interface service's image model for text jobs (its ``image_model``).
    provider: str = ""
    quality: str = ""
    webhook_url: str = ""
    #: Options by their one name (:data:`OPTION_NAMES`); absent: the service's default.
    options: dict[str, object] = field(default_factory=dict)
    #: Which stage of a job of several stages (Meshy's preview then refine) this submit is, and the
    #: task the stage before made.
    stage: int = 0
    previous_task_id: str = ""


def given_views(views: tuple[str, ...]) -> list[str]:
    """The views actually given (a missing one, "", left out), in their order."""
    return [view for view in views if str(view or "").strip()]


def refusal(capabilities: Capabilities, service_name: str, order: Order) -> Message | None:
    """Why ``order`` cannot go to this service, in a sentence (None: it can). Nothing is sent then."""
    if not capabilities.takes(order.kind):
        entries = {"text": words.SERVICE_TAKES_NO_TEXT, "retexture": words.SERVICE_TAKES_NO_RETEXTURE}
        return message(entries.get(order.kind, words.SERVICE_TAKES_NO_IMAGE), service=service_name)
    if order.tier and capabilities.tier(order.kind, order.tier) is None:
        retired = next((t for t in capabilities.known_tiers(order.kind) if t.id == order.tier), None)
        if retired is not None:
            return message(words.SERVICE_TIER_RETIRED, service=service_name, tier=order.tier)
        return message(words.SERVICE_TIER_UNKNOWN, service=service_name, tier=order.tier)
    if order.image_url and not capabilities.image_url:
        return message(words.SERVICE_TAKES_NO_IMAGE_URL, service=service_name)
    views = given_views(order.views)
    if views and capabilities.max_views <= 1:
        return message(words.SERVICE_TAKES_ONE_IMAGE, service=service_name)
    if 1 + len(views) > capabilities.max_views:
        return message(words.SERVICE_TAKES_FEWER_VIEWS, service=service_name, n=capabilities.max_views)
    offered = capabilities.retexture_options if order.kind == "retexture" else capabilities.options
    for name in OPTION_NAMES:
        if name in order.options and name not in offered:
            return message(words.SERVICE_LACKS_OPTION, service=service_name, option=name)
    return None


def model_bytes(order: Order, service_name: str, max_bytes: int) -> bytes:
    """A re-texture's mesh (the GLB Kiln exported), or a sentence when it is larger than the service
    takes (``max_bytes``), unreadable or not a GLB; nothing is sent then."""
    try:
        size = Path(order.model_path).stat().st_size
        if size > max_bytes:
            raise InputError(
                words.RETEXTURE_TOO_LARGE,
                service=service_name,
                size=f"{size / 1e6:.0f} MB",
                limit=f"{max_bytes / 1e6:.0f} MB",
            )
        data = Path(order.model_path).read_bytes()
    except (OSError, ValueError, TypeError):
        raise InputError(words.RETEXTURE_EXPORT_FAILED, details="the exported mesh cannot be read") from None
    if data[:4] != b"glTF":
        raise InputError(words.RETEXTURE_EXPORT_FAILED, details="the exported mesh is not a GLB file")
    return data
