"""Make the sandbox's sample treasure chest: modelled in Blender, its wood and iron baked into one
texture, written by Blender's own glTF exporter (``sandbox/samples/treasure-chest.glb``).

The sandbox serves it for a prompt that asks for a chest, so the pictures of the product show a
real textured mesh under the job's title. Made once and committed; run again only to change it:

    .venv/bin/python tools/make_sample_chest.py
"""

from __future__ import annotations

import math
from pathlib import Path

import bpy

OUT = Path(__file__).resolve().parent.parent / "sandbox" / "samples" / "treasure-chest.glb"
TEXTURE_SIZE = 1024

WIDTH, DEPTH, HEIGHT = 0.9, 0.55, 0.42  # the body, metres
LID_RISE = 0.7  # the lid's height over its half depth


def _cube(
    name: str, size: tuple[float, float, float], at: tuple[float, float, float], bevel: float = 0.004
) -> bpy.types.Object:
    """A box with softened edges (a bare box is so few triangles that a mesh check calls it a fragment)."""
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=at)
    obj = bpy.context.active_object
    obj.name = name
    obj.scale = size
    bpy.ops.object.transform_apply(scale=True)
    _bevel(obj, bevel)
    return obj


def _half_drum(name: str, radius: float, length: float, z: float, x: float = 0.0) -> bpy.types.Object:
    """A half cylinder lying along X, flat side down at height ``z``, squashed to the lid's rise."""
    bpy.ops.mesh.primitive_cylinder_add(
        vertices=48, radius=radius, depth=length, rotation=(0, math.pi / 2, 0)
    )
    obj = bpy.context.active_object
    obj.name = name
    bpy.ops.object.transform_apply(rotation=True)
    obj.scale = (1.0, 1.0, LID_RISE)
    bpy.ops.object.transform_apply(scale=True)
    bpy.ops.object.mode_set(mode="EDIT")
    bpy.ops.mesh.select_all(action="SELECT")
    bpy.ops.mesh.bisect(plane_co=(0, 0, 0), plane_no=(0, 0, 1), use_fill=True, clear_inner=True)
    bpy.ops.object.mode_set(mode="OBJECT")
    obj.location = (x, 0, z)
    return obj


def _bevel(obj: bpy.types.Object, width: float) -> None:
    modifier = obj.modifiers.new("Bevel", "BEVEL")
    modifier.width = width
    modifier.segments = 2
    modifier.limit_method = "ANGLE"


def _node_material(name: str) -> tuple[bpy.types.Material, bpy.types.NodeTree]:
    material = bpy.data.materials.new(name)
    material.use_nodes = True
    tree = material.node_tree
    assert tree is not None
    return material, tree


def _wood(name: str, plank_axis: int, planks: float) -> bpy.types.Material:
    """Oak boards: grain along X, dark seams between boards counted along ``plank_axis``."""
    material, tree = _node_material(name)
    nodes, links = tree.nodes, tree.links
    bsdf = nodes["Principled BSDF"]
    coords = nodes.new("ShaderNodeTexCoord")
    stretch = nodes.new("ShaderNodeMapping")
    stretch.inputs["Scale"].default_value = (0.6, 9.0, 9.0)
    links.new(coords.outputs["Object"], stretch.inputs["Vector"])
    grain = nodes.new("ShaderNodeTexNoise")
    grain.inputs["Scale"].default_value = 6.0
    grain.inputs["Detail"].default_value = 8.0
    grain.inputs["Distortion"].default_value = 1.5
    links.new(stretch.outputs["Vector"], grain.inputs["Vector"])
    ramp = nodes.new("ShaderNodeValToRGB")
    ramp.color_ramp.elements[0].color = (0.16, 0.075, 0.03, 1)
    ramp.color_ramp.elements[1].color = (0.45, 0.24, 0.1, 1)
    links.new(grain.outputs["Fac"], ramp.inputs["Fac"])
    split = nodes.new("ShaderNodeSeparateXYZ")
    links.new(coords.outputs["Object"], split.inputs["Vector"])
    boards = nodes.new("ShaderNodeMath")
    boards.operation = "MULTIPLY"
    boards.inputs[1].default_value = planks
    links.new(split.outputs[plank_axis], boards.inputs[0])
    fraction = nodes.new("ShaderNodeMath")
    fraction.operation = "FRACT"
    links.new(boards.outputs[0], fraction.inputs[0])
    seam = nodes.new("ShaderNodeMath")
    seam.operation = "LESS_THAN"
    seam.inputs[1].default_value = 0.06
    links.new(fraction.outputs[0], seam.inputs[0])
    mix = nodes.new("ShaderNodeMix")
    mix.data_type = "RGBA"
    mix.inputs["B"].default_value = (0.05, 0.025, 0.012, 1)
    links.new(seam.outputs[0], mix.inputs["Factor"])
    links.new(ramp.outputs["Color"], mix.inputs["A"])
    links.new(mix.outputs["Result"], bsdf.inputs["Base Color"])
    return material


def _metal(name: str, colour: tuple[float, float, float]) -> bpy.types.Material:
    """Worn metal: the colour mottled by noise."""
    material, tree = _node_material(name)
    nodes, links = tree.nodes, tree.links
    noise = nodes.new("ShaderNodeTexNoise")
    noise.inputs["Scale"].default_value = 40.0
    ramp = nodes.new("ShaderNodeValToRGB")
    ramp.color_ramp.elements[0].color = (*(c * 0.55 for c in colour), 1)
    ramp.color_ramp.elements[1].color = (*colour, 1)
    links.new(noise.outputs["Fac"], ramp.inputs["Fac"])
    links.new(ramp.outputs["Color"], nodes["Principled BSDF"].inputs["Base Color"])
    return material


