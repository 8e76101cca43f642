"""The Generate panel's offer of a library copy: "Already generated on <date>: Use It / Generate Anyway".

Never offered for what this session has just made: the artist would only be shown their own result.

Drawing stays cheap: the request's key is a hash of a short string (or of the image file, hashed
once per file version), and the answer is kept for a second, so the library index is looked at
about once a second while the panel redraws, never per draw.
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path
from typing import Any

import bpy

from .. import preferences
from ..api.features.library_index import Entry, image_digest_key, request_key
from ..api.words import catalogue as words
from ..drawing import buttons_row, wrapped_label
from ..language import text
from ..session import library
from .props import (
    VIEW_SETTINGS,
    KilnGenerateSettings,
    chosen_options,
    chosen_tier,
    effective_prompt,
    image_file,
    request_of,
    uses_views,
)

#: Seconds an answer is kept before the index is looked at again.
FRESH_SECONDS = 1.0
_answers: dict[str, tuple[float, Entry | None, bool]] = {}
_image_hashes: dict[tuple[str, int, int], bytes] = {}


def operator_id(settings: KilnGenerateSettings, context: bpy.types.Context | None = None) -> str:
    if settings.mode == "TEXT":
        return "kiln.generate_from_text"
    if uses_views(settings, preferences.chosen_service(context)):
        return "kiln.generate_from_views"
    return "kiln.generate_from_image"


def fill(op: Any, settings: KilnGenerateSettings, context: bpy.types.Context | None = None) -> None:
    """Give a generate button the panel's inputs and the chosen service (said, so the button keeps
    going where the panel showed even if the preference changes before it is pressed)."""
    service = preferences.chosen_service(context)
    op.service = service
    tier = chosen_tier(settings, service)
    if tier:
        op.tier = tier
    for name, value in chosen_options(settings, service).items():
        setattr(op, name, value)
    if settings.mode == "TEXT":
        op.prompt = effective_prompt(settings)
        op.resolution = settings.text_resolution
        op.provider = settings.provider
        op.quality = settings.quality
        return
    op.resolution = settings.image_resolution
    if uses_views(settings, service):
        _fill_views(op, settings)
        return
    if settings.image_source == "FILE":
        op.filepath = settings.image_path
    elif settings.image_source == "BLENDER" and settings.image is not None:
        op.image_name = settings.image.name
    elif settings.image_source == "URL":
        op.image_url = settings.image_url
    op.webhook_url = settings.webhook_url
    op.prepare = settings.image_prepare
    op.variants = settings.image_variants


def _fill_views(op: Any, settings: KilnGenerateSettings) -> None:
    """The front (the image chosen above) and the views given, as ``generate_from_views`` takes them."""
    if settings.image_source == "FILE":
        op.front = settings.image_path
    elif settings.image is not None:
        op.front = settings.image.name
    op.back, op.left, op.right = (getattr(settings, name) for name in VIEW_SETTINGS)


def fill_generate(op: Any, settings: KilnGenerateSettings, context: bpy.types.Context) -> None:
    """Give the Generate button the panel's inputs. When the library's copy is this session's own
    result (no offer is shown for it), pressing Generate again asks for another one: it sends."""
    fill(op, settings, context)
    entry, own = _match(settings, context)
    if entry is not None and own:
        op.reuse = "NEVER"


def draw(layout: bpy.types.UILayout, context: bpy.types.Context, settings: KilnGenerateSettings) -> None:
    """Two buttons under Generate when the panel's request is already in the library (from earlier
    work: never the result this session has just made)."""
    entry, own = _match(settings, context)
    if entry is None or own:
        return
    box = layout.box()
    wrapped_label(box, context, text(words.ALREADY_GENERATED, date=entry.date), icon="ASSET_MANAGER", boxes=1)
    use_it, anyway = text(words.USE_IT_FREE), text(words.GENERATE_ANYWAY)
    row = buttons_row(box, context, use_it, anyway, boxes=1)
    use = row.operator(operator_id(settings, context), text=use_it, icon="APPEND_BLEND")
    fill(use, settings, context)
    use.reuse = "ALWAYS"
    send = row.operator(operator_id(settings, context), text=anyway, icon="PLAY")
    fill(send, settings, context)
    send.reuse = "NEVER"


def _match(settings: KilnGenerateSettings, context: bpy.types.Context | None) -> tuple[Entry | None, bool]:
    """The library's copy of the panel's request, and whether this session has just made it."""
    key = _key(settings, context)
    if key is None:
        return None, False
    now = time.monotonic()
    cached = _answers.get(key)
    if cached is None or now - cached[0] > FRESH_SECONDS:
        found = library.index().lookup(key)
        cached = (now, found, found is not None and library.made_this_session(found))
        _answers.clear()  # one request is on screen at a time
        _answers[key] = cached
    return cached[1], cached[2]


def _key(settings: KilnGenerateSettings, context: bpy.types.Context | None) -> str | None:
    request = request_of(settings, context)
    if settings.mode == "TEXT":
        return request_key(request) if request.prompt else None
    if settings.image_source != "FILE" or not settings.image_path.strip():
        return None
    if uses_views(settings, preferences.chosen_service(context)):
        return None  # the library keeps single-image requests
    digest = _file_digest(image_file(settings))
    if digest is None:
        return None
    return image_digest_key(digest.hex(), request)


def _file_digest(path: Path) -> bytes | None:
    """The file's sha256, computed once per version of the file (its size and modification time)."""
    try:
        st = path.stat()
    except OSError:
        return None
    version = (str(path), st.st_mtime_ns, st.st_size)
    if version not in _image_hashes:
        try:
            _image_hashes.clear()
            _image_hashes[version] = hashlib.sha256(path.read_bytes()).digest()
        except OSError:
            return None
    return _image_hashes[version]
