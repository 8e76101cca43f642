"""The product's pictures (docs/images/, copied there by ``make screenshots``), each taken in the state it
names and checked for what makes it that state.

One Blender goes from nothing configured to a first mesh as an artist would, on a named service (Tripo,
its stand-in): the first screen (no service chosen: the services listed, each with what it costs and
needs), Tripo chosen there with a click, the setup box, online access ticked in it, Kiln's preferences
opened from it (in sections), the key in, Test Connection, a prompt pasted with its price, Generate, the
job running, the treasure chest (the sandbox serves a model made in Blender) in the viewport, then a
failed job with the service's reason. Another Blender, on a
service that does not publish a text job's price, meets the first click's price question, Image mode with
a prepared image, Advanced and Blockout open, and a batch's question. Two more make the damaged job list.
Every Blender keeps its user folder where an artist's Linux Blender keeps it, so no picture shows a
temporary path.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pictures import SETTING_COLUMNS, area_picture, cut_below, dialog_picture, keep_content, sidebar_picture
from program import TALL_SCREEN, VIEWPORT_AA, Display, Program, Window
from shared_window import load_support
from sidebar import (
    copies_down,
    find_in,
    find_in_sidebar,
    open_kiln_tab,
    paste_into_field,
    viewport_centre,
)

from fixtures.concept_images import write_concept
from sandbox.server import Sandbox

PROMPT = "a treasure chest"
#: The key Tripo's stand-in takes (shaped as Tripo's are).
TRIPO_KEY = "tsk_live_picturestripo000"
#: A prompt for the service that does not publish a text job's price (the first click asks).
UNPRICED_PROMPT = "a brass ship's lantern"
FAILING_PROMPT = "a stone dragon statue"
#: The text job price set before the batch's question: what a text job costs on Tripo above.
BATCH_TEXT_PRICE = 20
SERVICE_WORDS = "The model could not make a mesh of this prompt: try describing its shape."
ENGINE = "sys.modules[MODULE + '.session.runtime'].engine_if_started()"
SETUP = "sys.modules[MODULE + '.session.setup']"
PREFS = "bpy.context.preferences.addons[MODULE].preferences"
IN_VIEW3D = "with in_view3d('WINDOW'):\n    "
#: The library's copy of the Generate panel's request, and whether this session's list still has its job.
OFFERED = "kiln_module('panels.reuse_offer')._match(bpy.context.scene.kiln, bpy.context)"
REDRAW = "for w in bpy.context.window_manager.windows:\n    for a in w.screen.areas:\n        a.tag_redraw()"
#: The Kiln preferences window, made big enough to show every setting of Kiln's.
PREFERENCES_SIZE = (1000, 1240)
#: How the viewport shows the chest: tilted down from above (degrees from straight down), turned
#: from the front towards its right side, and how far away (times its half diagonal).
VIEW_TILT, VIEW_TURN, VIEW_DISTANCE = 65, 30, 3.0
#: A closed panel's header under the button above it, and the next header under that (pixels, UI scale 1).
HEADER_BELOW_BUTTON, HEADER_ROW = 32, 26
#: The setup box's rows under its Open Kiln Preferences button (widget units): the online-access
#: sentence, then Blender's switch.
SWITCH_ROWS_BELOW = 2


@pytest.fixture
def user(artist_user: Path) -> Path:
    """The installed user folder where an artist's Blender on Linux keeps it: the preferences show
    Kiln's file there, not a temporary path."""
    return artist_user


@pytest.fixture
def display(program: Program) -> Iterator[Display]:
    """A screen tall enough for every Kiln panel at full height."""
    screen = Display(program, *TALL_SCREEN).start()
    yield screen
    screen.stop()


def picture_ready(window: Window) -> None:
    """Editors side by side, not overlapping: the Sidebar's own background below its panels."""
    window.call("bpy.context.preferences.system.use_region_overlap = False")


def job(window: Window, prompt: str, fields: str = "j.state.value, j.progress, j.error") -> list[Any]:
    """Facts of the engine's job for ``prompt`` (the newest one)."""
    found = window.call(f"result = [[{fields}] for j in {ENGINE}.jobs() if j.request.prompt == {prompt!r}]")
    assert found, f"no job for {prompt!r}"
    return list(found[-1])


def refusal(window: Window) -> str:
    """What Generate says, pressed from a script while Kiln cannot reach the service (as the status
    bar shows it), or '' when it sends."""
    return str(
        window.call(
            "try:\n"
            "    with in_view3d('UI'):\n"
            f"        bpy.ops.kiln.generate_from_text(prompt={PROMPT!r})\n"
            "    result = ''\n"
            "except RuntimeError as refused:\n"
            "    result = str(refused)"
        )
    )


