"""No paid work lost by a click, every paid click asked (issue 51), in Debian's Blender program with a
window: a second identical Generate, Re-texture Selected and Meshy's Cancel on Service each put their
question on screen and send nothing until it is answered; Stop Waiting keeps Resume in the Jobs panel,
which brings the mesh in with no new task; Add Job by ID brings a finished Rodin task's mesh in.

One Blender for the file, against the stand-ins of Tripo, Meshy and Hyper3D Rodin (each on its own
loopback origin, its key given by the environment as a studio's launcher gives it). The service is
always chosen in each test (a fresh Kiln chooses none). The artist's clicks are real input: buttons are
found by what Ctrl+C over them copies, the questions answered with Return or Escape, and what each
stand-in received is counted.
"""

from __future__ import annotations

import json
import shutil
import time
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import shot
from program import REPO, Display, Program, Window, WindowError
from sidebar import find_in, open_kiln_tab

from sandbox.server import Sandbox

PREFS = "bpy.context.preferences.addons[MODULE].preferences"
ENGINE = "sys.modules[MODULE + '.session.runtime'].engine_if_started()"
SETTINGS = "bpy.context.scene.kiln"
#: Jobs run about four minutes on these stand-ins: each stays running until the test finishes it.
SLOW = 0.02
#: How long a question is left on screen before the stand-in's count is read (a click that sent
#: without asking would have reached it by then).
QUESTION_UP = 1.5
#: How long a Ctrl+C may take to reach the clipboard while a job runs (seconds).
COPY_WAIT = 1.0
#: Blender's rows in the Sidebar at UI scale 1: a closed subpanel's header under the one above it.
HEADER_ROW = 26
#: The scan's step down the Jobs panel (pixels): less than its buttons' height (26 at UI scale 1).
JOBS_STEP = 10
#: Where the Generate button was found (the window lives as long as the file).
SPOTS: dict[str, tuple[int, int]] = {}
#: Around the middle of the window, where Blender puts a question: how far left of the middle and below
#: it a picture of the question reaches (up to the Sidebar's top, right to its edge).
QUESTION_REACH = (480, 140)
#: A dialog's rows (pixels at UI scale 1), and how far left of the button that opened it its fields are.
DIALOG_ROW = 26
DIALOG_FIELD_LEFT = 60
DIALOG_LABELS = 140
#: How long Blender takes to draw a panel opening or closing (seconds).
PANEL_MOTION = 1.0
#: The Generate panel's closed subpanels, top to bottom.
SUBPANELS = ("KILN_PT_generate_advanced", "KILN_PT_retexture", "KILN_PT_blockout")


@dataclass(frozen=True)
class Stand:
    service: str
    standin: str
    key: str
    key_env: str
    base_env: str


STANDS = {
    stand.service: stand
    for stand in (
        Stand("TRIPO", "tripo", "tsk_live_paidclickstripo0", "KILN_TRIPO_API_KEY", "KILN_TRIPO_BASE_URL"),
        Stand("MESHY", "meshy", "msy_live_paidclicksmeshy0", "KILN_MESHY_API_KEY", "KILN_MESHY_BASE_URL"),
        Stand("RODIN", "rodin", "rodin_live_paidclicksrodin", "KILN_RODIN_API_KEY", "KILN_RODIN_BASE_URL"),
    )
}


@pytest.fixture(scope="module")
def stand_ins() -> Iterator[dict[str, Sandbox]]:
    started = {
        stand.service: Sandbox(service=stand.standin, keys=[stand.key], speed=SLOW, credits=100_000).start()
        for stand in STANDS.values()
    }
    yield started
    for server in started.values():
        server.stop()


@pytest.fixture(scope="module")
def window(program: Program, installed_user: Path, stand_ins: dict[str, Sandbox]) -> Iterator[Window]:
    """One Blender for the file on a tall screen (the Jobs panel's details whole under Generate),
    every stand-in's address and key given by the environment, the Kiln tab open."""
    user = program.workdir("user")
    shutil.rmtree(user)
    shutil.copytree(installed_user, user, symlinks=True)
    screen = Display(program, width=1600, height=1300).start()
    env = {"KILN_POLL_INTERVAL": "0.2"}
    for stand in STANDS.values():
        env[stand.base_env] = stand_ins[stand.service].base_url
        env[stand.key_env] = stand.key
    blender = Window(program, screen, user, env)
    try:
        blender.start()
        blender.call("bpy.context.preferences.system.use_region_overlap = False")
        open_kiln_tab(blender)
        support = program.workdir("support") / "support"
        shutil.copytree(REPO / "tests" / "support", support, ignore=shutil.ignore_patterns("__pycache__"))
        blender.call(f"sys.path.insert(0, {program.inside(support)!r})\nimport language_texts")
        SPOTS.clear()
        yield blender
    except BaseException:
        print(f"--- Blender log {blender.log_path}\n{blender.log()[-6000:]}")
        raise
    finally:
        blender.kill()
        screen.stop()


