"""Drawing helpers every Blender-side room shares: wrapped labels and redraw requests.

It sits below the preferences, the operators and the panels (it imports none of them), so
each may use it without a room reaching up into a higher one.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

import bpy

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import IconItems

#: Rough width of one character of Blender's UI font at scale 1, in pixels.
_CHAR_PIXELS = 7.0
_FALLBACK_CHARS = 40


def wrapped_label(
    layout: bpy.types.UILayout, context: bpy.types.Context, text: str, icon: IconItems = "NONE"
) -> None:
    """Show a sentence over as many lines as the region needs (labels do not wrap by themselves)."""
    region = context.region
    if region is not None and region.width > 0 and context.preferences is not None:
        scale = context.preferences.system.ui_scale
        chars = max(12, int((region.width - 40 * scale) / (_CHAR_PIXELS * scale)))
    else:
        chars = _FALLBACK_CHARS
    col = layout.column(align=True)
    indent: IconItems = "NONE" if icon == "NONE" else "BLANK1"
    for i, line in enumerate(textwrap.wrap(text, chars) or [""]):
        col.label(text=line, icon=icon if i == 0 else indent)


def tag_redraw(area_type: str = "VIEW_3D") -> None:
    """Ask every area of a kind (3D Views by default, for the Sidebar) to draw again.

    For changes made outside a draw: job rows, progress, a connection test's answer.
    """
    wm = bpy.context.window_manager
    if wm is None:
        return
    for window in wm.windows:
        if window.screen is None:
            continue
        for area in window.screen.areas:
            if area.type == area_type:
                area.tag_redraw()
