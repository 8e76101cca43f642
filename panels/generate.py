"""The Generate panel: a prompt or an image in, one button out, and the reason when it cannot be pressed."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import bpy

from .. import preferences
from ..api.checks import inputs
from ..api.errors import InputError
from ..api.features import credits
from ..drawing import labeled_prop, wrapped_label
from ..session import blockout, variants
from ..session.launching import setup_problem
from . import reuse_offer, thumbnails
from .props import KilnGenerateSettings, effective_prompt, scene_settings

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import IconItems

THUMBNAIL_SCALE = 6.0


@dataclass(frozen=True)
class Blocker:
    """Why Generate cannot be pressed, and where the artist fixes it."""

    reason: str
    icon: IconItems = "INFO"
    #: 'KILN_PREFERENCES', 'SYSTEM_PREFERENCES', or '' (fixed in this panel, or not from inside Blender).
    fix: str = ""


def generate_blocker(context: bpy.types.Context, settings: KilnGenerateSettings) -> Blocker | None:
    """The first thing missing before a job can be sent, or None when Generate can be pressed."""
    problem = setup_problem(context)
    if problem and not bpy.app.online_access:
        return Blocker(problem, "ERROR", "" if bpy.app.online_access_override else "SYSTEM_PREFERENCES")
    if problem:
        return Blocker(problem, "ERROR", "KILN_PREFERENCES")
    try:
        if settings.mode == "TEXT":
            inputs.check_prompt(effective_prompt(settings))
        else:
            _check_image_choice(settings)
    except InputError as exc:
        return Blocker(exc.user_message)
    return None


def _check_image_choice(settings: KilnGenerateSettings) -> None:
    """Cheap checks only (no file is read while drawing): the operator checks the content when pressed."""
    if settings.image_source == "FILE":
        if not settings.image_path.strip():
            raise InputError("Choose an image file (PNG, JPEG or WebP).")
        if not _file_path(settings).is_file():
            raise InputError(f"The image file {settings.image_path.strip()} does not exist.")
    elif settings.image_source == "BLENDER":
        if settings.image is None:
            raise InputError("Choose an image from this file (Render Result included).")
    else:
        inputs.check_web_url(settings.image_url, "image URL")


def _file_path(settings: KilnGenerateSettings) -> Path:
    return Path(bpy.path.abspath(settings.image_path.strip()))


class KILN_PT_generate(bpy.types.Panel):
    """Describe or show the object, then press Generate"""

    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "Kiln"
    bl_label = "Generate"

    def draw(self, context: bpy.types.Context) -> None:
        layout = self.layout
        assert layout is not None
        settings = scene_settings(context)
        layout.row().prop(settings, "mode", expand=True)
        if settings.mode == "TEXT":
            _draw_text_inputs(layout, context, settings)
        else:
            _draw_image_inputs(layout, context, settings)
        _draw_generate_button(layout, context, settings)
        layout.operator("kiln.generate_batch", text="Batch from File…", icon="FILE_TEXT")


def _draw_text_inputs(
    layout: bpy.types.UILayout, context: bpy.types.Context, settings: KilnGenerateSettings
) -> None:
    col = layout.column()
    line = col.row()
    line.enabled = settings.prompt_text is None
    line.prop(settings, "prompt", text="", placeholder="Describe the object, e.g. a red chair")
    wrapped_label(col, context, "Long prompt from a Text block:")
    col.template_ID(settings, "prompt_text", new="text.new", open="text.open")
    if settings.prompt_text is not None:
        chars = len(effective_prompt(settings))
        sends = f"Sends all {chars} characters of “{settings.prompt_text.name}”"
        wrapped_label(col, context, sends, icon="TEXT")
    labeled_prop(col, context, settings, "text_resolution", "Resolution")


def _draw_image_inputs(
    layout: bpy.types.UILayout, context: bpy.types.Context, settings: KilnGenerateSettings
) -> None:
    col = layout.column()
    col.row().prop(settings, "image_source", expand=True)
    icon = None
    if settings.image_source == "FILE":
        col.prop(settings, "image_path", text="")
        if settings.image_path.strip():
            icon = thumbnails.file_icon(str(_file_path(settings)))
    elif settings.image_source == "BLENDER":
        col.template_ID(settings, "image", new="image.new", open="image.open", live_icon=True)
        if settings.image is not None:
            icon = col.icon(settings.image)
    else:
        col.prop(settings, "image_url", text="", placeholder="https://…/concept.png")
        wrapped_label(col, context, "The service fetches this address itself", icon="URL")
    if icon is not None:
        col.template_icon(icon_value=icon, scale=THUMBNAIL_SCALE)
    labeled_prop(col, context, settings, "image_resolution", "Resolution")


def _draw_generate_button(
    layout: bpy.types.UILayout, context: bpy.types.Context, settings: KilnGenerateSettings
) -> None:
    blocker = generate_blocker(context, settings)
    row = layout.row()
    row.scale_y = 1.5
    row.enabled = blocker is None
    reuse_offer.fill(row.operator(reuse_offer.operator_id(settings), text="Generate", icon="PLAY"), settings)
    if blocker is None:
        reuse_offer.draw(layout, context, settings)
        return
    box = layout.box()
    wrapped_label(box, context, blocker.reason, icon=blocker.icon, boxes=1)
    if blocker.fix == "KILN_PREFERENCES":
        box.operator(
            "preferences.addon_show", text="Open Kiln Preferences", icon="PREFERENCES"
        ).module = preferences.KilnPreferences.bl_idname
    elif blocker.fix == "SYSTEM_PREFERENCES":
        box.operator(
            "screen.userpref_show", text="Open System Preferences", icon="PREFERENCES"
        ).section = "SYSTEM"


class KILN_PT_generate_advanced(bpy.types.Panel):
    """Options the service accepts but rarely needs"""

    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "Kiln"
    bl_label = "Advanced"
    bl_parent_id = "KILN_PT_generate"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context: bpy.types.Context) -> None:
        layout = self.layout
        assert layout is not None
        layout.use_property_split = True
        layout.use_property_decorate = False
        settings = scene_settings(context)
        if settings.mode == "TEXT":
            labeled_prop(layout, context, settings, "provider", "Provider")
            labeled_prop(layout, context, settings, "quality", "Quality")
            wrapped_label(
                layout, context, "Free text: the service does not list the allowed values", icon="INFO"
            )
        else:
            labeled_prop(layout, context, settings, "webhook_url", "Webhook")


BLOCKOUT_HINT = (
    "Select blockout objects: a kiln_prompt property, a kiln_image property or the name says what to make"
)


class KILN_PT_blockout(bpy.types.Panel):
    """Replace selected blockout objects with generated meshes, fitted in their place"""

    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "Kiln"
    bl_label = "Blockout"
    bl_parent_id = "KILN_PT_generate"

    def draw(self, context: bpy.types.Context) -> None:
        layout = self.layout
        assert layout is not None
        objects = blockout.placeholders(context)
        requests = [r for r in (blockout.quick_request(obj, None) for obj in objects) if r is not None]
        col = layout.column()
        if not objects:
            wrapped_label(col, context, BLOCKOUT_HINT, icon="INFO")
        else:
            jobs = f"{len(requests)} job{'s' if len(requests) != 1 else ''}"
            wrapped_label(col, context, f"{jobs}: {credits.estimate(requests)}", icon="MESH_CUBE")
            again = blockout.variant_sentence(requests)
            if again:
                wrapped_label(col, context, again, icon="DUPLICATE")
            left_out = len(objects) - len(requests)
            if left_out:
                skipped = f"{left_out} selected object(s) say nothing to make and are skipped"
                wrapped_label(col, context, skipped, icon="ERROR")
        row = col.row(align=True)
        row.scale_y = 1.3
        row.enabled = bool(requests) and not setup_problem(context)
        row.operator("kiln.generate_from_selection", text="Generate from Selection", icon="MOD_REMESH")
        row.operator_menu_enum("kiln.generate_from_selection", "fit", text="", icon="DOWNARROW_HLT")
        _draw_variants(col, context)


def _draw_variants(layout: bpy.types.UILayout, context: bpy.types.Context) -> None:
    """Variant controls for the active object's placeholder."""
    name = blockout.active_placeholder(context)
    if not name:
        return
    numbers = sorted(variants.variants_of(name))
    shown = variants.shown_variant(name, context)
    box = layout.box()
    position = f"{numbers.index(shown) + 1}" if shown in numbers else "none"
    position += f" of {len(numbers)}"
    wrapped_label(box, context, f"“{name}”: variant {position}", icon="DUPLICATE", boxes=1)
    row = box.row(align=True)
    row.operator("kiln.variant_previous", text="", icon="TRIA_LEFT")
    row.operator("kiln.variant_next", text="", icon="TRIA_RIGHT")
    row.operator("kiln.variant_keep", text="Keep", icon="CHECKMARK")


classes = (KILN_PT_generate, KILN_PT_generate_advanced, KILN_PT_blockout)
