"""The fidelity measure: a mesh made from the concept matches it from any side; another does not."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest
import trimesh
from PIL import Image

from api.checks import fidelity
from fixtures import concept_images
from sandbox import images, meshes


def _glb(folder: Path, mesh: trimesh.Trimesh, name: str) -> Path:
    path = folder / f"{name}.glb"
    path.write_bytes(mesh.export(file_type="glb"))
    return path


def _relief(folder: Path, concept: str) -> tuple[trimesh.Trimesh, Path]:
    image = concept_images.write_concept(folder, concept)
    with Image.open(image) as opened:
        return images.image_mesh(opened, 1024), image


@pytest.mark.parametrize("concept", ["chair", "teapot", "robot"])
def test_a_mesh_made_from_the_concept_matches_it(tmp_path: Path, concept: str) -> None:
    mesh, image = _relief(tmp_path, concept)
    found = fidelity.measure(_glb(tmp_path, mesh, concept), image)
    assert found.value is not None and found.value >= fidelity.GOOD
    assert fidelity.words_for(found.value) is fidelity.words.FIDELITY_GOOD


@pytest.mark.parametrize(
    ("axis", "angle"), [((0, 1, 0), 90), ((0, 1, 0), 180), ((0, 1, 0), -90), ((1, 0, 0), 90)]
)
def test_it_matches_from_any_side(tmp_path: Path, axis: tuple[int, int, int], angle: int) -> None:
    mesh, image = _relief(tmp_path, "robot")
    mesh.apply_transform(trimesh.transformations.rotation_matrix(np.radians(angle), axis))
    found = fidelity.measure(_glb(tmp_path, mesh, "turned"), image)
    assert found.value is not None and found.value >= fidelity.GOOD


@pytest.mark.parametrize("prompt", ["a sword", "a wooden table", "a tree"])
def test_another_mesh_does_not_match(tmp_path: Path, prompt: str) -> None:
    mesh = _glb(tmp_path, meshes.text_mesh(prompt, 1024), "other")
    found = fidelity.measure(mesh, concept_images.write_concept(tmp_path, "chair"))
    assert found.value is not None and found.value < fidelity.FAIR
    assert fidelity.words_for(found.value) is fidelity.words.FIDELITY_POOR


def test_wrong_proportions_show(tmp_path: Path) -> None:
    mesh, image = _relief(tmp_path, "chair")
    mesh.apply_scale((2.5, 1.0, 1.0))  # stretched sideways: never stretched back
    found = fidelity.measure(_glb(tmp_path, mesh, "wide"), image)
    assert found.value is not None and found.value < fidelity.FAIR


def test_what_cannot_be_measured_is_none_never_zero(tmp_path: Path) -> None:
    broken = tmp_path / "broken.glb"
    broken.write_bytes(b"glTF" + b"\0" * 30)
    chair = concept_images.write_concept(tmp_path, "chair")
    assert fidelity.measure(broken, chair).value is None
    mesh, _ = _relief(tmp_path, "chair")
    busy = concept_images.write_case(tmp_path, "busy")
    assert fidelity.measure(_glb(tmp_path, mesh, "chair"), busy).value is None
    assert fidelity.words_for(None) is fidelity.words.FIDELITY_UNMEASURED


def test_a_200k_triangle_mesh_is_measured_within_its_budget(tmp_path: Path) -> None:
    grid = _glb(tmp_path, meshes.text_mesh("textured test grid of 200000 triangles", 1024), "grid")
    chair = concept_images.write_concept(tmp_path, "chair")
    fidelity.measure(grid, chair)
    # CPU time: make test runs side by side on two cores, and the wall clock would count the others.
    start = time.process_time()
    assert fidelity.measure(grid, chair).value is not None
    assert time.process_time() - start < 3.0  # the budget (1.5 s) is the bench's; here: a shared machine
