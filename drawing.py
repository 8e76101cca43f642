"""Drawing helpers every Blender-side room shares: text that fits the Sidebar, and redraw requests.

Blender's labels neither wrap nor say when they are cut: a sentence wider than its region ends
in "…". So text is measured here with Blender's own metrics (``blf`` with the UI font at the
UI scale) against the room the region gives it, then wrapped over several labels, shortened in
the middle (names in a list), or moved above its field (a property's label). Without a region
(a script drawing a panel) sentences wrap at a fixed number of characters.

It sits below the preferences, the operators and the panels (it imports none of them), so
each may use it without a room reaching up into a higher one.
"""

from __future__ import annotations

import textwrap
import unicodedata
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import blf
import bpy

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import IconItems

# Blender's panel geometry in widget units (U.widget_unit: 20 px at UI scale 1), from
# source/blender/editors/include/UI_interface_c.hh and screen/area.cc (ED_region_panels_layout_ex):
# a region with category tabs gives its panels its width less the tabs (1 unit), the panel's margins
# (2 × 0.4) and the layout's spacing (2 × 8 px); a box adds its border and padding; a label's text
# keeps a clip margin on each side and, with an icon, the icon's width. Rounded up, never down.
UNIT_PIXELS = 20.0
PANEL_INSET_UNITS = 1.0 + 0.8 + 0.8
BOX_INSET_UNITS = 0.6
TEXT_MARGIN_UNITS = 0.5
ICON_UNITS = 1.1
#: A UIList row inside its list: the list's border, the row's padding and the list's scrollbar
#: (measured on a screenshot of Blender 5.2: 1.45 units; rounded up).
LIST_INSET_UNITS = 1.8
#: Share of a row a property's label takes beside its field (``labeled_prop``).
LABEL_SHARE = 0.4
#: Characters per line when there is no region to measure against.
FALLBACK_CHARS = 40
ELLIPSIS = "…"


def ui_scale(context: Any) -> float:
    """The UI scale Blender draws with: the system's (display and preference), else the preference."""
    prefs = getattr(context, "preferences", None)
    if prefs is None:
        return 1.0
    # The system's scale is 0 until a window exists (background mode): the preference then.
    return float(prefs.system.ui_scale or prefs.view.ui_scale or 1.0)


def font_pixels(context: Any) -> float:
    """Size of the UI's widget font in pixels (the style's points at the UI scale)."""
    prefs = getattr(context, "preferences", None)
    points = prefs.ui_styles[0].widget.points if prefs is not None and prefs.ui_styles else 11.0
    return float(points) * ui_scale(context)


def unit(context: Any) -> float:
    """One widget unit in pixels at the current UI scale."""
    return UNIT_PIXELS * ui_scale(context)


def layout_width(context: Any) -> float | None:
    """Pixels a panel's layout has in the current region; None without a region."""
    region = getattr(context, "region", None)
    if region is None or region.width <= 0:
        return None
    return region.width - PANEL_INSET_UNITS * unit(context)


def text_room(
    context: Any,
    *,
    share: float = 1.0,
    icon: bool = False,
    boxes: int = 0,
    inset_units: float = 0.0,
    fixed_units: float = 0.0,
) -> float | None:
    """Pixels a label's text may take; None without a region.

    The layout's width less ``boxes`` boxes and ``inset_units``, then ``share`` of it (a split),
    less ``fixed_units`` (icons beside it in the same part), its margins and its own icon.
    """
    width = layout_width(context)
    if width is None:
        return None
    u = unit(context)
    width = (width - boxes * BOX_INSET_UNITS * u - inset_units * u) * share - fixed_units * u
    return width - TEXT_MARGIN_UNITS * u - (ICON_UNITS * u if icon else 0.0)


def text_width(text: str, font_px: float) -> float:
    """Width of ``text`` in pixels in the UI font (font 0) at ``font_px``."""
    blf.size(0, font_px)
    size: tuple[float, float] = blf.dimensions(0, text)  # type: ignore[func-returns-value, assignment]  # stubs: None
    return float(size[0])


#: Marks a line never begins with (Japanese and Chinese line breaking: closing brackets and
#: punctuation, small kana, the prolonged sound mark), and openings a line never ends with.
NO_LINE_START = frozenset(
    "、。，．！？：；）」』】〕〉》〙〗〟’”ー…・々ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ,.!?:;)]%"
)
NO_LINE_END = frozenset("（「『【〔〈《〘〖〝‘“([")


