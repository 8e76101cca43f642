"""Why Generate cannot be pressed: what is missing to reach the service, or what the inputs lack.

Cheap checks only (no file is read while drawing): the operator checks the content when pressed.
Loaded by the first draw of the Generate panel, not when Kiln registers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import bpy

from .. import preferences
from ..api.checks import inputs
from ..api.errors import InputError
from ..api.jobs.service_side import request_order
from ..api.services import info
from ..api.services.order import refusal
from ..api.words import Message
from ..api.words import catalogue as words
from ..session.setup import Missing, missing
from .props import KilnGenerateSettings, effective_prompt, image_file, request_of


@dataclass(frozen=True)
class Blocker:
    """Why Generate cannot be pressed: what is missing to reach the service, or what the inputs lack."""

    missing: Missing = field(default_factory=Missing)
    reason: Message | None = None


def generate_blocker(context: bpy.types.Context, settings: KilnGenerateSettings) -> Blocker | None:
    """What keeps Generate from being pressed, or None when it can be."""
    lacking = missing(context)
    if lacking:
        return Blocker(missing=lacking)
    try:
        if settings.mode == "TEXT":
            inputs.check_prompt(effective_prompt(settings))
        else:
            _check_image_choice(settings)
    except InputError as exc:
        return Blocker(reason=exc.message)
    service = info(preferences.chosen_service(context))
    refused = refusal(service.capabilities, service.name, request_order(request_of(settings, context)))
    return Blocker(reason=refused) if refused is not None else None


def _check_image_choice(settings: KilnGenerateSettings) -> None:
    if settings.image_source == "FILE":
        if not settings.image_path.strip():
            raise InputError(words.CHOOSE_IMAGE_FILE)
        if not image_file(settings).is_file():
            raise InputError(words.IMAGE_FILE_MISSING, path=settings.image_path.strip())
    elif settings.image_source == "BLENDER":
        if settings.image is None:
            raise InputError(words.CHOOSE_BLENDER_IMAGE)
    else:
        inputs.check_web_url(settings.image_url, "image URL")
