"""``blender -b`` has no timer: an image job reaches the service or a sentence however it is started
(``wait=False`` then ``kiln.wait_jobs``, a blocking call, or ``INVOKE_DEFAULT`` from a script)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest

from fixtures.concept_images import write_case

CASES = Path(tempfile.mkdtemp(prefix="kiln-background-cases-"))


def kiln_objects(bpy: Any) -> list[Any]:
    return [obj for obj in bpy.data.objects if "kiln_task_id" in obj]


def test_wait_false_then_wait_jobs_lands_the_mesh(service: Any, blender: Any) -> None:
    path = write_case(CASES, "off_centre")
    assert blender.ops.kiln.generate_from_image(filepath=str(path), wait=False) == {"FINISHED"}
    assert blender.ops.kiln.wait_jobs() == {"FINISHED"}
    assert service.submit_attempts == 1
    (obj,) = kiln_objects(blender)
    assert obj["kiln_image"] == str(path) and "kiln_fidelity" in obj


def test_wait_false_refuses_in_a_sentence_and_sends_nothing(service: Any, blender: Any) -> None:
    with pytest.raises(RuntimeError, match="at least 128"):
        blender.ops.kiln.generate_from_image(filepath=str(write_case(CASES, "tiny")), wait=False)
    assert blender.ops.kiln.wait_jobs() == {"FINISHED"}
    assert service.submit_attempts == 0 and kiln_objects(blender) == []


def test_invoked_from_a_background_script_it_is_sent(service: Any, blender: Any) -> None:
    path = write_case(CASES, "off_centre")
    assert blender.ops.kiln.generate_from_image("INVOKE_DEFAULT", filepath=str(path)) == {"FINISHED"}
    assert service.submit_attempts == 1 and len(kiln_objects(blender)) == 1