def _breaks_anywhere(char: str) -> bool:
    """Whether text may break before ``char`` without a space: Chinese and Japanese characters,
    written without spaces between words (Korean has spaces, and breaks there like English)."""
    return unicodedata.east_asian_width(char) in ("W", "F") and not _hangul(char)


def _hangul(char: str) -> bool:
    return "\uac00" <= char <= "\ud7a3" or "\u1100" <= char <= "\u11ff" or "\u3130" <= char <= "\u318f"


@lru_cache(maxsize=1024)
def wrap_text(text: str, room: float, font_px: float) -> tuple[str, ...]:
    """Lines of ``text`` that each fit ``room`` pixels: words kept whole, a word longer than a line
    cut; a run of Chinese or Japanese text (no spaces) fills each line and breaks between characters,
    never before a closing mark."""
    lines: list[str] = []
    for paragraph in text.splitlines() or [""]:
        line = ""
        for word in paragraph.split():
            candidate = f"{line} {word}" if line else word
            if text_width(candidate, font_px) <= room:
                line = candidate
                continue
            if line and (_breaks_anywhere(word[0]) or text_width(word, font_px) > room):
                line = candidate  # cut below, after what fits of it on this line
            else:
                if line:
                    lines.append(line)
                line = word
            while text_width(line, font_px) > room and len(line) > 1:
                cut = _break_at(line, room, font_px)
                lines.append(line[:cut].rstrip())
                line = line[cut:].lstrip()
        lines.append(line)
    return tuple(lines)


def _break_at(line: str, room: float, font_px: float) -> int:
    """Where to cut ``line`` wider than ``room``: after what fits, moved back to the start of a word of
    Latin letters it falls in (unless that is the line's start) and off a mark that may not begin or
    end a line."""
    cut = _fitting_prefix(line, room, font_px)
    start = cut
    while start > 0 and _inside_word(line[start - 1]) and _inside_word(line[start]):
        start -= 1
    if 0 < start < cut:
        cut = start
    while cut > 1 and (line[cut] in NO_LINE_START or line[cut - 1] in NO_LINE_END):
        cut -= 1
    return cut


def _inside_word(char: str) -> bool:
    return not char.isspace() and not _breaks_anywhere(char)


def _fitting_prefix(word: str, room: float, font_px: float) -> int:
    """How many characters of ``word`` fit ``room`` (at least one)."""
    low, high = 1, len(word)
    while low < high:
        middle = (low + high + 1) // 2
        if text_width(word[:middle], font_px) <= room:
            low = middle
        else:
            high = middle - 1
    return low


@lru_cache(maxsize=1024)
def shorten_middle(text: str, room: float, font_px: float) -> str:
    """``text`` as is when it fits, else its start and end around "…" (names differ at either end)."""
    if text_width(text, font_px) <= room:
        return text
    low, high = 0, len(text)
    while low < high:  # the most characters kept, split between head and tail
        keep = (low + high + 1) // 2
        if text_width(_middle_cut(text, keep), font_px) <= room:
            low = keep
        else:
            high = keep - 1
    cut = _middle_cut(text, low)
    return cut if text_width(cut, font_px) <= room else ""


def _middle_cut(text: str, keep: int) -> str:
    # A third from the start, two thirds from the end: requests made one after another most
    # often differ towards their end ("… with armrests" / "… without armrests").
    head = (keep + 2) // 3
    tail = keep - head
    return f"{text[:head].rstrip()}{ELLIPSIS}{text[len(text) - tail :].lstrip() if tail else ''}"


def fit(context: Any, *candidates: str, **room: Any) -> str:
    """The first of ``candidates`` that fits its room whole, else the last shortened in the middle.

    For one-line places (a list row), where the full text is shown elsewhere (the job's details).
    ``room``: ``text_room``'s arguments.
    """
    space = text_room(context, **room)
    if space is None:
        return candidates[0]
    font_px = font_pixels(context)
    for text in candidates:
        if text_width(text, font_px) <= space:
            return text
    return shorten_middle(candidates[-1], max(space, 0.0), font_px)


def wrap(context: Any, text: str, *, icon: bool = False, boxes: int = 0) -> tuple[str, ...]:
    """The lines a sentence takes in the current region (FALLBACK_CHARS a line without one)."""
    room = text_room(context, icon=icon, boxes=boxes)
    if room is None:
        return tuple(textwrap.wrap(text, FALLBACK_CHARS) or [""])
    return wrap_text(text, max(room, unit(context)), font_pixels(context))