def drawn(window: Window, panel: str = "KILN_PT_generate") -> list[str]:
    """The texts the panel gave Blender at its next real redraw (one a line as it shows them)."""
    return list(window.wait_for(f"language_texts.next_drawn(bpy.types.{panel})", timeout=20, every=0.1))


def cut_texts(window: Window, panel: str = "KILN_PT_generate") -> list[str]:
    """Texts of the panel wider than the room the real Sidebar gives them."""
    return list(
        window.call(
            "with in_view3d('UI'):\n"
            f"    found = sidebar_measure.measure(bpy.types.{panel}, bpy.context)\n"
            "result = [f'{m.kind} {m.text!r}: {m.width:.0f} > {m.room:.0f}' for m in found if m.overflows]"
        )
    )


def test_a_first_mesh_from_nothing_configured(
    program: Program, open_window: Callable[..., Window], sandbox_factory: Callable[..., Sandbox]
) -> None:
    # Tripo's stand-in on this machine, where Tripo's own address would be (a text job runs about
    # 20 s: long enough to photograph).
    sandbox = sandbox_factory(service="tripo", keys=[TRIPO_KEY], speed=0.25, credits=2_000)
    env = {"KILN_TRIPO_BASE_URL": sandbox.base_url, "KILN_POLL_INTERVAL": "0.2"}
    window = open_window(online=False, env=env)
    picture_ready(window)
    window.call("bpy.data.objects.remove(bpy.data.objects['Cube'])")  # the chest lands where it stood
    load_support(program, window)
    open_kiln_tab(window)

    # The first screen of a fresh install: no service chosen for the artist; the Sidebar lists every
    # registered service (local ones included), each with one line on what it costs and needs, and
    # offers no Generate.
    assert window.call(f"result = {PREFS}.service") == "NOT_CHOSEN"
    assert window.call("result = sys.modules[MODULE + '.preferences'].chosen_service()") == ""
    services = window.call(
        "s = sys.modules[MODULE + '.api.services']\n"
        "result = [[sid, s.info(sid).choice_words()[0], s.info(sid).local, s.info(sid).cost_line()]"
        " for sid in s.service_ids()]"
    )
    assert {"INTERFACE", "TRIPO", "MESHY", "RODIN", "FAL", "COMFYUI"} <= {sid for sid, *_ in services}
    assert any(local for _sid, _name, local, _line in services), "no local service is registered"
    texts = drawn(window)
    said = " ".join(texts)  # a wrapped sentence's lines, joined again
    assert "Choose the service Kiln sends your work to:" in said, texts
    for _sid, name, _local, line in services:
        assert f"Use {name}" in texts and line in said, (name, line, texts)
    assert not [t for t in texts if t.startswith("Generate")], texts
    assert cut_texts(window) == []
    assert "No jobs yet: choose a service above." in drawn(window, "KILN_PT_jobs")
    sidebar_picture(window, "sidebar-first-screen")
    copies = copies_down(window, window.call("result = sidebar()"))
    offered = [copy for copy in copies if "kiln.choose_service" in copy]
    assert len(offered) == len(services), copies
    for (sid, *_), copy in zip(services, offered, strict=True):
        assert f"service='{sid}'" in copy, (sid, copy)
    assert not [copy for copy in copies if "kiln.generate_from" in copy], copies

    # Tripo, the service the artist pays for, chosen with a click on its button: its setup box shows.
    window.display.click(*find_in_sidebar(window, "service='TRIPO'"))
    window.wait_for(f"{PREFS}.service == 'TRIPO'", timeout=10)
    texts = drawn(window)
    assert "Before Kiln can make a mesh:" in texts and "Get a Tripo API Key" in texts, texts
    assert not [t for t in texts if t.startswith("Use ")], texts
    assert "No jobs yet: press Generate above." in drawn(window, "KILN_PT_jobs")

    # Nothing configured: one box names the key and online access, with what fixes each (the page
    # where Tripo makes keys, Kiln's preferences, Blender's own switch).
    assert "Online access is off" in refusal(window)
    open_preferences = find_in_sidebar(window, "bpy.ops.preferences.addon_show", step=6)
    sidebar_picture(window, "sidebar-setup")

    # Blender's switch in the box lets Kiln go online; the key and the address are still said together.
    row = window.call("result = round(20 * bpy.context.preferences.system.ui_scale * 1.15)")
    window.display.click(open_preferences[0] - 60, open_preferences[1] + SWITCH_ROWS_BELOW * row)
    window.wait_for("bpy.app.online_access", timeout=10)
    said = refusal(window)
    assert "No API key is set" in said and "No service address is set" not in said, said

    # Open Kiln Preferences: Kiln's entry expanded, the key and the service address, Test Connection.
    window.display.click(*find_in_sidebar(window, "bpy.ops.preferences.addon_show", step=6))
    window.wait_for("len(bpy.context.window_manager.windows) == 2", timeout=10)
    assert window.call(
        "import addon_utils\n"
        "result = addon_utils.module_bl_info(addon_utils.addons_fake_modules[MODULE])['show_expanded']"
    )
    preferences = preferences_window(window)
    window.call(f"{PREFS}.api_key = {TRIPO_KEY!r}")  # pasted from Tripo's API keys page
    test_connection = find_in(window, preferences, "bpy.ops.kiln.test_connection", step=6)
    window.display.click(*test_connection)
    check = "sys.modules[MODULE + '.preferences'].connection_check"
    window.wait_for(f"{check}.state.value in ('ok', 'failed')", timeout=30)
    assert window.call(f"result = {check}.state.value") == "ok", window.call(f"result = str({check}.message)")
    assert window.call(f"result = str({check}.message)").startswith("Tripo: connected")
    assert any(r.headers.get("Authorization") == f"Bearer {TRIPO_KEY}" for r in sandbox.requests)
    # The pointer leaves the button it clicked inside that window (leaving the window keeps it lit).
    window.display.xdotool(
        "mousemove", "--sync", preferences["x"] + 60, preferences["y"] + preferences["height"] - 80
    )
    picture = area_picture(window, "preferences-kiln", preferences)
    answer = test_connection[1] - preferences["y"] + row
    cut_below(picture, answer, "preferences-kiln-connected")  # down to the connection's answer
    keep_content(picture, SETTING_COLUMNS)  # every setting of Kiln's
    window.call(
        "w = bpy.context.window_manager.windows[1]\n"
        "with bpy.context.temp_override(window=w):\n"
        "    bpy.ops.wm.window_close()"
    )
    window.wait_for("len(bpy.context.window_manager.windows) == 1", timeout=10)

    # Ready: a prompt pasted, Generate says what a click costs (into the Sidebar as drawn once the
    # preferences window is gone: Generate's price, and what to type).
    assert not window.call(f"result = bool({SETUP}.missing())")
    texts = drawn(window)
    assert "Generate · 20 credits" in texts and "The prompt is empty." in " ".join(texts), texts
    paste_into_field(window, "bpy.context.scene.kiln.prompt", PROMPT)
    assert window.call("result = bpy.context.scene.kiln.prompt") == PROMPT
    generate = find_in_sidebar(window, "bpy.ops.kiln.generate_from_text")
    sidebar_picture(window, "sidebar-ready")

    # Running: the job's progress bar.
    assert sandbox.submit_count == 0, "a refused Generate sent something"
    window.display.click(*generate)
    window.wait_for(f"[j for j in {ENGINE}.jobs() if j.state.value == 'running' and j.progress >= 30]", 60)
    sidebar_picture(window, "sidebar-running")
    (task_id,) = sandbox.tasks
    assert sandbox.submit_count == 1

    # Finished: the chest imported, its details with the preview; in the viewport, textured.
    sandbox.complete_now(task_id)
    window.wait_for("[j for j in kiln_jobs() if j['state'] == 'imported']", timeout=60)
    meshes = [o["name"] for o in window.call("result = kiln_objects()") if o["type"] == "MESH"]
    assert len(meshes) == 1, meshes
    textures = window.call(
        f"obj = bpy.data.objects[{meshes[0]!r}]\n"
        "result = [n.image.size[:] for s in obj.material_slots for n in s.material.node_tree.nodes"
        " if n.type == 'TEX_IMAGE' and n.image]"
    )
    assert textures == [[1024, 1024]], textures
    sidebar_picture(window, "sidebar-finished")
    show_in_viewport(window, meshes[0])
    area_picture(window, "viewport-with-sidebar", window.call("result = screen_rect(view3d()[1])"))
    window.call(f"bpy.context.preferences.system.viewport_aa = {VIEWPORT_AA!r}")

    # Failed: Kiln's own sentence, then the service's reason in its words, quoted; Copy Details has
    # the rest.
    window.call(f"bpy.context.scene.kiln.prompt = {FAILING_PROMPT!r}")
    window.display.click(*find_in_sidebar(window, "bpy.ops.kiln.generate_from_text"))
    window.wait_for(f"[j for j in {ENGINE}.jobs() if j.request.prompt == {FAILING_PROMPT!r} and j.task_id]")
    sandbox.fail_now(job(window, FAILING_PROMPT, "j.task_id")[0], SERVICE_WORDS)
    window.wait_for("[j for j in kiln_jobs() if j['state'] == 'failed']", timeout=60)
    state, _progress, error = job(window, FAILING_PROMPT)
    assert state == "failed" and "could not make a mesh from this prompt" in str(error), error
    assert "(The service said: “" in str(error) and "try describing its shape" in str(error), error
    window.display.click(*find_in_sidebar(window, "bpy.ops.kiln.copy_details"))
    assert "try describing its shape" in window.call("result = bpy.context.window_manager.clipboard")
    sidebar_picture(window, "sidebar-failed")


