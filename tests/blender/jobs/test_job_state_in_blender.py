"""The Blender side's per-job state has one owner (``session.state``), emptied when Kiln is disabled."""

from __future__ import annotations

import logging
from typing import Any

ADDON = "bl_ext.kiln_dev.kiln"


def test_disabling_kiln_leaves_no_per_job_state_and_enabling_it_starts_clean(
    service: Any, blender: Any, kiln_module: Any
) -> None:
    from mathutils import Vector

    session_state = kiln_module("session.state")
    state = session_state.current
    # A job sent with an import option (no beat imports it in background mode), a batch's grid,
    # and a batch the UI follows for its summary.
    result = blender.ops.kiln.generate_from_text(prompt="a red chair", wait=False, target_height=2.0)
    assert result == {"FINISHED"}
    (job,) = kiln_module("session.runtime").engine().jobs()
    assert state.placements[job.id].options.target_height == 2.0
    state.grid_slots.reserve(["a", "b"], Vector())
    kiln_module("session.batches").follow(session_state.FollowedBatch("props.txt", ["a", "b"], ""))
    assert len(state.grid_slots) == 2 and state.followed

    blender.ops.preferences.addon_disable(module=ADDON)
    try:
        assert state.is_empty(), state
    finally:
        blender.ops.preferences.addon_enable(module=ADDON)
        logging.getLogger(ADDON).setLevel(logging.DEBUG)  # enabling set the preference's level
    assert kiln_module("session.state").current.is_empty()


def test_disabling_kiln_forgets_work_still_running_off_the_main_thread(
    blender: Any, kiln_module: Any
) -> None:
    import threading

    main_thread = kiln_module("main_thread")
    release, outcomes = threading.Event(), []
    main_thread.follow("test", lambda: release.wait(10), outcomes.append)
    (check,) = main_thread._followed
    assert blender.app.timers.is_registered(check)

    blender.ops.preferences.addon_disable(module=ADDON)
    try:
        assert not blender.app.timers.is_registered(check), "a disabled Kiln would handle the outcome later"
    finally:
        release.set()
        blender.ops.preferences.addon_enable(module=ADDON)
        logging.getLogger(ADDON).setLevel(logging.DEBUG)
    assert outcomes == []