def wrapped_label(
    layout: bpy.types.UILayout, context: Any, text: str, icon: IconItems = "NONE", *, boxes: int = 0
) -> None:
    """Show a sentence over as many lines as the region needs (labels do not wrap by themselves).

    ``boxes``: how many boxes the layout sits in (each takes some width).
    """
    col = layout.column(align=True)
    indent: IconItems = "NONE" if icon == "NONE" else "BLANK1"
    for i, line in enumerate(wrap(context, text, icon=icon != "NONE", boxes=boxes)):
        col.label(text=line, icon=icon if i == 0 else indent)


def dialog_label(
    layout: bpy.types.UILayout, context: Any, text: str, width: float, icon: IconItems = "NONE"
) -> None:
    """A sentence wrapped for a dialog ``width`` pixels wide at UI scale 1 (what
    ``invoke_props_dialog(width=…)`` is given): a dialog's region is not the panel's."""
    u = unit(context)
    room = width * ui_scale(context) - (PANEL_INSET_UNITS + TEXT_MARGIN_UNITS + ICON_UNITS) * u
    col = layout.column(align=True)
    indent: IconItems = "NONE" if icon == "NONE" else "BLANK1"
    for i, line in enumerate(wrap_text(text, max(room, u), font_pixels(context))):
        col.label(text=line, icon=icon if i == 0 else indent)


def _side_by_side(context: Any, texts: tuple[str, ...], boxes: int, icons: int) -> bool | None:
    """Whether buttons with ``texts`` (each with an icon) and ``icons`` icon-only buttons fit in one
    row without Blender cutting a text; None without a region."""
    width = layout_width(context)
    if width is None:
        return None
    u = unit(context)
    # Each button keeps its text's margins and its icon: the row's width is shared first.
    row = width - boxes * BOX_INSET_UNITS * u - icons * u
    share = row / len(texts) - (TEXT_MARGIN_UNITS + ICON_UNITS) * u
    font_px = font_pixels(context)
    return all(text_width(text, font_px) <= share for text in texts)


def buttons_row(layout: bpy.types.UILayout, context: Any, *texts: str, boxes: int = 0) -> bpy.types.UILayout:
    """A row for buttons (each with an icon) whose texts fit side by side; a column when they
    would be cut (Blender shortens a button's text with "…")."""
    if _side_by_side(context, texts, boxes, 0) is False:
        return layout.column(align=True)
    return layout.row(align=True)


def button_rows(
    layout: bpy.types.UILayout, context: Any, *texts: str, boxes: int = 0, icons: int = 0
) -> list[bpy.types.UILayout]:
    """Where each button goes (one per text, each with an icon), then ``icons`` icon-only buttons: all
    in one row when the texts fit side by side there, else a row each, the icon-only ones beside the
    last (Blender would shorten the texts with "…"). The last item is the row for the icon-only ones."""
    if _side_by_side(context, texts, boxes, icons) is False:
        column = layout.column(align=True)
        rows = [column.row(align=True) for _text in texts]
        return [*rows, rows[-1]]
    row = layout.row(align=True)
    return [row] * (len(texts) + 1)


def labeled_prop(layout: bpy.types.UILayout, context: Any, data: Any, prop: str, text: str) -> None:
    """A property with its label beside the field when the label fits there, above it when not.

    The label and the field are split here (LABEL_SHARE), not by Blender, whose share for a
    label beside a menu is narrower and not exposed; so the room is known and measured.
    """
    room = text_room(context, share=LABEL_SHARE)
    fits = room is None or text_width(text, font_pixels(context)) <= room
    holder = layout.split(factor=LABEL_SHARE, align=True) if fits else layout.column(align=True)
    holder.use_property_split = False
    if fits:
        holder.label(text=text)
    else:
        wrapped_label(holder, context, text)
    holder.prop(data, prop, text="")


def tag_redraw(area_type: str = "VIEW_3D") -> None:
    """Ask Kiln's regions of every area of a kind to draw again: a 3D View's Sidebar only (its
    viewport, which a dense scene makes slow to draw, shows nothing of Kiln's), every region of
    another editor (the preferences).

    For changes made outside a draw: job rows, progress, a connection test's answer.
    """
    wm = bpy.context.window_manager
    if wm is None:
        return
    for window in wm.windows:
        if window.screen is None:
            continue
        for area in window.screen.areas:
            if area.type != area_type:
                continue
            if area_type != "VIEW_3D":
                area.tag_redraw()
                continue
            for region in area.regions:
                if region.type == "UI":
                    region.tag_redraw()
