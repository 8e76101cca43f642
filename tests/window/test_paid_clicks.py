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
import time
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from program import Program, Window
from shared_window import print_log_if_failed, shared_window
from sidebar import find_in
from sidebar_clicks import (
    DIALOG_FIELD_LEFT,
    DIALOG_LABELS,
    PANEL_MOTION,
    SPOTS,
    generate_button,
    in_jobs_panel,
    job_button,
    open_retexture,
    paste_into_first_field,
    question_picture,
)

from sandbox.server import Sandbox

PREFS = "bpy.context.preferences.addons[MODULE].preferences"
ENGINE = "sys.modules[MODULE + '.session.runtime'].engine_if_started()"
SETTINGS = "bpy.context.scene.kiln"
#: Jobs run about four minutes on these stand-ins: each stays running until the test finishes it.
SLOW = 0.02
#: How long a question is left on screen before the stand-in's count is read (a click that sent
#: without asking would have reached it by then).
QUESTION_UP = 1.5


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
    env = {"KILN_POLL_INTERVAL": "0.2"}
    for stand in STANDS.values():
        env[stand.base_env] = stand_ins[stand.service].base_url
        env[stand.key_env] = stand.key
    with shared_window(program, installed_user, env) as blender:
        SPOTS.clear()
        yield blender


@pytest.fixture(autouse=True)
def log_on_failure(window: Window, request: pytest.FixtureRequest) -> Iterator[None]:
    yield
    print_log_if_failed(window, request)


# ------------------------------------------------------------------ the artist's hands


def given(window: Window, code: str) -> None:
    """Settings changed as the artist's typing would: then the Sidebar drawn again, so its buttons
    carry them (a button keeps the arguments of the draw that made it; a change made from Python
    asks Blender for no redraw)."""
    window.call(code)
    drawn(window, "KILN_PT_generate")


def choose(window: Window, service: str) -> None:
    """The service chosen as the artist chose it before (its key is given by the environment)."""
    given(window, f"{PREFS}.service = {service!r}")
    window.wait_for(
        f"{PREFS}.service == {service!r} and not sys.modules[MODULE + '.session.setup'].missing()"
    )


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
    given(window, f"{SETTINGS}.mode = 'TEXT'\n{SETTINGS}.prompt = {prompt!r}")
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
    given(window, f"{SETTINGS}.prompt = {prompt!r}")
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
    given(window, f"{PREFS}.ask_unknown_price = False\n{SETTINGS}.prompt = {prompt!r}")
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
        button = in_jobs_panel(window, "bpy.ops.kiln.retexture_selected(")
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
