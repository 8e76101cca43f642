"""Advice that names a control, given only where the job's service has that control.

Some sentences end in advice ("Try resolution 1024 for a smaller mesh"): on a service without
resolutions that advice names a control the artist does not have. Each such sentence has variants
in the catalogue, one a control it may name, and :func:`fitted` picks the first whose control the
job's service has (its :class:`~.capabilities.Capabilities`), else the one without advice. The job
engine fits a job's error to its service as it settles it, so every place that says it agrees.
"""

from __future__ import annotations

from ..words import Message
from .capabilities import Capabilities

#: The controls a sentence's advice may name, by what they are called in the advice.
RESOLUTION = "resolution"  # Capabilities.smaller_resolution (the interface document's resolutions)
FACE_LIMIT = "face limit"  # the polygons option, sent to the service
CHEAPER_TIER = "cheaper tier"  # tiers of different published prices

#: Each sentence whose advice names a control: its variants, best first, as (the control it names,
#: the catalogue entry); the last names none and fits every service.
VARIANTS: dict[str, tuple[tuple[str, str], ...]] = {
    "SERVICE_OUT_OF_CREDITS": (
        (RESOLUTION, "SERVICE_OUT_OF_CREDITS"),
        (CHEAPER_TIER, "SERVICE_OUT_OF_CREDITS_CHEAPER_TIER"),
        ("", "SERVICE_OUT_OF_CREDITS_TOP_UP"),
    ),
    "MESH_TOO_LARGE": (
        (RESOLUTION, "MESH_TOO_LARGE"),
        (FACE_LIMIT, "MESH_TOO_LARGE_FACE_LIMIT"),
        ("", "MESH_TOO_LARGE_PLAIN"),
    ),
    "MESH_OUT_OF_MEMORY": (
        (RESOLUTION, "MESH_OUT_OF_MEMORY"),
        (FACE_LIMIT, "MESH_OUT_OF_MEMORY_FACE_LIMIT"),
        ("", "MESH_OUT_OF_MEMORY_PLAIN"),
    ),
}
#: Every variant, back to the sentence it is one of (a stored job may carry any of them).
_FAMILY = {entry: name for name, variants in VARIANTS.items() for _control, entry in variants}


def has_control(capabilities: Capabilities, control: str) -> bool:
    """Whether a service offers the control an advice names ("" : none named, always true)."""
    tiers = capabilities.tiers("text") + capabilities.tiers("image")
    if control == RESOLUTION:
        wanted = capabilities.smaller_resolution
        return bool(wanted) and any(tier.id == wanted for tier in tiers)
    if control == FACE_LIMIT:
        return "polygons" in capabilities.options
    if control == CHEAPER_TIER:
        return len({tier.credits for tier in tiers if tier.credits is not None}) > 1
    return control == ""


def fitted(said: Message, capabilities: Capabilities) -> Message:
    """``said`` with the advice that fits the service (a sentence without advice stays as it is)."""
    family = _FAMILY.get(said.name)
    if family is None:
        return said
    for control, entry in VARIANTS[family]:
        if has_control(capabilities, control):
            return Message(entry, said.values, said.details)
    return said
