"""The Generate panel: a prompt or an image in, one button that says what it costs, and what is missing.

While Kiln cannot reach the service, one box names everything missing at once (the key, the service
address, Blender's online access), each with what fixes it. The Advanced subpanel keeps what is
rarely needed (a prompt from a Text block, a batch from a file, the service's extra options); the
Blockout subpanel starts closed, and only objects marked as placeholders count there. What only
drawing needs (why Generate is greyed out, requests and their prices, thumbnails, the library's
offer) loads with the first draw, not when Kiln registers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import bpy

from .. import preferences
from ..api.features import service_access
from ..api.services import info
from ..api.words import Message, message
from ..api.words import catalogue as words
from ..drawing import labeled_prop, wrapped_label
from ..language import said, text
from ..session import spending
from ..session.setup import missing, offline_sentence
from .props import (
    OPTION_SETTINGS,
    VIEW_SETTINGS,
    KilnGenerateSettings,
    effective_prompt,
    image_file,
    request_of,
    scene_settings,
    style_setting,
    tier_is_resolution,
    tier_setting,
)

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import IconItems

    from ..api.features.credits import CreditEstimate
    from ..session.setup import Missing

THUMBNAIL_SCALE = 6.0


class KILN_PT_generate(bpy.types.Panel):
    """Describe or show the object, then press Generate"""

    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "Kiln"
    bl_label = words.PANEL_GENERATE

    def draw(self, context: bpy.types.Context) -> None:
        layout = self.layout
        assert layout is not None
        from .service_list import draw_service_chooser

        settings = scene_settings(context)
        service = preferences.chosen_service(context)
        if not service:  # Generate is offered once a service is chosen
            draw_service_chooser(layout, context)
            return
        labeled_prop(layout, context, preferences.get(context), "service", text(words.OPTION_SERVICE.name))
        _draw_where_it_runs(layout, context, service)
        layout.row().prop(settings, "mode", expand=True)
        if settings.mode == "TEXT":
            _draw_text_inputs(layout, context, settings, service)
        else:
            _draw_image_inputs(layout, context, settings, service)
        _draw_generate_button(layout, context, settings)


def _draw_where_it_runs(layout: bpy.types.UILayout, context: bpy.types.Context, service: str) -> None:
    """A studio's own server: where a job runs (it costs no credits), and its model's licence note."""
    from ..api.http.origin import host_label

    found = info(service)
    if not found.local:
        return
    # The address from the environment, the preferences or the default: no key store is read while drawing.
    address = preferences.address_of(preferences.get(context), service)
    host = host_label(service_access.credentials("", address, service=service).base_url)
    wrapped_label(layout, context, text(words.LOCAL_RUNS_ON_SERVER, host=host), icon="DESKTOP")
    if found.notice:
        wrapped_label(layout, context, text(found.notice), icon="ERROR")


def _draw_tier(
    col: bpy.types.UILayout, context: bpy.types.Context, settings: KilnGenerateSettings, service: str
) -> None:
    """The quality choice the chosen service offers: the resolution where its tier is that."""
    if tier_is_resolution(service):
        name = "text_resolution" if settings.mode == "TEXT" else "image_resolution"
        label = words.OPTION_RESOLUTION if settings.mode == "TEXT" else words.OPTION_IMAGE_RESOLUTION
        labeled_prop(col, context, settings, name, text(label.name))
    elif hasattr(settings, tier_setting(service)):
        labeled_prop(col, context, settings, tier_setting(service), text(words.OPTION_TIER.name))
    _draw_options(col, context, settings, service)


def _draw_options(
    col: bpy.types.UILayout, context: bpy.types.Context, settings: KilnGenerateSettings, service: str
) -> None:
    """The options the chosen service takes, and only those (its capabilities say which)."""
    capabilities = info(service).capabilities
    offered = capabilities.options_for(settings.mode == "IMAGE")
    toggles = [name for name in ("pbr", "quad", "texture") if name in offered]
    if toggles:
        row = col.row(align=True)
        for name in toggles:
            row.prop(settings, OPTION_SETTINGS[name], toggle=True)
    if "polygons" in offered:
        labeled_prop(col, context, settings, "option_polygons", text(words.ARG_POLYGONS.name))
    if "style" in offered and capabilities.styles and hasattr(settings, style_setting(service)):
        labeled_prop(col, context, settings, style_setting(service), text(words.ARG_STYLE.name))


def _draw_text_inputs(
    layout: bpy.types.UILayout, context: bpy.types.Context, settings: KilnGenerateSettings, service: str
) -> None:
    col = layout.column()
    if settings.prompt_text is None:
        col.prop(settings, "prompt", text="", placeholder=text(words.PROMPT_PLACEHOLDER))
    else:
        chars = len(effective_prompt(settings))
        wrapped_label(
            col, context, text(words.PROMPT_FROM_TEXT, n=chars, name=settings.prompt_text.name), "TEXT"
        )
    _draw_tier(col, context, settings, service)


def _draw_image_inputs(
    layout: bpy.types.UILayout, context: bpy.types.Context, settings: KilnGenerateSettings, service: str
) -> None:
    from . import thumbnails

    col = layout.column()
    col.row().prop(settings, "image_source", expand=True)
    icon = None
    if settings.image_source == "FILE":
        col.prop(settings, "image_path", text="")
        if settings.image_path.strip():
            icon = thumbnails.file_icon(str(image_file(settings)))
    elif settings.image_source == "BLENDER":
        col.template_ID(settings, "image", new="image.new", open="image.open", live_icon=True)
        if settings.image is not None:
            icon = col.icon(settings.image)
    else:
        col.prop(settings, "image_url", text="", placeholder="https://…/concept.png")
        wrapped_label(col, context, text(words.IMAGE_URL_FETCHED), icon="URL")
    if icon is not None:
        col.template_icon(icon_value=icon, scale=THUMBNAIL_SCALE)
    _draw_views(col, context, settings, service)
    _draw_tier(col, context, settings, service)
    col.prop(settings, "image_prepare", text=text(words.ARG_PREPARE.name))
    labeled_prop(col, context, settings, "image_variants", text(words.ARG_VARIANTS.name))


def _draw_views(
    col: bpy.types.UILayout, context: bpy.types.Context, settings: KilnGenerateSettings, service: str
) -> None:
    """More views of the same object (back, left, right), where the service takes several images."""
    most = info(service).capabilities.max_views
    if most <= 1 or settings.image_source == "URL":
        return
    col.prop(settings, "more_views")
    if not settings.more_views:
        return
    box = col.box()
    wrapped_label(
        box,
        context,
        text(words.VIEWS_OFFERED, n=most, service=info(service).name),
        "IMAGE_REFERENCE",
        boxes=1,
    )
    for name, label in zip(
        VIEW_SETTINGS, (words.ARG_VIEW_BACK, words.ARG_VIEW_LEFT, words.ARG_VIEW_RIGHT), strict=True
    ):
        labeled_prop(box, context, settings, name, text(label.name))


def _draw_generate_button(
    layout: bpy.types.UILayout, context: bpy.types.Context, settings: KilnGenerateSettings
) -> None:
    from ..api.features.credits import takes_text_cost
    from . import reuse_offer
    from .blocker import generate_blocker

    blocker = generate_blocker(context, settings)
    request = request_of(settings, context)
    jobs = settings.image_variants if settings.mode == "IMAGE" else 1  # variants: each is a job
    cost = spending.estimate_for([request] * jobs, context)
    row = layout.row()
    row.scale_y = 1.5
    row.enabled = blocker is None
    button = text(words.GENERATE_WITH_COST, cost=spending.cost_text(cost))
    reuse_offer.fill_generate(
        row.operator(reuse_offer.operator_id(settings, context), text=button, icon="PLAY"), settings, context
    )
    if blocker is not None and blocker.missing:
        draw_setup_box(layout, context, blocker.missing)
        return
    if blocker is not None and blocker.reason is not None:
        wrapped_label(layout.box(), context, said(blocker.reason), icon="INFO", boxes=1)
        return
    service = info(preferences.chosen_service(context))
    if cost.unpriced and takes_text_cost(service.id):  # a text price the artist's figure stands for
        hint = layout.column(align=True)
        wrapped_label(hint, context, text(words.TEXT_PRICE_UNKNOWN), icon="INFO")
        _open_kiln_preferences(hint, text(words.SET_PRICE), icon="PREFERENCES")
    elif cost.unpriced:
        wrapped_label(layout, context, text(words.SERVICE_PRICE_UNKNOWN, service=service.name), icon="INFO")
    _draw_balance(layout, context, cost, service.id)
    reuse_offer.draw(layout, context, settings)


def _draw_balance(
    layout: bpy.types.UILayout, context: bpy.types.Context, cost: CreditEstimate, service: str
) -> None:
    """The balance the service last gave, under the price; a price above it says so before sending."""
    over = spending.over_balance_note(cost, service, for_report=False)
    if over:
        alert = layout.column()
        alert.alert = True
        wrapped_label(alert, context, over, icon="ERROR")
    elif balance := spending.balance_line(service):
        wrapped_label(layout, context, balance, icon="FUND")


def draw_setup_box(layout: bpy.types.UILayout, context: bpy.types.Context, lacking: Missing) -> None:
    """Everything missing before Kiln can reach the service, at once, each with what fixes it."""
    from .service_list import draw_service_chooser

    box = layout.box()
    col = box.column()
    col.alert = True
    wrapped_label(col, context, text(words.SETUP_HEADING), icon="ERROR", boxes=1)
    inner = box.column()
    if lacking.unchosen:
        draw_service_chooser(inner, context)
    if lacking.key:
        wrapped_label(inner, context, text(words.SETUP_ADD_KEY), icon="KEYINGSET", boxes=1)
    if lacking.address:
        wrapped_label(inner, context, text(words.SETUP_ADD_ADDRESS), icon="URL", boxes=1)
    service = info(lacking.service)
    if lacking.key and service.keys_page:
        link = inner.operator(
            "wm.url_open", text=text(words.GET_SERVICE_KEY, service=service.name), icon="URL"
        )
        link.url = service.keys_page
    if lacking.key or lacking.address:
        _open_kiln_preferences(inner, text(words.SETUP_OPEN_PREFERENCES.name), icon="PREFERENCES")
    if lacking.online and lacking.offline_mode:
        wrapped_label(inner, context, text(offline_sentence()), icon="INTERNET_OFFLINE", boxes=1)
    elif lacking.online:
        wrapped_label(inner, context, text(words.SETUP_GO_ONLINE), icon="INTERNET_OFFLINE", boxes=1)
        # Blender's own switch (Preferences ▸ System ▸ Network), right here; Blender saves it.
        inner.prop(context.preferences.system, "use_online_access")


def _open_kiln_preferences(layout: bpy.types.UILayout, label: str, icon: IconItems) -> None:
    layout.operator(
        "preferences.addon_show", text=label, icon=icon
    ).module = preferences.KilnPreferences.bl_idname


class AfterAServiceIsChosen:
    """Generate's subpanels: each is about a chosen service's jobs, so none shows before one is."""

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        return bool(preferences.chosen_service(context))


class KILN_PT_generate_advanced(AfterAServiceIsChosen, bpy.types.Panel):
    """What is rarely needed: a long prompt from a Text block, a batch from a file, the service's options"""

    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "Kiln"
    bl_label = words.PANEL_ADVANCED
    bl_parent_id = "KILN_PT_generate"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context: bpy.types.Context) -> None:
        layout = self.layout
        assert layout is not None
        settings = scene_settings(context)
        service = info(preferences.chosen_service(context))
        if settings.mode == "TEXT":
            wrapped_label(layout, context, text(words.PROMPT_FROM_TEXT_BLOCK))
            layout.template_ID(settings, "prompt_text", new="text.new", open="text.open")
            if service.capabilities.text_image_model:  # the image model that draws the prompt first
                labeled_prop(layout, context, settings, "provider", text(words.ARG_PROVIDER.name))
                labeled_prop(layout, context, settings, "quality", text(words.ARG_QUALITY.name))
                wrapped_label(layout, context, text(words.SERVICE_VALUES_UNPUBLISHED), icon="INFO")
        elif service.capabilities.webhooks:
            labeled_prop(layout, context, settings, "webhook_url", text(words.ARG_WEBHOOK_URL.name))
        layout.operator("kiln.generate_batch", text=text(words.BATCH_FROM_FILE), icon="FILE_TEXT")


