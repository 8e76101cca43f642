"""What an artist does in the Sidebar, in Debian's Blender program with a window.

Real input (xdotool) where the claim is about input: N, the Kiln tab, pasting the prompt, the
Generate button, Ctrl+Z. Operators in the window's context where the claim is about behaviour.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from program import Window
from sidebar import find_in_sidebar, open_kiln_tab, paste_into_field, viewport_centre

from sandbox.server import Sandbox

PROMPT = "a weathered oak treasure chest with iron bands"
ACTIVE = "('submitting', 'queued', 'running', 'downloading')"


def test_no_key_says_what_to_do(open_window: Callable[..., Window]) -> None:
    window = open_window()
    open_kiln_tab(window)
    find_in_sidebar(window, "kiln.")  # the panel drew


def test_paste_press_generate_follow_the_job_and_undo_the_import(
    open_window: Callable[..., Window], sandbox_factory: Callable[..., Sandbox], sandbox_key: str
) -> None:
    sandbox = sandbox_factory(speed=0.4)  # a text job takes about 12 s: long enough to watch
    window = open_window(env={"KILN_BASE_URL": sandbox.base_url, "KILN_API_KEY": sandbox_key})
    open_kiln_tab(window)

    paste_into_field(window, "bpy.context.scene.kiln.prompt", PROMPT)
    assert window.call("result = bpy.context.scene.kiln.prompt") == PROMPT

    window.display.click(*find_in_sidebar(window, "bpy.ops.kiln.generate_from_text"))
    # The service publishes no text price: the session's first such click asks once; Return sends.
    time.sleep(1.0)
    assert sandbox.submit_attempts == 0, "the first job of unknown price was sent without asking"
    window.display.xdotool("key", "Return")
    job = window.wait_for("[j for j in kiln_jobs() if j['state'] in ('queued', 'running')]", timeout=30)[0]
    assert job["prompt"] == PROMPT

    window.wait_for("[j for j in kiln_jobs() if j['state'] == 'imported']", timeout=90)
    objects = window.wait_for("kiln_objects()")
    assert {obj["prompt"] for obj in objects} == {PROMPT}
    assert sandbox.submit_count == 1

    # Ctrl+Z over the viewport: one step takes the whole import away.
    window.display.xdotool("mousemove", "--sync", *viewport_centre(window))
    window.display.xdotool("key", "ctrl+z")
    window.wait_for("not kiln_objects()", timeout=10)
    assert window.call("result = 'Cube' in bpy.data.objects"), (
        "one undo step went further back than the import"
    )


def test_cancel_and_retry_from_the_job_list(
    open_window: Callable[..., Window], sandbox_factory: Callable[..., Sandbox], sandbox_key: str
) -> None:
    sandbox = sandbox_factory(speed=0.05)  # jobs outlive the test unless finished by hand
    window = open_window(env={"KILN_BASE_URL": sandbox.base_url, "KILN_API_KEY": sandbox_key})
    open_kiln_tab(window)
    with_context = "with in_view3d('UI'):\n    "

    window.call(with_context + "bpy.ops.kiln.generate_from_text(prompt='a stone lantern')")
    first = window.wait_for(f"[j for j in kiln_jobs() if j['task_id'] and j['state'] in {ACTIVE}]")[0]
    window.call(with_context + f"bpy.ops.kiln.cancel_job(job_id={first['id']!r})")
    window.wait_for(f"[j for j in kiln_jobs() if j['id'] == {first['id']!r} and j['state'] == 'cancelled']")

    window.call(with_context + "bpy.ops.kiln.generate_from_text(prompt='a brass ship lantern')")
    second = window.wait_for(
        f"[j for j in kiln_jobs() if j['task_id'] and j['id'] != {first['id']!r} and j['state'] in {ACTIVE}]"
    )[0]
    sandbox.fail_now(
        second["task_id"], "The model could not make a mesh of this prompt: try describing its shape."
    )
    failed = window.wait_for(
        f"[j for j in kiln_jobs() if j['id'] == {second['id']!r} and j['state'] == 'failed']", timeout=60
    )[0]
    # Kiln's own sentence, then the service's reason in its plain words, quoted as the service's.
    assert "could not make a mesh from this prompt" in failed["error"], failed["error"]
    assert failed["error"].endswith(
        "(The service said: “The model could not make a mesh of this prompt: try describing its shape.”)"
    ), failed["error"]

    submits = sandbox.submit_count
    window.call(with_context + f"bpy.ops.kiln.retry_job('EXEC_DEFAULT', job_id={second['id']!r})")
    retried = window.wait_for(
        f"[j for j in kiln_jobs() if j['id'] == {second['id']!r} and j['task_id'] != {second['task_id']!r}"
        " and j['task_id']]"
    )[0]
    assert sandbox.submit_count == submits + 1
    sandbox.complete_now(retried["task_id"])
    window.wait_for(
        f"[j for j in kiln_jobs() if j['id'] == {second['id']!r} and j['state'] == 'imported']", 60
    )
    assert not [o for o in window.call("result = kiln_objects()") if o["task_id"] == first["task_id"]]
