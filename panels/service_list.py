"""The Sidebar's box while no service is chosen: every registered service, with one line on what it
costs and needs, each a button that chooses it (Kiln chooses no service for the artist)."""

from __future__ import annotations

import bpy

from ..api.services import info, service_ids
from ..api.words import catalogue as words
from ..drawing import wrapped_label
from ..language import text


def draw_service_chooser(layout: bpy.types.UILayout, context: bpy.types.Context) -> None:
    """Which service first: the registry's services in its order, local ones included."""
    box = layout.box()
    wrapped_label(box, context, text(words.SETUP_CHOOSE_SERVICE), icon="QUESTION", boxes=1)
    for sid in service_ids():
        found = info(sid)
        choice = box.column(align=True)
        sentence, name = found.chooser_words()
        said = text(sentence, service=text(name)) if name else text(sentence)
        button = choice.operator("kiln.choose_service", text=said, icon="DESKTOP" if found.local else "WORLD")
        button.service = sid
        wrapped_label(choice, context, text(found.cost_line()), boxes=1)
