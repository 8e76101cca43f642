"""What the Sidebar remembers: the Generate panel's inputs per scene, and the job list's rows.

The Generate inputs live on the scene (``Scene.kiln``) so a .blend reopens with its prompt; the
API key is never among them. The job rows live on the window manager, which is not saved:
they only mirror the engine's job ids so a UIList can draw them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import bpy
from bpy.props import (
    BoolProperty,
    CollectionProperty,
    EnumProperty,
    IntProperty,
    PointerProperty,
    StringProperty,
)

from .. import preferences
from ..api.services import info, old_records_service, service_ids
from ..api.words import catalogue as words
from ..api.words.contexts import KILN_CONTEXT
from ..options import declare

if TYPE_CHECKING:
    from ..api.jobs import JobRequest

#: The style choice that sends none (the service's own look).
NO_STYLE = "NONE"
#: The panel's option settings, by the one option name each stands for (``api.services.OPTION_NAMES``).
OPTION_SETTINGS = {
    "pbr": "option_pbr",
    "quad": "option_quad",
    "texture": "option_texture",
    "polygons": "option_polygons",
}
#: The views after the front, in ``JobRequest.views``'s order (back, left, right).
VIEW_SETTINGS = ("view_back", "view_left", "view_right")


def tier_setting(service: str) -> str:
    """The panel's tier setting of a service (one a service: its choices are fixed, so Blender never
    asks a function for them). The old records' service's tier is its resolution (``text_resolution``,
    ``image_resolution``), kept as it always was."""
    return f"tier_{service.lower()}"


def tier_is_resolution(service: str) -> bool:
    """The service's tier is sent as the job's resolution (the old records' service: its stored
    jobs, library keys and ``kiln_resolution`` say it so)."""
    return service == old_records_service()


def style_setting(service: str) -> str:
    """The panel's style setting of a service that has styles."""
    return f"option_style_{service.lower()}"


def _choices(service: str) -> dict[str, Any]:
    """A service's tier and style settings, made once when the add-on loads.

    Fixed choices, one setting a service: Blender 4.2 crashes as it exits when an enum's choices
    come from a function (its strings outlive Python's module teardown)."""
    capabilities = info(service).capabilities
    # The tiers offered today: one its service has retired is never a choice (a job naming it is refused).
    offered = (*capabilities.tiers("text"), *capabilities.tiers("image"))
    tiers = list({tier.id: tier for tier in offered}.values())
    tiers.sort(key=lambda tier: tier.id not in (capabilities.text_default, capabilities.image_default))
    made: dict[str, Any] = {}
    if tiers:  # a service of one quality offers no choice
        made[tier_setting(service)] = EnumProperty(  # type: ignore[func-returns-value]
            name=words.OPTION_TIER.name,
            description=words.OPTION_TIER.tip,
            items=[(tier.id, tier.label.name, tier.label.tip) for tier in tiers],
        )
    if capabilities.styles:
        styles = [(style.id, style.label.name, style.label.tip) for style in capabilities.styles]
        made[style_setting(service)] = EnumProperty(  # type: ignore[func-returns-value]
            name=words.ARG_STYLE.name,
            description=words.ARG_STYLE.tip,
            items=[(NO_STYLE, words.STYLE_NONE.name, words.STYLE_NONE.tip), *styles],
        )
    return made