@pytest.fixture(autouse=True)
def log_on_failure(window: Window, request: pytest.FixtureRequest) -> Iterator[None]:
    """Blender's log with a failed test's report (the window outlives the test)."""
    yield
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:
        print(f"--- Blender log {window.log_path}\n{window.log()[-6000:]}")


# ------------------------------------------------------------------ the artist's hands


def choose(window: Window, service: str) -> None:
    """The service chosen as the artist chose it before (its key is given by the environment)."""
    window.call(f"{PREFS}.service = {service!r}")
    window.wait_for(
        f"{PREFS}.service == {service!r} and not sys.modules[MODULE + '.session.setup'].missing()"
    )


def copies(window: Window, x: int, y: int) -> str:
    """What Ctrl+C copies at x, y ("" over what copies nothing). The pointer comes from beside the point
    (Blender lights the button under the pointer when it moves), and the clipboard is read until the copy
    is there: while a job runs, Blender takes its time to get to the key."""
    window.call("bpy.context.window_manager.clipboard = ''")
    window.display.xdotool("mousemove", "--sync", x + 3, y)
    window.display.xdotool("mousemove", "--sync", x, y, "sleep", "0.05", "key", "ctrl+c")
    deadline = time.monotonic() + COPY_WAIT
    while not (copied := window.display.clipboard()) and time.monotonic() < deadline:
        time.sleep(0.05)
    return copied


