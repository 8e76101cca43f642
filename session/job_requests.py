"""The requests the generate operators and the Generate panel build from what the artist chose.

The panel builds the text request while it draws, to look for it in the library ("Already
generated"); the operator builds it to send. Both build it here, so the offer is about exactly the
request Generate sends. The resolution choices live here too, with the one reading of "AUTO", and
the one way a Blender image becomes a file to upload.
"""

from __future__ import annotations

import logging
import uuid
from pathlib import Path

import bpy

from .. import preferences
from ..api.checks import inputs
from ..api.errors import InputError
from ..api.jobs import UPLOADS_DIR, JobRequest
from ..api.jobs.disk import ensure_folder
from ..api.services import info, old_records_service
from ..api.words import catalogue as words
from ..options import AUTO

log = logging.getLogger(__name__)


def resolution(choice: str) -> int | None:
    """A resolution choice (``options.TABLE``'s resolution or image_resolution) as a request takes it."""
    return None if choice == AUTO else int(choice)


def image_resolution(given: int | None) -> int:
    """An image job's resolution: the one given, else the image default of the service whose quality is
    its resolution (the old records' service: written once, in its package)."""
    return given or int(info(old_records_service()).capabilities.default_tier("image"))


def image_price_request(resolution_choice: str) -> JobRequest:
    """An image job's price is its resolution's: a request that says only that (for an estimate)."""
    return JobRequest(
        kind="image", image_url="https://priced.invalid/", resolution=resolution(resolution_choice)
    )


def retexture_price_request(service: str) -> JobRequest:
    """A re-texture's price is its service's: a request that says only that (for an estimate)."""
    return JobRequest(kind="retexture", service=service)


def text_request(prompt: str, resolution_choice: str, provider: str = "", quality: str = "") -> JobRequest:
    """The text job for these fields, spaces around each trimmed (the operator checks the prompt)."""
    return JobRequest(
        kind="text",
        prompt=prompt.strip(),
        resolution=resolution(resolution_choice),
        provider=provider.strip(),
        quality=quality.strip(),
    )


def save_blender_image(name: str) -> Path:
    """Write any Blender image (packed, generated, Render Result) to a PNG the workers can upload."""
    image = bpy.data.images.get(name)
    if image is None:
        raise InputError(f"There is no image called “{name}” in this file.")
    if image.type != "RENDER_RESULT" and not image.has_data and image.source == "FILE":
        image.reload()
    if image.type != "RENDER_RESULT" and tuple(image.size) == (0, 0):
        raise InputError(f"The image “{name}” has no pixels (is its file missing?).")
    folder = preferences.user_dir() / UPLOADS_DIR
    ensure_folder(folder, "save the image to upload")
    path = folder / f"{uuid.uuid4().hex}.png"
    scene = bpy.context.scene
    settings = scene.render.image_settings
    saved = (settings.file_format, settings.color_mode)
    settings.file_format, settings.color_mode = "PNG", "RGBA"
    try:
        image.save_render(str(path), scene=scene)
    except RuntimeError as exc:
        log.warning("Could not save image %s: %s", name, exc)
        raise InputError(f"The image “{name}” could not be saved as PNG (has it been rendered?).") from exc
    finally:
        settings.file_format, settings.color_mode = saved
    return path


def image_of(value: str) -> tuple[Path, str]:
    """An image given as a file path or a Blender image's name: the file to send, and the Blender
    image's name ("" for a file). Raises InputError when it is neither, or not an image Kiln can send."""
    value = value.strip()
    if bpy.data.images.get(value) is not None:
        return save_blender_image(value), value
    path = Path(bpy.path.abspath(value))
    if not path.is_file():
        raise InputError(words.VIEW_NOT_FOUND, name=value)
    inputs.read_image_file(path)
    return path, ""


def views_request(front: str, back: str = "", left: str = "", right: str = "") -> JobRequest:
    """One image job of several views: the front as the image, the others by position (back, left,
    right; "" where one in the middle is missing, none after the last given)."""
    if not front.strip():
        raise InputError(words.VIEWS_NEED_FRONT)
    front_path, front_image = image_of(front)
    views = [str(image_of(view)[0]) if view.strip() else "" for view in (back, left, right)]
    while views and not views[-1]:
        views.pop()
    return JobRequest(
        kind="image",
        image_path=str(front_path),
        views=tuple(views),
        name=front_image,
        blender_image=front_image,
    )
