"""Procedural text-to-3D: a prompt becomes a recognisable, deterministic object built from primitives.

Parts keep their own colour through a tiny palette texture (one texel block per part), so the
GLB is a single textured mesh that any glTF importer shows in colour. Resolution only changes
the density (one extra subdivision at 1536, so it has 4x the triangles of 1024).
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import trimesh
from PIL import Image
from trimesh import creation, remesh
from trimesh.visual import TextureVisuals

from sandbox import defects
from sandbox.grid import textured_grid
from sandbox.samples import SAMPLES

RGB = tuple[int, int, int]

#: Minimum triangle count at resolution 1024; 1536 gets one more subdivision (4x).
MIN_TRIANGLES_1024 = 3000
PALETTE_BLOCK = 8

COLOURS: dict[str, RGB] = {
    "red": (200, 40, 40),
    "green": (50, 160, 60),
    "blue": (40, 80, 200),
    "yellow": (230, 200, 40),
    "white": (235, 235, 235),
    "black": (25, 25, 25),
    "orange": (240, 130, 30),
    "purple": (130, 50, 170),
    "pink": (240, 130, 170),
    "brown": (120, 75, 40),
    "grey": (128, 128, 128),
    "gray": (128, 128, 128),
    "gold": (212, 175, 55),
    "silver": (190, 190, 200),
}

WOOD: RGB = (140, 95, 55)
DARK_WOOD: RGB = (90, 60, 35)
METAL: RGB = (170, 172, 180)
LEAF: RGB = (60, 140, 60)
STONE: RGB = (120, 118, 112)
CERAMIC: RGB = (225, 225, 220)


@dataclass(frozen=True)
class Part:
    mesh: trimesh.Trimesh
    colour: RGB
    tintable: bool = True


def _box(size: tuple[float, float, float], at: tuple[float, float, float]) -> trimesh.Trimesh:
    return creation.box(extents=size, transform=trimesh.transformations.translation_matrix(at))


def _cyl(radius: float, height: float, at: tuple[float, float, float], sections: int = 24) -> trimesh.Trimesh:
    return creation.cylinder(
        radius=radius,
        height=height,
        sections=sections,
        transform=trimesh.transformations.translation_matrix(at),
    )


def _cone(radius: float, height: float, base_z: float, sections: int = 24) -> trimesh.Trimesh:
    return creation.cone(
        radius=radius,
        height=height,
        sections=sections,
        transform=trimesh.transformations.translation_matrix((0, 0, base_z)),
    )


def _sphere(radius: float, at: tuple[float, float, float], subdivisions: int = 2) -> trimesh.Trimesh:
    mesh = creation.icosphere(subdivisions=subdivisions, radius=radius)
    mesh.apply_translation(at)
    return mesh


def _chair(rng: np.random.Generator) -> list[Part]:
    parts = [Part(_box((0.5, 0.5, 0.06), (0, 0, 0.45)), WOOD)]
    for x in (-0.21, 0.21):
        for y in (-0.21, 0.21):
            parts.append(Part(_box((0.05, 0.05, 0.45), (x, y, 0.21)), DARK_WOOD, tintable=False))
        parts.append(Part(_box((0.05, 0.05, 0.5), (x, 0.22, 0.72)), DARK_WOOD, tintable=False))
    parts.append(Part(_box((0.46, 0.04, 0.22), (0, 0.22, 0.85)), WOOD))
    return parts


def _table(rng: np.random.Generator) -> list[Part]:
    parts = [Part(_box((1.2, 0.7, 0.05), (0, 0, 0.74)), WOOD)]
    for x in (-0.54, 0.54):
        for y in (-0.29, 0.29):
            parts.append(Part(_box((0.06, 0.06, 0.72), (x, y, 0.36)), DARK_WOOD, tintable=False))
    return parts


def _mug(rng: np.random.Generator) -> list[Part]:
    body = creation.annulus(r_min=0.042, r_max=0.05, height=0.11, sections=32)
    body.apply_translation((0, 0, 0.055))
    handle = creation.torus(major_radius=0.03, minor_radius=0.007, major_sections=24, minor_sections=8)
    handle.apply_transform(trimesh.transformations.rotation_matrix(math.pi / 2, (1, 0, 0)))
    handle.apply_translation((0.06, 0, 0.055))
    return [Part(body, CERAMIC), Part(_cyl(0.045, 0.008, (0, 0, 0.004), 32), CERAMIC), Part(handle, CERAMIC)]


def _tree(rng: np.random.Generator) -> list[Part]:
    parts = [Part(_cyl(0.08, 1.0, (0, 0, 0.5), 16), DARK_WOOD, tintable=False)]
    for i, (radius, height) in enumerate(((0.6, 0.9), (0.48, 0.8), (0.34, 0.7))):
        parts.append(Part(_cone(radius, height, 0.7 + 0.4 * i, 24), LEAF))
    return parts


def _rock(rng: np.random.Generator) -> list[Part]:
    mesh = creation.icosphere(subdivisions=3, radius=0.5)
    directions = rng.normal(size=(6, 3))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    unit = mesh.vertices / np.linalg.norm(mesh.vertices, axis=1, keepdims=True)
    bumps = sum(0.08 * np.sin(4 * unit @ d + rng.uniform(0, 6)) for d in directions)
    mesh.vertices = unit * (0.5 + bumps)[:, None] * np.array([1.3, 1.0, 0.7])
    mesh.apply_translation((0, 0, -mesh.bounds[0][2]))
    return [Part(mesh, STONE)]


def _lamp(rng: np.random.Generator) -> list[Part]:
    shade = creation.annulus(r_min=0.16, r_max=0.17, height=0.25, sections=32)
    shade.apply_translation((0, 0, 0.62))
    return [
        Part(_cyl(0.15, 0.04, (0, 0, 0.02), 32), METAL, tintable=False),
        Part(_cyl(0.015, 0.6, (0, 0, 0.32), 12), METAL, tintable=False),
        Part(shade, CERAMIC),
        Part(_sphere(0.05, (0, 0, 0.6)), (255, 240, 180), tintable=False),
    ]


def _sword(rng: np.random.Generator) -> list[Part]:
    tip = creation.cone(radius=0.03, height=0.12, sections=4)
    tip.apply_scale((1, 0.2, 1))
    tip.apply_translation((0, 0, 0.95))
    return [
        Part(_box((0.06, 0.012, 0.75), (0, 0, 0.575)), METAL),
        Part(tip, METAL),
        Part(_box((0.25, 0.04, 0.03), (0, 0, 0.185)), (200, 170, 60), tintable=False),
        Part(_cyl(0.018, 0.15, (0, 0, 0.095), 16), (70, 40, 30), tintable=False),
        Part(_sphere(0.03, (0, 0, 0.01), 1), (200, 170, 60), tintable=False),
    ]


def _house(rng: np.random.Generator) -> list[Part]:
    roof = creation.extrude_triangulation(
        vertices=np.array([[-0.6, 0.0], [0.6, 0.0], [0.0, 0.45]]), faces=np.array([[0, 1, 2]]), height=1.1
    )
    roof.apply_transform(trimesh.transformations.rotation_matrix(math.pi / 2, (1, 0, 0)))
    roof.apply_translation((0, 0.55, 0.8))
    return [
        Part(_box((1.0, 1.0, 0.8), (0, 0, 0.4)), (220, 200, 170)),
        Part(roof, (150, 50, 40), tintable=False),
        Part(_box((0.2, 0.02, 0.4), (0, -0.505, 0.2)), DARK_WOOD, tintable=False),
        Part(_box((0.2, 0.02, 0.18), (-0.3, -0.505, 0.5)), (150, 190, 230), tintable=False),
        Part(_box((0.2, 0.02, 0.18), (0.3, -0.505, 0.5)), (150, 190, 230), tintable=False),
        Part(_box((0.12, 0.12, 0.35), (0.3, 0.2, 1.05)), (130, 60, 50), tintable=False),
    ]


def _abstract(rng: np.random.Generator) -> list[Part]:
    parts: list[Part] = []
    z = 0.0
    for _ in range(int(rng.integers(3, 6))):
        size = float(rng.uniform(0.15, 0.35))
        colour: RGB = tuple(int(c) for c in rng.integers(60, 230, size=3))  # type: ignore[assignment]
        kind = int(rng.integers(0, 3))
        at = (float(rng.uniform(-0.1, 0.1)), float(rng.uniform(-0.1, 0.1)), z + size)
        if kind == 0:
            mesh = _sphere(size, at)
        elif kind == 1:
            mesh = creation.torus(
                major_radius=size, minor_radius=size / 3, major_sections=24, minor_sections=12
            )
            mesh.apply_translation(at)
        else:
            mesh = _box((size * 1.6, size * 1.6, size * 1.6), at)
            mesh.apply_transform(
                trimesh.transformations.rotation_matrix(float(rng.uniform(0, 1)), (0, 0, 1), at)
            )
        parts.append(Part(mesh, colour))
        z += size * 1.6
    return parts


SHAPES: dict[str, Callable[[np.random.Generator], list[Part]]] = {
    "chair": _chair,
    "stool": _chair,
    "armchair": _chair,
    "table": _table,
    "desk": _table,
    "mug": _mug,
    "cup": _mug,
    "tree": _tree,
    "pine": _tree,
    "rock": _rock,
    "stone": _rock,
    "boulder": _rock,
    "lamp": _lamp,
    "lantern": _lamp,
    "sword": _sword,
    "blade": _sword,
    "house": _house,
    "cabin": _house,
    "hut": _house,
}


#: Every object word the sandbox knows: shapes built here, and samples modelled in Blender.
OBJECTS = SHAPES.keys() | SAMPLES.keys()


def _singular(word: str) -> str:
    """An object word's plural read as the object ("chairs", "chests"); any other word as it is."""
    for ending in ("es", "s"):
        if word.endswith(ending) and word[: -len(ending)] in OBJECTS:
            return word[: -len(ending)]
    return word