class KilnGenerateSettings(bpy.types.PropertyGroup):
    """The Generate panel's inputs for this scene."""

    mode: EnumProperty(  # type: ignore[valid-type]
        name=words.SETTING_SOURCE.name,
        description=words.SETTING_SOURCE.tip,
        items=(
            ("TEXT", words.SOURCE_TEXT.name, words.SOURCE_TEXT.tip, "FONT_DATA", 0),
            ("IMAGE", words.SOURCE_IMAGE.name, words.SOURCE_IMAGE.tip, "IMAGE_DATA", 1),
        ),
        default="TEXT",
    )
    prompt: StringProperty(name=words.ARG_PROMPT.name, description=words.ARG_PROMPT.tip)  # type: ignore[valid-type]
    prompt_text: PointerProperty(  # type: ignore[valid-type]
        type=bpy.types.Text, name=words.SETTING_LONG_PROMPT.name, description=words.SETTING_LONG_PROMPT.tip
    )
    text_resolution: declare("resolution")  # type: ignore[valid-type]
    provider: StringProperty(name=words.ARG_PROVIDER.name, description=words.ARG_PROVIDER.tip)  # type: ignore[valid-type]
    quality: StringProperty(name=words.ARG_QUALITY.name, description=words.ARG_QUALITY.tip)  # type: ignore[valid-type]
    image_source: EnumProperty(  # type: ignore[valid-type]
        name=words.SETTING_IMAGE_FROM.name,
        description=words.SETTING_IMAGE_FROM.tip,
        items=(
            ("FILE", words.IMAGE_FROM_FILE.name, words.IMAGE_FROM_FILE.tip, "FILE_IMAGE", 0),
            ("BLENDER", words.IMAGE_FROM_BLENDER.name, words.IMAGE_FROM_BLENDER.tip, "IMAGE_DATA", 1),
            ("URL", words.IMAGE_FROM_URL.name, words.IMAGE_FROM_URL.tip, "URL", 2),
        ),
        default="FILE",
    )
    image_path: StringProperty(  # type: ignore[valid-type]
        name=words.ARG_IMAGE_FILE.name, description=words.ARG_IMAGE_FILE.tip, subtype="FILE_PATH"
    )
    image: PointerProperty(  # type: ignore[valid-type]
        type=bpy.types.Image, name=words.SETTING_IMAGE.name, description=words.SETTING_IMAGE.tip
    )
    image_url: StringProperty(name=words.ARG_IMAGE_URL.name, description=words.ARG_IMAGE_URL.tip)  # type: ignore[valid-type]
    image_resolution: declare("image_resolution")  # type: ignore[valid-type]
    webhook_url: StringProperty(name=words.ARG_WEBHOOK_URL.name, description=words.ARG_WEBHOOK_URL.tip)  # type: ignore[valid-type]
    image_prepare: BoolProperty(name=words.ARG_PREPARE.name, description=words.ARG_PREPARE.tip, default=True)  # type: ignore[valid-type]
    image_variants: declare("variants")  # type: ignore[valid-type]
    # The service's options: one the artist never touched is not sent (the service's own default).
    option_pbr: BoolProperty(name=words.ARG_PBR.name, description=words.ARG_PBR.tip, default=True)  # type: ignore[valid-type]
    option_quad: BoolProperty(name=words.ARG_QUAD.name, description=words.ARG_QUAD.tip)  # type: ignore[valid-type]
    option_texture: BoolProperty(  # type: ignore[valid-type]
        name=words.ARG_TEXTURE.name, description=words.ARG_TEXTURE.tip, default=True
    )
    option_polygons: IntProperty(  # type: ignore[valid-type]
        name=words.ARG_POLYGONS.name, description=words.ARG_POLYGONS.tip, min=0, soft_max=500_000, step=1000
    )
    more_views: BoolProperty(name=words.SETTING_MORE_VIEWS.name, description=words.SETTING_MORE_VIEWS.tip)  # type: ignore[valid-type]
    view_back: StringProperty(  # type: ignore[valid-type]
        name=words.ARG_VIEW_BACK.name, description=words.ARG_VIEW_BACK.tip, subtype="FILE_PATH"
    )
    view_left: StringProperty(  # type: ignore[valid-type]
        name=words.ARG_VIEW_LEFT.name, description=words.ARG_VIEW_LEFT.tip, subtype="FILE_PATH"
    )
    view_right: StringProperty(  # type: ignore[valid-type]
        name=words.ARG_VIEW_RIGHT.name, description=words.ARG_VIEW_RIGHT.tip, subtype="FILE_PATH"
    )
    retexture_prompt: StringProperty(  # type: ignore[valid-type]
        name=words.ARG_STYLE_PROMPT.name, description=words.ARG_STYLE_PROMPT.tip
    )


# Each registered service's tier (the old records' service's is the resolution) and style, as settings
# of their own. A service registered later has none: it is sent at its default tier.
for _service in service_ids():
    if not tier_is_resolution(_service):
        KilnGenerateSettings.__annotations__.update(_choices(_service))


class KilnJobItem(bpy.types.PropertyGroup):
    """One row of the job list: just the engine's job id (and its label as ``name`` for the search box)."""

    job_id: StringProperty()  # type: ignore[valid-type]