class KILN_PT_blockout(AfterAServiceIsChosen, bpy.types.Panel):
    """Replace selected placeholders with generated meshes, fitted in their place"""

    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "Kiln"
    bl_label = words.PANEL_BLOCKOUT
    bl_parent_id = "KILN_PT_generate"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context: bpy.types.Context) -> None:
        from ..session import blockout, job_requests

        layout = self.layout
        assert layout is not None
        objects = blockout.placeholders(context)
        others = blockout.not_placeholders(context)
        chosen = job_requests.resolution(scene_settings(context).text_resolution)
        requests = [r for r in (blockout.quick_request(obj, chosen) for obj in objects) if r is not None]
        col = layout.column()
        if not objects:
            wrapped_label(col, context, text(words.BLOCKOUT_HINT), icon="INFO")
        else:
            cost = spending.estimate_for(requests, context)
            jobs = text(words.BLOCKOUT_JOBS, n=len(requests), cost=spending.cost_text(cost))
            wrapped_label(col, context, jobs, icon="MESH_CUBE")
            again = blockout.with_results(requests)
            if again:
                wrapped_label(col, context, text(words.BLOCKOUT_NEW_VARIANTS, n=again), icon="DUPLICATE")
        if others:
            wrapped_label(col, context, said(_left_out(others)), icon="ERROR")
        if context.selected_objects:
            col.operator("kiln.mark_placeholder", icon="BOOKMARKS")
        row = col.row(align=True)
        row.scale_y = 1.3
        row.enabled = bool(requests) and not missing(context)
        row.operator("kiln.generate_from_selection", icon="MOD_REMESH")
        row.operator_menu_enum("kiln.generate_from_selection", "fit", text="", icon="DOWNARROW_HLT")
        _draw_variants(col, context)