def _words(prompt: str) -> list[str]:
    return [_singular(w) for w in re.findall(r"[a-z]+", prompt.lower())]


def shape_name(prompt: str) -> str:
    """The recognised object word of a prompt (the last one, like an English head noun), or 'abstract'.

    A sample's name (``sandbox.samples``) counts too: "a treasure chest" is served the modelled chest.
    """
    return next((w for w in reversed(_words(prompt)) if w in OBJECTS), "abstract")


def tint_of(prompt: str) -> RGB | None:
    return next((COLOURS[w] for w in _words(prompt) if w in COLOURS), None)


def _seed(prompt: str) -> int:
    return int.from_bytes(hashlib.sha256(prompt.strip().lower().encode()).digest()[:8], "big")


def _palette(colours: list[RGB]) -> Image.Image:
    image = Image.new("RGB", (PALETTE_BLOCK * len(colours), PALETTE_BLOCK))
    for i, colour in enumerate(colours):
        image.paste(colour, (i * PALETTE_BLOCK, 0, (i + 1) * PALETTE_BLOCK, PALETTE_BLOCK))
    return image


def z_up_to_y_up(vertices: np.ndarray) -> np.ndarray:
    """glTF is Y-up; the builders think Z-up like Blender (whose importer converts back)."""
    return np.column_stack([vertices[:, 0], vertices[:, 2], -vertices[:, 1]])


