"""Pictures of what each service can do (docs/images/, by ``make screenshots``): the Generate panel
for two services side by side, each showing only its own options under its quality, and the views
input of a service that takes several images of one object. Each is checked for what makes it so."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import SHOTS
from pictures import sidebar_picture
from PIL import Image
from program import TALL_SCREEN, Display, Program, Window
from sidebar import open_kiln_tab

from fixtures.concept_images import write_concept
from sandbox.server import Sandbox

PROMPT = "a brass lantern"
TRIPO_KEY = "tsk_live_windowpictures0"
MESHY_KEY = "msy_live_windowpictures0"
SETTINGS = "bpy.context.scene.kiln"
PREFS = "bpy.context.preferences.addons[MODULE].preferences"
#: Pixels between the two panels of the side-by-side picture.
GAP = 16


@pytest.fixture
def display(program: Program) -> Iterator[Display]:
    """A screen tall enough for every Kiln panel at full height."""
    screen = Display(program, *TALL_SCREEN).start()
    yield screen
    screen.stop()


@pytest.fixture
def user(artist_user: Path) -> Path:
    """The user folder where an artist's Blender keeps it, the images in the artist's home beside it:
    the views' fields show the artist's own paths."""
    return artist_user


@pytest.fixture
def stand_ins() -> Iterator[dict[str, Sandbox]]:
    started = {
        "TRIPO": Sandbox(service="tripo", keys=[TRIPO_KEY]).start(),
        "MESHY": Sandbox(service="meshy", keys=[MESHY_KEY]).start(),
    }
    yield started
    for server in started.values():
        server.stop()


def services_env(stand_ins: dict[str, Sandbox]) -> dict[str, str]:
    return {
        "KILN_TRIPO_BASE_URL": stand_ins["TRIPO"].base_url,
        "KILN_TRIPO_API_KEY": TRIPO_KEY,
        "KILN_MESHY_BASE_URL": stand_ins["MESHY"].base_url,
        "KILN_MESHY_API_KEY": MESHY_KEY,
    }


def choose(window: Window, service: str) -> None:
    window.call(f"{PREFS}.service = {service!r}")
    window.wait_for(f"{PREFS}.service == {service!r}", timeout=10)
    redraw(window)


def redraw(window: Window) -> None:
    """Settings changed from a script are drawn on the next redraw, which nothing else asks for."""
    window.call(
        "for w in bpy.context.window_manager.windows:\n    for a in w.screen.areas:\n        a.tag_redraw()"
    )


def panel_texts(window: Window, image: bool = False) -> list[str]:
    """The options the Generate panel draws for the chosen service (its option props, by name), in
    Text mode or (``image``) in Image mode."""
    return list(
        window.call(
            "caps = sys.modules[MODULE + '.api.services'].info("
            f"{PREFS}.service).capabilities\n"
            f"result = sorted(caps.options_for({image}))"
        )
    )


def side_by_side(left: Path, right: Path, name: str) -> Path:
    """Two pictures next to each other on the Sidebar's own background, tops aligned."""
    with Image.open(left) as a, Image.open(right) as b:
        first, second = a.convert("RGB"), b.convert("RGB")
    background = first.getpixel((first.width // 2, first.height - 2))
    both = Image.new("RGB", (first.width + GAP + second.width, max(first.height, second.height)), background)
    both.paste(first, (0, 0))
    both.paste(second, (first.width + GAP, 0))
    path = SHOTS / f"{name}.png"
    both.save(path)
    return path


def test_two_services_side_by_side_and_the_views_input(
    open_window: Callable[..., Window], stand_ins: dict[str, Sandbox], program: Program, user: Path
) -> None:
    window = open_window(env=services_env(stand_ins))
    window.call("bpy.context.preferences.system.use_region_overlap = False")
    open_kiln_tab(window)
    window.call(
        f"{SETTINGS}.prompt = {PROMPT!r}\n"
        f"{SETTINGS}.option_pbr = True\n"
        f"{SETTINGS}.option_texture = True\n"
        f"{SETTINGS}.option_polygons = 20000"
    )

    choose(window, "TRIPO")
    assert panel_texts(window) == ["pbr", "polygons", "texture"]  # no style: stylize is retired on API v3
    redraw(window)
    tripo_picture = sidebar_picture(window, "sidebar-options-tripo")

    choose(window, "MESHY")
    # Meshy takes no style (art_style is deprecated by Meshy, never sent).
    assert panel_texts(window) == ["pbr", "polygons", "quad", "texture"]
    window.call(f"{SETTINGS}.option_quad = True")
    redraw(window)
    meshy_picture = sidebar_picture(window, "sidebar-options-meshy")
    both = side_by_side(tripo_picture, meshy_picture, "sidebar-services-side-by-side")
    with Image.open(both) as image:
        assert image.width > 2 * 200 and image.height > 300

    # The views input: the front chosen above, then the back and left of the same object.
    folder = user.parents[2] / "concepts"
    front, back, left = (write_concept(folder, name) for name in ("robot", "teapot", "chair"))
    window.call(
        f"{SETTINGS}.mode = 'IMAGE'\n"
        f"{SETTINGS}.image_source = 'FILE'\n"
        f"{SETTINGS}.image_path = {program.inside(front)!r}\n"
        f"{SETTINGS}.more_views = True\n"
        f"{SETTINGS}.view_back = {program.inside(back)!r}\n"
        f"{SETTINGS}.view_left = {program.inside(left)!r}"
    )
    assert panel_texts(window, image=True) == ["pbr", "polygons", "quad", "texture"]
    offer = "kiln_module('panels.reuse_offer')"
    operator = window.call(f"result = {offer}.operator_id(bpy.context.scene.kiln, bpy.context)")
    assert operator == "kiln.generate_from_views"
    redraw(window)
    sidebar_picture(window, "sidebar-views")
    assert not [r for s in stand_ins.values() for r in s.requests if r.method == "POST"], "nothing was sent"