def _model() -> list[bpy.types.Object]:
    body_wood = _wood("Boards", plank_axis=2, planks=5.0 / HEIGHT)
    lid_wood = _wood("Lid boards", plank_axis=1, planks=4.0 / DEPTH)
    iron = _metal("Iron", (0.12, 0.12, 0.13))
    brass = _metal("Brass", (0.75, 0.55, 0.18))
    parts: list[tuple[bpy.types.Object, bpy.types.Material]] = []

    body = _cube("Body", (WIDTH, DEPTH, HEIGHT), (0, 0, HEIGHT / 2), bevel=0.012)
    parts.append((body, body_wood))
    lid = _half_drum("Lid", DEPTH / 2, WIDTH, HEIGHT)
    _bevel(lid, 0.008)
    parts.append((lid, lid_wood))
    for x in (-0.28, 0.28):
        parts.append((_cube("Band", (0.06, DEPTH + 0.016, HEIGHT + 0.01), (x, 0, HEIGHT / 2)), iron))
        parts.append((_half_drum("Lid band", DEPTH / 2 + 0.01, 0.06, HEIGHT, x), iron))
    for x in (-WIDTH / 2, WIDTH / 2):
        for y in (-DEPTH / 2, DEPTH / 2):
            parts.append((_cube("Corner", (0.05, 0.05, HEIGHT + 0.012), (x, y, HEIGHT / 2)), iron))
        parts.append((_cube("Rim", (0.05, DEPTH + 0.02, 0.035), (x, 0, HEIGHT)), iron))
    parts.append((_cube("Lid rim", (WIDTH + 0.02, 0.04, 0.035), (0, -DEPTH / 2, HEIGHT)), iron))
    lock = _cube("Lock", (0.13, 0.025, 0.16), (0, -DEPTH / 2 - 0.012, HEIGHT - 0.02), bevel=0.01)
    parts.append((lock, brass))
    bpy.ops.mesh.primitive_cylinder_add(
        vertices=32, radius=0.014, depth=0.01, location=(0, -DEPTH / 2 - 0.026, HEIGHT - 0.03),
        rotation=(math.pi / 2, 0, 0),
    )  # fmt: skip
    parts.append((bpy.context.active_object, iron))
    for x in (-WIDTH / 2 - 0.03, WIDTH / 2 + 0.03):
        bpy.ops.mesh.primitive_torus_add(
            major_radius=0.06, minor_radius=0.012, location=(x, 0, HEIGHT * 0.7), rotation=(0, math.pi / 2, 0)
        )
        parts.append((bpy.context.active_object, iron))
    for obj, material in parts:
        obj.data.materials.append(material)
    return [obj for obj, _material in parts]


def _bake(chest: bpy.types.Object) -> bpy.types.Image:
    """Every part's colour into one image on one UV map (Cycles' diffuse colour: no light baked in)."""
    image = bpy.data.images.new("Treasure chest", TEXTURE_SIZE, TEXTURE_SIZE)
    for slot in chest.material_slots:
        tree = slot.material.node_tree
        node = tree.nodes.new("ShaderNodeTexImage")
        node.image = image
        tree.nodes.active = node
    scene = bpy.context.scene
    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = 4
    scene.render.bake.margin = 8
    bpy.ops.object.bake(type="DIFFUSE", pass_filter={"COLOR"})
    return image


def _one_material(chest: bpy.types.Object, image: bpy.types.Image) -> None:
    """The baked image as the only material: what any glTF reader shows."""
    material, tree = _node_material("Treasure chest")
    texture = tree.nodes.new("ShaderNodeTexImage")
    texture.image = image
    bsdf = tree.nodes["Principled BSDF"]
    tree.links.new(texture.outputs["Color"], bsdf.inputs["Base Color"])
    bsdf.inputs["Roughness"].default_value = 0.7
    chest.data.materials.clear()
    chest.data.materials.append(material)


def main() -> None:
    bpy.ops.wm.read_factory_settings(use_empty=True)
    parts = _model()
    for obj in parts:
        obj.select_set(True)
    bpy.context.view_layer.objects.active = parts[0]
    bpy.ops.object.convert(target="MESH")  # the bevels applied
    bpy.ops.object.join()
    chest = bpy.context.active_object
    chest.name = chest.data.name = "Treasure chest"
    bpy.ops.object.shade_smooth_by_angle(angle=math.radians(35))
    bpy.ops.object.mode_set(mode="EDIT")
    bpy.ops.mesh.select_all(action="SELECT")
    bpy.ops.uv.smart_project(angle_limit=math.radians(60), island_margin=0.01)
    bpy.ops.object.mode_set(mode="OBJECT")
    image = _bake(chest)
    _one_material(chest, image)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    bpy.ops.export_scene.gltf(
        filepath=str(OUT),
        export_format="GLB",
        use_selection=True,
        export_image_format="JPEG",
        export_image_quality=85,
        export_apply=True,
    )
    print(f"{OUT}: {OUT.stat().st_size} bytes, {len(chest.data.polygons)} faces")


if __name__ == "__main__":
    main()