def test_the_panel_as_an_artist_meets_it(
    open_window: Callable[..., Window], sandbox_factory: Callable[..., Sandbox], sandbox_key: str, user: Path
) -> None:
    """On the custom service, whose text price is not published: the first click asks once; Image
    mode with an image chosen; Advanced and Blockout open; a batch says what it costs and asks."""
    sandbox = sandbox_factory(speed=0.25)
    window = open_window(env={"KILN_BASE_URL": sandbox.base_url, "KILN_API_KEY": sandbox_key})
    picture_ready(window)
    open_kiln_tab(window)

    # The first click of unknown price asks, saying why and how to set it; nothing is sent meanwhile.
    paste_into_field(window, "bpy.context.scene.kiln.prompt", UNPRICED_PROMPT)
    generate = find_in_sidebar(window, "bpy.ops.kiln.generate_from_text")
    window.display.xdotool("mousemove", "--sync", *viewport_centre(window))
    window.display.click(*generate)
    time.sleep(1.5)
    assert sandbox.submit_attempts == 0, "the first job of unknown price was sent without asking"
    dialog_picture(window, "sidebar-price-question", generate)
    window.display.xdotool("key", "Return")  # its Generate: sent, and not asked again this session
    window.wait_for(f"[j for j in {ENGINE}.jobs() if j.request.prompt == {UNPRICED_PROMPT!r}]", timeout=30)
    window.call(f"bpy.context.scene.kiln.prompt = {UNPRICED_PROMPT + ' on a hook'!r}")
    window.display.click(*find_in_sidebar(window, "bpy.ops.kiln.generate_from_text"))
    both = f"[j for j in {ENGINE}.jobs() if j.request.prompt.startswith({UNPRICED_PROMPT!r})]"
    window.wait_for(f"len({both}) == 2", 30)  # the second click: no question

    # Image mode with a prepared image: a file from the artist's folder, its thumbnail shown.
    concept = write_concept(user.parents[2] / "concepts", "teapot")
    window.call(
        "settings = bpy.context.scene.kiln\n"
        "settings.mode = 'IMAGE'\n"
        "settings.image_source = 'FILE'\n"
        f"settings.image_path = {program_path(user, concept)!r}"
    )
    time.sleep(1.0)
    sidebar_picture(window, "sidebar-image")

    # Advanced and Blockout open, each by a click on its header (under Set Text Job Price: Blockout's
    # first, so the headers above it stay where they were), with a placeholder selected.
    window.call(
        "bpy.context.scene.kiln.mode = 'TEXT'\n"
        "with in_view3d('WINDOW'):\n"
        "    bpy.ops.mesh.primitive_cube_add(location=(3, 0, 0))\n"
        "crate = bpy.context.active_object\n"
        "crate.name = 'Crate'\n"
        "crate['kiln_prompt'] = 'a wooden crate with rope handles'"
    )
    x, y = find_in_sidebar(window, "bpy.ops.preferences.addon_show", step=6)
    # Advanced, Re-texture, Blockout: Blockout's header is the third.
    for below in (HEADER_BELOW_BUTTON + 2 * HEADER_ROW, HEADER_BELOW_BUTTON):
        window.display.click(x, y + below)
        time.sleep(0.5)
    assert find_in_sidebar(window, "bpy.ops.kiln.generate_from_selection", step=8)
    # The two lanterns landed; Clear Finished leaves the Jobs panel short under the open panels, and
    # the lantern on the hook, now only in Kiln's library, is offered under Generate (Use It, free).
    window.wait_for("len(kiln_jobs()) == 2 and all(j['state'] == 'imported' for j in kiln_jobs())", 60)
    window.call("with in_view3d('UI'):\n    bpy.ops.kiln.clear_finished()")
    window.wait_for(f"(lambda found: found[0] is not None and not found[1])({OFFERED})", timeout=30)
    window.call(REDRAW)
    time.sleep(0.5)
    sidebar_picture(window, "sidebar-advanced-blockout")

    # A batch says how many jobs and what they cost, and asks first: at the text job price the
    # artist set (20 credits, as a text job costs on Tripo in the pictures above), over an empty
    # viewport (the placeholder and the lanterns hidden, so nothing stands behind the question).
    props = user.parents[2] / "props.txt"
    props.write_text("a barrel\na crate\na lamp\n", encoding="utf-8")
    centre = viewport_centre(window)
    window.display.xdotool("mousemove", "--sync", *centre)
    before = sandbox.submit_attempts
    window.call(
        "for obj in bpy.context.view_layer.objects:\n"
        "    obj.hide_set(True)\n"
        f"{PREFS}.text_cost = {BATCH_TEXT_PRICE}\n"
        "with in_view3d('WINDOW'):\n"
        f"    bpy.ops.kiln.generate_batch(filepath={program_path(user, props)!r})"
    )
    time.sleep(1.5)
    assert sandbox.submit_attempts == before, "a batch was sent without asking"
    dialog_picture(window, "sidebar-batch-question", centre, sidebar=False)
    window.display.xdotool("key", "Escape")