def locate(window: Window, rect: dict[str, int], wanted: str, step: int = 8) -> tuple[int, int]:
    """A point where Ctrl+C copies ``wanted``, checked again with the pointer at rest there (a quick scan
    can read a copy the step before made)."""
    x, y = find_in(window, rect, wanted, step)
    for dy in (0, -step // 2, -step, step // 2):
        if wanted in copies(window, x, y + dy):
            return x, y + dy
    raise WindowError(f"nothing near {x}, {y} copies {wanted!r} when asked again")


def below(window: Window, y: int) -> dict[str, int]:
    """The Sidebar from ``y`` down."""
    bar = window.call("result = sidebar()")
    return {**bar, "y": y, "height": bar["y"] + bar["height"] - y}


def generate_button(window: Window) -> tuple[int, int]:
    """Where Generate is: where it was last time (the rows above it are the same on these services),
    else found down the Sidebar."""
    wanted = "bpy.ops.kiln.generate_from_text"
    known = SPOTS.get("generate")
    if known is None or wanted not in copies(window, *known):
        SPOTS["generate"] = locate(window, window.call("result = sidebar()"), wanted)
    return SPOTS["generate"]


def in_jobs_panel(window: Window, wanted: str, left: bool = False) -> tuple[int, int]:
    """A button under the Generate panel's Generate (the subpanels' and the Jobs panel's); ``left``: the
    first of a row of them (searched down the Sidebar's left half)."""
    rect = below(window, generate_button(window)[1] + 20)
    if left:
        rect = {**rect, "width": rect["width"] // 2}
    return locate(window, rect, wanted, step=JOBS_STEP)


def job_button(window: Window, operator: str, job_id: str, left: bool = False) -> tuple[int, int]:
    """A button of the Jobs panel's details for this job."""
    point = in_jobs_panel(window, f"bpy.ops.kiln.{operator}(", left)
    copied = copies(window, *point)
    assert job_id in copied, f"{operator} at {point} is another job's: {copied}"
    return point


def started(window: Window, prompt: str, before: int = 0) -> dict[str, str]:
    """The newest job of ``prompt`` once its task is on the service (``before``: jobs of it there were)."""
    found = window.wait_for(
        f"[j for j in kiln_jobs() if j['prompt'] == {prompt!r} and j['task_id']][{before}:]", timeout=60
    )
    return dict(found[-1])


def state(window: Window, job_id: str) -> str:
    return str(window.call(f"result = [j['state'] for j in kiln_jobs() if j['id'] == {job_id!r}][0]"))


def drawn(window: Window, panel: str) -> list[str]:
    """The texts the panel gave Blender at its next real redraw."""
    return list(window.wait_for(f"language_texts.next_drawn(bpy.types.{panel})", timeout=20, every=0.1))


def open_subpanels(window: Window) -> set[str]:
    """Which of the Generate panel's subpanels draw (are open), heard over redraws for a while after a
    click (Blender may take its time to get to the click): the Jobs panel, drawn after them, counts the
    redraws."""
    names = (*SUBPANELS, "KILN_PT_jobs")
    ask = f"result = [language_texts.next_drawn(getattr(bpy.types, n)) is not None for n in {names!r}]"
    window.call(ask)  # every panel listened to, a redraw asked for
    heard: set[str] = set()
    redraws = 0
    start = time.monotonic()
    while redraws < 2 or time.monotonic() - start < PANEL_MOTION:
        if time.monotonic() - start > 20:
            raise WindowError("the Sidebar did not redraw")
        time.sleep(0.1)
        drew = {name for name, yes in zip(names, window.call(ask), strict=True) if yes}
        redraws += "KILN_PT_jobs" in drew
        heard |= drew
    return heard & set(SUBPANELS)


def open_retexture(window: Window) -> tuple[int, int]:
    """A click on the Re-texture header (under Advanced, above Blockout: the first header found below
    Generate by a click says where it is; a wrong one is closed again); where it was clicked."""
    x, y = generate_button(window)
    tried: list[tuple[int, set[str]]] = []
    for candidate in range(y + 10, y + 200, 10):
        if copies(window, x, candidate):
            continue  # a button or a field (Generate itself): a header copies nothing
        window.display.click(x, candidate)
        opened = open_subpanels(window)
        tried.append((candidate, opened))
        if not opened:
            continue
        if "KILN_PT_retexture" in opened:
            return x, candidate
        window.display.click(x, candidate)  # closed again
        time.sleep(PANEL_MOTION)
        shift = HEADER_ROW if "KILN_PT_generate_advanced" in opened else -HEADER_ROW
        window.display.click(x, candidate + shift)
        opened = open_subpanels(window)
        tried.append((candidate + shift, opened))
        if "KILN_PT_retexture" in opened:
            return x, candidate + shift
        break
    raise WindowError(f"no click below Generate at {x}, {y} opened the Re-texture panel: {tried}")


def question_picture(window: Window, name: str, under: int | None = None) -> Path:
    """The question Blender put in the middle of the window (or a dialog reaching down to ``under``), with
    the Sidebar beside it, from its top."""
    bar = window.call("result = sidebar()")
    display = window.display
    left, below_middle = QUESTION_REACH
    x = display.width // 2 - left
    bottom = under if under is not None else display.height // 2 + below_middle
    return shot(
        display,
        name,
        {"x": x, "y": bar["y"], "width": bar["x"] + bar["width"] - x, "height": bottom - bar["y"]},
    )


def posts(server: Sandbox, path: str) -> int:
    return len([r for r in server.requests if r.method == "POST" and r.path.startswith(path)])


def deletes(server: Sandbox) -> int:
    return len([r for r in server.requests if r.method == "DELETE"])


# ------------------------------------------------------------------ the tests


def test_a_second_identical_generate_asks_another_one_and_sends_on_confirm(
    window: Window, stand_ins: dict[str, Sandbox]
) -> None:
    prompt = "a brass ship's lantern"
    tripo = stand_ins["TRIPO"]
    choose(window, "TRIPO")
    window.call(f"{SETTINGS}.mode = 'TEXT'\n{SETTINGS}.prompt = {prompt!r}")
    generate = generate_button(window)
    before = tripo.submit_attempts
    window.display.click(*generate)
    started(window, prompt)
    assert tripo.submit_attempts == before + 1

    # The same prompt on the same service, while it runs: the question, and nothing sent.
    window.display.click(*generate)
    time.sleep(QUESTION_UP)
    assert tripo.submit_attempts == before + 1, "a second identical Generate sent without asking"
    question_picture(window, "sidebar-another-one-question")
    window.display.xdotool("key", "Escape")
    time.sleep(QUESTION_UP)
    assert tripo.submit_attempts == before + 1, "the question's Cancel sent a job"

    # Asked again and confirmed: exactly one more.
    window.display.click(*generate)
    time.sleep(QUESTION_UP)
    assert tripo.submit_attempts == before + 1
    window.display.xdotool("key", "Return")
    started(window, prompt, before=1)
    time.sleep(QUESTION_UP)
    assert tripo.submit_attempts == before + 2
    running = window.call(f"result = [j['state'] for j in kiln_jobs() if j['prompt'] == {prompt!r}]")
    assert len(running) == 2, running


def test_stop_waiting_keeps_resume_which_brings_the_mesh_in_with_no_new_task(
    window: Window, stand_ins: dict[str, Sandbox]
) -> None:
    prompt = "a carved wooden owl"
    tripo = stand_ins["TRIPO"]
    choose(window, "TRIPO")
    window.call(f"{SETTINGS}.prompt = {prompt!r}")
    window.display.click(*generate_button(window))
    job = started(window, prompt)
    sent = tripo.submit_attempts

    # Tripo has no cancel: the button is Stop Waiting, and it goes at once (stopping costs nothing).
    window.display.click(*job_button(window, "cancel_job", job["id"]))
    window.wait_for(f"[j for j in kiln_jobs() if j['id'] == {job['id']!r} and j['state'] == 'cancelled']")
    texts = drawn(window, "KILN_PT_jobs")
    assert "Resume" in texts, texts
    assert "Resume brings its mesh in at no extra cost" in " ".join(texts), texts  # its lines wrapped

    # The task finishes on Tripo meanwhile; Resume brings its mesh in.
    tripo.complete_now(job["task_id"])
    window.display.click(*job_button(window, "resume_job", job["id"], left=True))
    window.wait_for(f"[j for j in kiln_jobs() if j['id'] == {job['id']!r} and j['state'] == 'imported']", 90)
    landed = window.call(
        f"result = [o['type'] for o in kiln_objects() if o['task_id'] == {job['task_id']!r}]"
    )
    assert "MESH" in landed, landed
    assert tripo.submit_attempts == sent, "Resume sent a new task"


def test_cancel_on_meshy_asks_first_and_cancelling_the_question_deletes_nothing(
    window: Window, stand_ins: dict[str, Sandbox]
) -> None:
    prompt = "a stone garden lamp"
    meshy = stand_ins["MESHY"]
    choose(window, "MESHY")
    # Meshy's default model publishes no text price: that first question is another test's.
    window.call(f"{PREFS}.ask_unknown_price = False\n{SETTINGS}.prompt = {prompt!r}")
    try:
        window.display.click(*generate_button(window))
        job = started(window, prompt)
    finally:
        window.call(f"{PREFS}.ask_unknown_price = True")
    assert "Cancel on Service" in drawn(window, "KILN_PT_jobs")

    cancel = job_button(window, "cancel_job", job["id"])
    window.display.click(*cancel)
    time.sleep(QUESTION_UP)
    assert deletes(meshy) == 0, "Cancel on Service deleted the task without asking"
    question_picture(window, "sidebar-cancel-on-service-question")
    window.display.xdotool("key", "Escape")
    time.sleep(QUESTION_UP)
    assert deletes(meshy) == 0, "the question's Cancel deleted the task"
    assert state(window, job["id"]) in ("queued", "running"), state(window, job["id"])

    # Confirmed: Meshy deletes it, and the job says its credits count as spent.
    window.display.click(*cancel)
    time.sleep(QUESTION_UP)
    assert deletes(meshy) == 0
    window.display.xdotool("key", "Return")
    window.wait_for(f"[j for j in kiln_jobs() if j['id'] == {job['id']!r} and j['state'] == 'cancelled']")
    deadline = time.monotonic() + 30  # the delete goes from a worker thread
    while deletes(meshy) == 0 and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(QUESTION_UP)
    assert deletes(meshy) == 1


def test_retexture_selected_asks_first_with_its_price(window: Window, stand_ins: dict[str, Sandbox]) -> None:
    meshy = stand_ins["MESHY"]
    choose(window, "MESHY")
    # Ask Above set to 5 credits in Kiln's preferences: a re-texture (10 credits on Meshy) asks first.
    window.call(
        f"{PREFS}.ask_above = 5\n"
        f"{SETTINGS}.retexture_prompt = 'weathered bronze with green patina'\n"
        "with in_view3d('WINDOW'):\n"
        "    bpy.ops.mesh.primitive_cube_add(location=(4, 0, 0))\n"
        "bpy.context.active_object.name = 'Bollard'"
    )
    header = open_retexture(window)
    try:
        texts = drawn(window, "KILN_PT_retexture")
        assert "Re-texture Selected (10 credits)" in texts, texts
        button = find_in(
            window, below(window, generate_button(window)[1] + 20), "bpy.ops.kiln.retexture_selected(", step=8
        )
        window.display.click(*button)
        time.sleep(QUESTION_UP)
        assert posts(meshy, "/openapi/v1/retexture") == 0, "Re-texture sent without asking"
        question_picture(window, "sidebar-retexture-question")
        window.display.xdotool("key", "Escape")
        time.sleep(QUESTION_UP)
        assert posts(meshy, "/openapi/v1/retexture") == 0, "the question's Cancel sent the re-texture"

        # Asked again and confirmed: the selected mesh goes to Meshy, once.
        window.display.click(*button)
        time.sleep(QUESTION_UP)
        assert posts(meshy, "/openapi/v1/retexture") == 0
        window.display.xdotool("key", "Return")
        window.wait_for("[j for j in kiln_jobs() if j['prompt'] == 'weathered bronze with green patina']", 30)
        deadline = time.monotonic() + 30
        while posts(meshy, "/openapi/v1/retexture") == 0 and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(QUESTION_UP)
        assert posts(meshy, "/openapi/v1/retexture") == 1
    finally:
        window.call(f"{PREFS}.ask_above = 0")
        window.display.click(*header)  # closed again: the Jobs panel's buttons stay on the screen
        time.sleep(PANEL_MOTION)


def rodin_task_from_elsewhere(server: Sandbox, key: str, prompt: str) -> str:
    """A Rodin task made by another computer (its own request to Rodin's Generation call), finished."""
    boundary = uuid.uuid4().hex
    body = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="prompt"\r\n\r\n{prompt}\r\n--{boundary}--\r\n'
    ).encode()
    request = urllib.request.Request(
        f"{server.base_url}/api/v2/rodin",
        data=body,
        headers={
            "Authorization": f"Bearer {key}",
            "Content-Type": f"multipart/form-data; boundary={boundary}",
        },
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        task_id = str(json.load(answer)["uuid"])
    server.complete_now(task_id)
    return task_id


def test_add_job_by_id_on_rodin_brings_a_finished_tasks_mesh_in(
    window: Window, stand_ins: dict[str, Sandbox]
) -> None:
    rodin = stand_ins["RODIN"]
    task_id = rodin_task_from_elsewhere(rodin, STANDS["RODIN"].key, "a lighthouse on a rock")
    made = posts(rodin, "/api/v2/rodin")
    choose(window, "RODIN")

    # Add Job by ID…: its dialog asks the chosen service (Rodin) for the id pasted into its Job ID field.
    add = in_jobs_panel(window, "bpy.ops.kiln.resume_task(")
    window.display.click(*add)
    time.sleep(1.0)
    x = add[0] - DIALOG_FIELD_LEFT
    service_row = find_in(window, {"x": x - 1, "y": add[1] - 120, "width": 2, "height": 300}, "RODIN", step=6)
    paste_into_first_field(window, x, service_row[1], task_id)
    question_picture(window, "sidebar-add-job-by-id", under=add[1] + 160)
    # Return with the pointer over the labels (not a field, which Return would open): the dialog's OK.
    window.display.xdotool(
        "mousemove", "--sync", x - DIALOG_LABELS, service_row[1], "sleep", "0.2", "key", "Return"
    )
    job = window.wait_for(f"[j for j in kiln_jobs() if j['task_id'] == {task_id!r}]", timeout=30)[0]
    window.wait_for(f"[j for j in kiln_jobs() if j['id'] == {job['id']!r} and j['state'] == 'imported']", 90)
    assert window.call(f"result = {ENGINE}.get({job['id']!r}).request.service_id") == "RODIN"
    landed = window.call(f"result = [o['type'] for o in kiln_objects() if o['task_id'] == {task_id!r}]")
    assert "MESH" in landed, landed
    assert posts(rodin, "/api/v2/rodin") == made, "Add Job by ID sent a new task"


def paste_into_first_field(window: Window, x: int, below_y: int, text: str) -> None:
    """Ctrl+V over the first text field of a dialog above ``below_y`` (found from the top: a paste there,
    then Ctrl+C copies it back), as an artist pastes an id copied from the service's dashboard."""
    for y in range(below_y - 3 * DIALOG_ROW, below_y - DIALOG_ROW // 2, 4):
        window.call(f"bpy.context.window_manager.clipboard = {text!r}")
        window.display.xdotool("mousemove", "--sync", x + 3, y)
        window.display.xdotool("mousemove", "--sync", x, y, "sleep", "0.05", "key", "ctrl+v", "sleep", "0.1")
        if copies(window, x, y) == text:
            return
    raise WindowError(f"no field above y={below_y} took the pasted {text!r}")