#: "textured test grid of 1200000 triangles": a large textured result on demand (capped).
TEST_GRID = re.compile(r"textured test grid of (\d{1,7}) triangles")
TEST_GRID_MAX = 2_000_000


def text_mesh(prompt: str, resolution: int) -> trimesh.Trimesh:
    """Build the object named by the prompt; same prompt and resolution give the same mesh.

    A prompt with ``defect:<name>`` words gets the test box with those defects (``sandbox.defects``);
    "textured test grid of N triangles" a large textured grid.
    """
    grid = TEST_GRID.fullmatch(prompt.strip().lower())
    if grid:
        return textured_grid(min(int(grid.group(1)), TEST_GRID_MAX))
    asked = defects.defects_in(prompt)
    if asked is not None:
        return defects.defect_mesh(asked, resolution)
    rng = np.random.default_rng(_seed(prompt))
    parts = SHAPES.get(shape_name(prompt), _abstract)(rng)
    tint = tint_of(prompt)
    colours = [tint if tint is not None and p.tintable else p.colour for p in parts]
    width = PALETTE_BLOCK * len(parts)
    vertices, faces, uvs, offset = [], [], [], 0
    for i, part in enumerate(parts):
        vertices.append(np.asarray(part.mesh.vertices, dtype=np.float64))
        faces.append(np.asarray(part.mesh.faces) + offset)
        uvs.append(np.tile([(i + 0.5) * PALETTE_BLOCK / width, 0.5], (len(part.mesh.vertices), 1)))
        offset += len(part.mesh.vertices)
    v, f, uv = np.vstack(vertices), np.vstack(faces), np.vstack(uvs)
    levels = 0
    while len(f) * 4**levels < MIN_TRIANGLES_1024:
        levels += 1
    if resolution >= 1536:
        levels += 1
    for _ in range(levels):
        v, f, attributes = remesh.subdivide(v, f, vertex_attributes={"uv": uv})
        uv = attributes["uv"]
    visual = TextureVisuals(uv=uv, image=_palette(colours))
    return trimesh.Trimesh(vertices=z_up_to_y_up(v), faces=f, visual=visual, process=False)
