"""Objects modelled in Blender and written by its own glTF exporter (``tools/make_sample_chest.py``).

The sandbox serves a sample, byte for byte, for a text prompt whose object word is the sample's name
("a treasure chest"), so the product's pictures show a real textured mesh under the job's title.
"""

from __future__ import annotations

import io
from pathlib import Path

import trimesh

FOLDER = Path(__file__).resolve().parent
#: A prompt's object word → the sample's GLB in this folder.
SAMPLES = {"chest": "treasure-chest.glb"}


def glb(name: str) -> bytes:
    return (FOLDER / SAMPLES[name]).read_bytes()


def mesh_of(data: bytes) -> trimesh.Trimesh:
    """A sample as one textured trimesh, for the preview picture drawn from the mesh."""
    mesh = trimesh.load(io.BytesIO(data), file_type="glb", force="mesh")
    assert isinstance(mesh, trimesh.Trimesh)
    mesh.visual.material = mesh.visual.material.to_simple()  # type: ignore[union-attr]
    return mesh
