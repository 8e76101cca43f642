"""The Generate panel: a prompt or an image in, one button out, and the reason when it cannot be pressed."""

from __future__ import annotations

from dataclasses import dataclass

import bpy

from .. import preferences
from ..api import inputs
from ..api.errors import InputError
from ..operators.common import setup_problem
from . import thumbnails
from .props import KilnGenerateSettings, effective_prompt
from .widgets import wrapped_label


@dataclass(frozen=True)
class Blocker:
    """Why Generate cannot be pressed, and where the artist fixes it ('' = in this panel)."""

    reason: str
    fix: str = ""  # 'KILN_PREFERENCES', 'SYSTEM_PREFERENCES' or ''


def generate_blocker(context: bpy.types.Context, settings: KilnGenerateSettings) -> Blocker | None:
    """The first thing missing before a job can be sent, or None when Generate can be pressed."""
    problem = setup_problem(context)
    if problem:
        if not bpy.app.online_access:
            return Blocker(problem, "" if bpy.app.online_access_override else 'SYSTEM_PREFERENCES')
        return Blocker(problem, 'KILN_PREFERENCES')
    try:
        if settings.mode == 'TEXT':
            inputs.check_prompt(effective_prompt(settings))
        else:
            _check_image_choice(settings)
    except InputError as exc:
        return Blocker(exc.user_message)
    return None


def _check_image_choice(settings: KilnGenerateSettings) -> None:
    """Cheap checks only (no file reads): the operator checks the file's content when pressed."""
    if settings.image_source == 'FILE':
        path = settings.image_path.strip()
        if not path:
            raise InputError("Choose an image file (PNG, JPEG or WebP).")
        if not preferences_path_exists(path):
            raise InputError(f"The image file {path} does not exist.")
    elif settings.image_source == 'BLENDER':
        if settings.image is None:
            raise InputError("Choose an image from this file (Render Result included).")
    else:
        inputs.check_url(settings.image_url, what="image URL")


def preferences_path_exists(path: str) -> bool:
    from pathlib import Path

    return Path(bpy.path.abspath(path)).is_file()