def _left_out(others: list[bpy.types.Object]) -> Message:
    """Why selected objects do not count: one object's own reason, or how many do not."""
    from ..session import blockout

    if len(others) == 1:
        return blockout.why_not(others[0])
    return message(words.BLOCKOUT_NOT_PLACEHOLDERS, n=len(others))


def _draw_variants(layout: bpy.types.UILayout, context: bpy.types.Context) -> None:
    """Variant controls for the active object's placeholder."""
    from ..session import blockout, variants

    name = blockout.active_placeholder(context)
    if not name:
        return
    numbers = sorted(variants.variants_of(name))
    shown = variants.shown_variant(name, context)
    box = layout.box()
    if shown in numbers:
        position = text(words.VARIANT_POSITION, name=name, shown=numbers.index(shown) + 1, n=len(numbers))
    else:
        position = text(words.VARIANT_HIDDEN, name=name, n=len(numbers))
    wrapped_label(box, context, position, icon="DUPLICATE", boxes=1)
    row = box.row(align=True)
    row.operator("kiln.variant_previous", text="", icon="TRIA_LEFT")
    row.operator("kiln.variant_next", text="", icon="TRIA_RIGHT")
    row.operator("kiln.variant_keep", text=text(words.KEEP), icon="CHECKMARK")