JOB_FILTERS = tuple(
    (value, label.name, label.tip)
    for value, label in (
        ("ALL", words.FILTER_ALL),
        ("ACTIVE", words.FILTER_ACTIVE),
        ("DONE", words.FILTER_DONE),
        ("FAILED", words.FILTER_FAILED),
    )
)

classes = (KilnGenerateSettings, KilnJobItem)


def effective_prompt(settings: KilnGenerateSettings) -> str:
    """The prompt that will be sent: the Text block's whole text when one is chosen, else the line."""
    if settings.prompt_text is not None:
        return str(settings.prompt_text.as_string()).strip()
    return str(settings.prompt).strip()


def image_file(settings: KilnGenerateSettings) -> Path:
    """The chosen image file, made absolute (a path relative to the .blend is read against it)."""
    return Path(bpy.path.abspath(settings.image_path.strip()))


def request_of(settings: KilnGenerateSettings, context: bpy.types.Context | None = None) -> JobRequest:
    """The request Generate sends to the chosen service, as far as its price and the library's match
    go (no file is read while drawing)."""
    from ..session.job_requests import image_price_request, text_request  # loaded by the first draw

    if settings.mode == "TEXT":
        request = text_request(
            effective_prompt(settings), settings.text_resolution, settings.provider, settings.quality
        )
    else:
        request = image_price_request(settings.image_resolution)
    service = preferences.chosen_service(context)
    given = chosen_options(settings, service)
    options = json.dumps(given, sort_keys=True) if given else ""
    return request.to_service(service, chosen_tier(settings, service), options)


def chosen_options(settings: KilnGenerateSettings, service: str) -> dict[str, object]:
    """The options the panel sends: those the service takes that the artist set (0 polygons and no
    style: the service's default, not sent)."""
    offered = info(service).capabilities.options_for(settings.mode == "IMAGE")
    chosen: dict[str, object] = {}
    settings_of = {**OPTION_SETTINGS, "style": style_setting(service)}
    for name, prop in settings_of.items():
        if not hasattr(settings, prop):  # a service with no styles has no style setting
            continue
        if name not in offered or not settings.is_property_set(prop):
            continue
        value = getattr(settings, prop)
        if (name == "polygons" and not value) or (name == "style" and value in (NO_STYLE, "")):
            continue
        chosen[name] = value
    return chosen


def uses_views(settings: KilnGenerateSettings, service: str) -> bool:
    """Generate sends several views: an image from a file or Blender, More Views on, one view given,
    on a service that takes several."""
    return (
        settings.mode == "IMAGE"
        and settings.image_source in ("FILE", "BLENDER")
        and settings.more_views
        and info(service).capabilities.max_views > 1
        and any(getattr(settings, name).strip() for name in VIEW_SETTINGS)
    )


def chosen_tier(settings: KilnGenerateSettings, service: str) -> str:
    """The tier the panel sends: "" where the resolution says it, or the service has no setting yet."""
    if tier_is_resolution(service):
        return ""
    return str(getattr(settings, tier_setting(service), "") or "")


def scene_settings(context: bpy.types.Context) -> KilnGenerateSettings:
    """This scene's Generate inputs."""
    settings = context.scene.kiln
    assert isinstance(settings, KilnGenerateSettings)
    return settings


def register() -> None:
    """Attach the properties (classes are registered by the package first)."""
    bpy.types.Scene.kiln = PointerProperty(type=KilnGenerateSettings)  # type: ignore[attr-defined, func-returns-value]
    wm = bpy.types.WindowManager
    wm.kiln_jobs = CollectionProperty(type=KilnJobItem)  # type: ignore[attr-defined, func-returns-value]
    # Named in Kiln's translation context, as registration.py names the classes' own properties.
    wm.kiln_job_index = IntProperty(  # type: ignore[attr-defined, func-returns-value]
        name=words.SETTING_ACTIVE_JOB, default=0, translation_context=KILN_CONTEXT
    )
    wm.kiln_job_filter = EnumProperty(  # type: ignore[attr-defined, func-returns-value]
        name=words.SETTING_SHOW, items=JOB_FILTERS, default="ALL", translation_context=KILN_CONTEXT
    )


def unregister() -> None:
    for owner, name in (
        (bpy.types.WindowManager, "kiln_job_filter"),
        (bpy.types.WindowManager, "kiln_job_index"),
        (bpy.types.WindowManager, "kiln_jobs"),
        (bpy.types.Scene, "kiln"),
    ):
        delattr(owner, name)
