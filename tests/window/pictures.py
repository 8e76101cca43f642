"""Pictures of the product for docs/images/ (``make screenshots``): taken with the pointer at rest
in an empty part of the viewport, so no tooltip or highlight is in them, and cut to what they
show: a Sidebar picture to its panels, checked to hold them whole (no panel runs past the
Sidebar's bottom edge), a window to its content."""

from __future__ import annotations

import time
from pathlib import Path

from conftest import shot
from PIL import Image, ImageChops
from program import Window, WindowError

#: Rows of background kept under the content (and the least there must be: fewer, and the content
#: may go on below the edge).
MARGIN = 12
#: Rows at a region's bottom edge that are not its background (a border, rounded corners).
EDGE = 6
#: The share of the Sidebar's width its panels take (the rest is the tab strip); the columns of the
#: Preferences window that hold the add-on's settings (left of them: the section list).
PANEL_COLUMNS = (0.0, 0.85)
SETTING_COLUMNS = (0.2, 0.95)
#: Blender opens a tooltip about half a second after the pointer stops over a button; moved
#: away, the tooltip closes on the next redraw.
TOOLTIP_GONE = 1.2


def pointer_at_rest(window: Window) -> None:
    """The pointer low in the middle of the 3D View (clear of the toolbar and the gizmos, which have
    tooltips), long enough for any tooltip to close."""
    view = window.call("result = screen_rect(region_of('WINDOW'))")
    window.display.xdotool(
        "mousemove", "--sync", view["x"] + view["width"] // 2, view["y"] + view["height"] - 30
    )
    time.sleep(TOOLTIP_GONE)


def area_picture(window: Window, name: str, rect: dict[str, int]) -> Path:
    """A rectangle of the screen (a window, an editor) with the pointer at rest."""
    pointer_at_rest(window)
    return shot(window.display, name, rect)


def sidebar_picture(window: Window, name: str) -> Path:
    """The Kiln tab from its top to the end of its last panel."""
    picture = area_picture(window, name, window.call("result = sidebar()"))
    keep_content(picture, PANEL_COLUMNS)
    return picture


#: Around a dialog opened under the pointer: how far left of it and above and below it a picture reaches;
#: alone (without the Sidebar), how far to either side.
DIALOG_REACH = (460, 260, 300)
#: A confirmation Blender opens with its buttons under the pointer: the picture's left, right, top and
#: bottom from the pointer (the question sits to its right).
DIALOG_ALONE = (60, 600, 130, 150)


def dialog_picture(window: Window, name: str, pointer: tuple[int, int], *, sidebar: bool = True) -> Path:
    """A question Blender opened under the pointer, taken where the pointer is (moving it away could
    close the question): with the Sidebar beside it (reaching to its right edge), or alone."""
    if not sidebar:
        left, right, up, down = DIALOG_ALONE
        rect = {"x": pointer[0] - left, "y": pointer[1] - up, "width": left + right, "height": up + down}
        return shot(window.display, name, rect)
    bar = window.call("result = sidebar()")
    left, up, down = DIALOG_REACH
    x = min(pointer[0] - left, bar["x"])
    y = max(pointer[1] - up, bar["y"])
    rect = {"x": x, "y": y, "width": bar["x"] + bar["width"] - x, "height": pointer[1] + down - y}
    return shot(window.display, name, rect)


def keep_content(picture: Path, columns: tuple[float, float]) -> None:
    """Cut the picture under its content (``columns``: shares of the width to look at); fails when
    the content reaches the bottom edge, which may hide more of it."""
    with Image.open(picture) as image:
        rgb = image.convert("RGB")
    left, right = (int(rgb.width * share) for share in columns)
    height = rgb.height - EDGE
    column = rgb.crop((left, 0, right, height))
    background = column.crop((0, height - 1, column.width, height)).resize(column.size)
    found = ImageChops.difference(column, background).getbbox()
    end = found[3] if found else 0
    if height - end < MARGIN:
        raise WindowError(f"{picture.name}: the content runs past the bottom edge")
    rgb.crop((0, 0, rgb.width, end + MARGIN)).save(picture)


def cut_below(picture: Path, row: int, name: str, columns: tuple[float, float] = SETTING_COLUMNS) -> Path:
    """A copy of the picture named ``name``, cut under the first line of text at or below ``row``:
    after the plain rows that follow it (one colour between ``columns``), at most ``MARGIN`` of them."""
    with Image.open(picture) as image:
        rgb = image.convert("RGB")
    left, right = (int(rgb.width * share) for share in columns)

    def plain(y: int) -> bool:
        return rgb.crop((left, y, right, y + 1)).getcolors(1) is not None

    text = next((y for y in range(row, rgb.height) if not plain(y)), rgb.height)
    end = next((y for y in range(text, rgb.height) if plain(y)), rgb.height)
    gap_end = min(rgb.height, end + MARGIN)
    while end < gap_end and plain(end):
        end += 1
    copy = picture.with_name(f"{name}.png")
    rgb.crop((0, 0, rgb.width, end)).save(copy)
    return copy