class KILN_PT_retexture(AfterAServiceIsChosen, bpy.types.Panel):
    """New textures for the selected mesh, on a service that can re-texture"""

    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "Kiln"
    bl_label = words.PANEL_RETEXTURE
    bl_parent_id = "KILN_PT_generate"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context: bpy.types.Context) -> None:
        layout = self.layout
        assert layout is not None
        service = info(preferences.chosen_service(context))
        col = layout.column()
        if not service.capabilities.retexture:
            wrapped_label(col, context, text(words.RETEXTURE_NOT_OFFERED, service=service.name), icon="INFO")
            return
        from ..session import job_requests

        settings = scene_settings(context)
        wrapped_label(col, context, text(words.RETEXTURE_HINT), icon="BRUSH_DATA")
        col.prop(settings, "retexture_prompt", text="")
        cost = spending.estimate_for([job_requests.retexture_price_request(service.id)], context)
        row = col.row()
        row.enabled = bool(settings.retexture_prompt.strip()) and not missing(context)
        op = row.operator(
            "kiln.retexture_selected",
            text=text(words.RETEXTURE_WITH_COST, cost=spending.cost_text(cost)),
            icon="BRUSH_DATA",
        )
        op.prompt = settings.retexture_prompt
        op.service = service.id


classes = (KILN_PT_generate, KILN_PT_generate_advanced, KILN_PT_retexture, KILN_PT_blockout)