def program_path(user: Path, host: Path) -> str:
    """A host path below the artist's home as the Blender in the chroot sees it."""
    home = user.parents[2]
    return "/home/artist/" + str(host.relative_to(home))


def preferences_window(window: Window) -> dict[str, int]:
    """The Preferences window Blender opened, resized to show Kiln's settings; its screen rectangle."""
    display = window.display
    (found,) = display.xdotool("search", "--name", "Preferences").split()
    display.xdotool("windowsize", "--sync", found, *PREFERENCES_SIZE)
    display.xdotool("windowmove", "--sync", found, 40, 30)
    window.wait_for(f"bpy.context.window_manager.windows[1].height == {PREFERENCES_SIZE[1]}", timeout=10)
    time.sleep(0.5)
    geometry = display.xdotool("getwindowgeometry", "--shell", found)
    values = dict(line.split("=", 1) for line in geometry.split())
    return {key.lower(): int(values[key.upper()]) for key in ("x", "y", "width", "height")}


def show_in_viewport(window: Window, name: str) -> None:
    """The mesh selected and framed from the front, a little to the right and above, in Solid shading
    with its texture's colours (Material Preview needs a GPU: software OpenGL compiles for minutes),
    with Blender's default anti-aliasing (the test windows' is cheaper: ``program.VIEWPORT_AA``)."""
    window.call(
        "import math\n"
        "bpy.context.preferences.system.viewport_aa = '8'\n"
        "from mathutils import Euler, Vector\n"
        f"obj = bpy.data.objects[{name!r}]\n"
        "for other in bpy.context.view_layer.objects:\n"
        "    other.select_set(other == obj)\n"
        "bpy.context.view_layer.objects.active = obj\n"
        "space = view3d()[1].spaces.active\n"
        "space.shading.type = 'SOLID'\n"
        "space.shading.color_type = 'TEXTURE'\n"
        "corners = [obj.matrix_world @ Vector(c) for c in obj.bound_box]\n"
        "centre = sum(corners, Vector()) / 8\n"
        "view = space.region_3d\n"
        "view.view_location = centre\n"
        f"view.view_rotation = Euler((math.radians({VIEW_TILT}), 0, math.radians({VIEW_TURN})))"
        ".to_quaternion()\n"
        f"view.view_distance = {VIEW_DISTANCE} * max((c - centre).length for c in corners)"
    )


def test_the_damaged_job_list_is_said_in_the_sidebar(
    open_window: Callable[..., Window], user: Path, service_env: dict[str, str]
) -> None:
    window = open_window(env=service_env)
    window.call("sys.modules[MODULE + '.session.runtime'].engine(bpy.context)")  # Kiln writes its job list
    assert window.quit() == 0
    store = user / "extensions" / ".user" / "user_default" / "kiln" / "jobs.sqlite3"
    store.write_bytes(b"")  # something outside Kiln empties it
    window = open_window(env=service_env)
    picture_ready(window)
    window.call("sys.modules[MODULE + '.session.runtime'].engine(bpy.context)")
    sentences = window.wait_for(f"{ENGINE}.store_problems()", timeout=30)
    assert any("Kiln kept a copy of it" in sentence for sentence in sentences), sentences
    assert list(store.parent.glob("jobs.sqlite3.damaged-*")), "no backup of the damaged list"
    open_kiln_tab(window)
    sidebar_picture(window, "sidebar-damaged-job-list")
    assert find_in_sidebar(window, "bpy.ops.wm.path_open", step=6), "no Show the Copy under the sentence"
