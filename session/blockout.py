"""Blockout to assets, the session's part: which selected objects are placeholders, and what each asks for.

Only an object marked as a placeholder (``kiln_prompt`` or ``kiln_image``, which Mark as Placeholder
sets) asks for a job: never a camera or a light, never an object that still has the name Blender
gave it, never a name alone — a selection of Blender's default scene sends nothing. The requests
are all built (``plan``) before the first is sent, so a run that cannot go as a
whole (a bad image, a credit cap) is refused before it costs anything. The fitting happens at
import (``session.scene_import``), wherever the job is imported from: the job remembers its
placeholder by name (``JobRequest.placeholder``). The operators are ``operators.blockout``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import bpy

from ..api.checks import inputs
from ..api.errors import KilnError
from ..api.features.blockout import (
    DEFAULT_NAMES,
    NEVER_PLACEHOLDERS,
    JobSource,
    has_default_name,
    job_source,
    variant_after,
)
from ..api.jobs import JobRequest
from ..api.words import Message, message, shorten
from ..api.words import catalogue as words
from ..language import said
from . import variants
from .job_requests import image_resolution, save_blender_image
from .scene_objects import NAME_CHARS, custom


@dataclass
class Plan:
    """The jobs a selection becomes, and the objects left out with why (a sentence each)."""

    requests: list[JobRequest] = field(default_factory=list)
    skipped: list[Message] = field(default_factory=list)


def default_names() -> frozenset[str]:
    """Blender's names for new objects, in English and as Blender names new data in the artist's language."""
    translated = {str(bpy.app.translations.pgettext_data(name)) for name in DEFAULT_NAMES}  # type: ignore[func-returns-value]
    return DEFAULT_NAMES | translated


def placeholders(context: bpy.types.Context) -> list[bpy.types.Object]:
    """The selected placeholders; a selected result stands for its placeholder."""
    return [obj for obj in _selected(context) if source_of(obj) is not None]


def not_placeholders(context: bpy.types.Context) -> list[bpy.types.Object]:
    """The selected objects that are no placeholder (unmarked, still named by Blender, a camera…)."""
    return [obj for obj in _selected(context) if source_of(obj) is None]


def _selected(context: bpy.types.Context) -> list[bpy.types.Object]:
    found: dict[str, bpy.types.Object] = {}
    for obj in context.selected_objects:
        name = custom(obj, variants.PLACEHOLDER_KEY)
        target = bpy.data.objects.get(name) if isinstance(name, str) else obj
        if target is not None:
            found.setdefault(target.name, target)
    return list(found.values())


def source_of(obj: bpy.types.Object) -> JobSource | None:
    """What a placeholder asks for (``kiln_image``, else ``kiln_prompt``); None for an object that is
    no placeholder: not marked, a camera or a light, or still called what Blender named it."""
    if obj.type in NEVER_PLACEHOLDERS or has_default_name(obj.name, default_names()):
        return None
    return job_source(custom(obj, "kiln_prompt"), custom(obj, "kiln_image"))


def why_not(obj: bpy.types.Object) -> Message:
    """Why a selected object is no placeholder, in words (for a refusal or a skipped line)."""
    if obj.type in NEVER_PLACEHOLDERS:
        return message(words.BLOCKOUT_NOT_A_SHAPE, name=obj.name)
    if has_default_name(obj.name, default_names()):
        return message(words.BLOCKOUT_DEFAULT_NAME, name=obj.name)
    return message(words.BLOCKOUT_NOT_MARKED, name=obj.name)


def quick_request(obj: bpy.types.Object, resolution: int | None) -> JobRequest | None:
    """The request without reading any image (for the panel's count and estimate)."""
    source = source_of(obj)
    if source is None:
        return None
    if source.kind == "image":
        return JobRequest(kind="image", resolution=image_resolution(resolution), placeholder=obj.name)
    return JobRequest(kind="text", prompt=source.value, resolution=resolution, placeholder=obj.name)


def plan(objects: list[bpy.types.Object], resolution: int | None) -> Plan:
    """Every request, checked, before anything is sent; unusable objects are named with the reason."""
    result = Plan()
    for obj in objects:
        source = source_of(obj)
        if source is None:
            result.skipped.append(why_not(obj))
            continue
        try:
            result.requests.append(_request(obj.name, source, resolution))
        except KilnError as exc:
            result.skipped.append(message(words.BLOCKOUT_SKIPPED, name=obj.name, reason=said(exc.message)))
    return result


def mark(objects: list[bpy.types.Object], prompt: str) -> list[bpy.types.Object]:
    """Mark objects as placeholders asking for ``prompt``; one still called what Blender named it takes
    the prompt as its name, so it is a placeholder of its own. Cameras and lights are left alone."""
    marked = []
    for obj in objects:
        if obj.type in NEVER_PLACEHOLDERS:
            continue
        obj["kiln_prompt"] = prompt
        if has_default_name(obj.name, default_names()):
            obj.name = shorten(prompt, NAME_CHARS)
        marked.append(obj)
    return marked


def _request(name: str, source: JobSource, resolution: int | None) -> JobRequest:
    if source.kind == "text":
        prompt = inputs.check_prompt(source.value)
        return JobRequest(kind="text", prompt=prompt, resolution=resolution, name=name, placeholder=name)
    image_name = source.value if source.value in bpy.data.images else ""
    path = save_blender_image(image_name) if image_name else Path(bpy.path.abspath(source.value))
    inputs.read_image_file(path)
    return JobRequest(
        kind="image",
        image_path=str(path),
        resolution=image_resolution(resolution),
        name=name,
        blender_image=image_name,
        placeholder=name,
    )


def has_result(request: JobRequest) -> bool:
    """Whether the request's placeholder already shows a result: asking again means another variant."""
    return bool(request.placeholder and variants.variants_of(request.placeholder))


def with_results(requests: list[JobRequest]) -> int:
    """How many of the requests are for a placeholder that already shows a result (another variant)."""
    return sum(has_result(r) for r in requests)


def active_placeholder(context: bpy.types.Context) -> str:
    """The placeholder of the active object (itself, or the one it is a result of); '' when none."""
    obj = context.view_layer.objects.active if context.view_layer else None
    if obj is None:
        return ""
    name = custom(obj, variants.PLACEHOLDER_KEY)
    if isinstance(name, str):
        return name
    return obj.name if variants.variants_of(obj.name) else ""


def cycle(context: bpy.types.Context, placeholder: str, step: int) -> int | None:
    """Show the variant ``step`` away from the shown one; the active object follows it."""
    results = variants.variants_of(placeholder)
    number = variant_after(list(results), variants.shown_variant(placeholder, context), step)
    if number is None:
        return None
    variants.show_variant(context, placeholder, number)
    shown = [obj for obj in results[number] if obj.name in context.view_layer.objects]
    roots = [obj for obj in shown if obj.parent is None] or shown
    if roots:
        for obj in context.view_layer.objects:
            obj.select_set(obj in shown)
        context.view_layer.objects.active = roots[0]
    return number
