"""Served GLBs import in real Blender (the bpy module) with the triangle count the poll reported."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import requests
from concepts import CONCEPTS
from sandbox_http import picture, run_text, submit_image, wait_final

SHAPES = [
    "a chair",
    "a table",
    "a mug",
    "a tree",
    "a rock",
    "a yellow lamp",
    "a sword",
    "a house",
    "a zorblax",
]


def _check_import(bpy: Any, final: dict[str, Any], path: Path) -> None:
    path.write_bytes(requests.get(final["result"]["mesh_url"], timeout=10).content)
    bpy.ops.wm.read_homefile(use_empty=True)
    assert bpy.ops.import_scene.gltf(filepath=str(path)) == {"FINISHED"}
    objects = [obj for obj in bpy.context.scene.objects if obj.type == "MESH"]
    assert len(objects) == 1
    mesh = objects[0].data
    assert all(len(polygon.vertices) == 3 for polygon in mesh.polygons)
    assert len(mesh.polygons) == final["result"]["triangles"], path.name
    nodes = mesh.materials[0].node_tree.nodes
    assert any(node.type == "TEX_IMAGE" and node.image is not None for node in nodes)


@pytest.mark.parametrize("resolution", [1024, 1536])
def test_text_glbs_import_in_blender(sandbox, sandbox_key, tmp_path, resolution):
    bpy = pytest.importorskip("bpy")
    for prompt in SHAPES:
        final = run_text(sandbox.base_url, sandbox_key, prompt, resolution=resolution)
        _check_import(bpy, final, tmp_path / f"{prompt.replace(' ', '_')}.glb")


def test_image_glbs_import_in_blender(sandbox, sandbox_key, tmp_path):
    bpy = pytest.importorskip("bpy")
    uploads = {"generated": picture()}
    uploads.update({p.stem: p.read_bytes() for p in sorted(CONCEPTS.glob("*.png"))})
    for name, data in uploads.items():
        for resolution in (1024, 1536):
            poll = submit_image(sandbox.base_url, sandbox_key, data, resolution=resolution).json()["links"][
                "poll"
            ]
            _check_import(bpy, wait_final(poll, sandbox_key), tmp_path / f"{name}-{resolution}.glb")
