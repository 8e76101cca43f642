"""Run in a child bpy process: build small scenes and write each as a GLB with Blender's own exporter.

``python make_corpus.py OUT_DIR`` writes one GLB per case of :data:`CASES`, each exercising what
an import must carry over: a textured PBR material with its image, Draco compression, a skinned
and animated armature, shape keys, vertex colours, a hierarchy, a light and a camera, custom
properties. Deterministic, so both imports of a case read the same bytes.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import bpy


def fresh() -> None:
    bpy.ops.wm.read_factory_settings(use_empty=True)


def link(obj: Any) -> Any:
    bpy.context.scene.collection.objects.link(obj)
    return obj


def cube_mesh(name: str, size: float = 1.0) -> Any:
    bpy.ops.mesh.primitive_cube_add(size=size)
    obj = bpy.context.active_object
    obj.name = obj.data.name = name
    return obj


def image(name: str, side: int = 64) -> Any:
    img = bpy.data.images.new(name, side, side, alpha=True)
    pixels = []
    for y in range(side):
        for x in range(side):
            pixels += [x / side, y / side, ((x // 8 + y // 8) % 2) * 0.8, 1.0]
    img.pixels.foreach_set(pixels)
    img.pack()
    return img


def pbr_material(name: str, texture: Any = None) -> Any:
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    bsdf = mat.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Metallic"].default_value = 0.25
    bsdf.inputs["Roughness"].default_value = 0.6
    bsdf.inputs["Base Color"].default_value = (0.8, 0.3, 0.2, 1.0)
    if texture is not None:
        node = mat.node_tree.nodes.new("ShaderNodeTexImage")
        node.image = texture
        mat.node_tree.links.new(node.outputs["Color"], bsdf.inputs["Base Color"])
    return mat


def textured() -> None:
    obj = cube_mesh("TexturedCube")
    obj.data.materials.append(pbr_material("Painted", image("Checker")))
    obj.location = (0.5, -1.0, 0.25)
    obj.rotation_euler = (0.1, 0.2, 0.3)


def draco() -> None:
    bpy.ops.mesh.primitive_uv_sphere_add(segments=32, ring_count=16)
    obj = bpy.context.active_object
    obj.name = "DracoSphere"
    obj.data.materials.append(pbr_material("Plain"))


def skinned() -> None:
    armature = bpy.data.armatures.new("Rig")
    rig = link(bpy.data.objects.new("Rig", armature))
    bpy.context.view_layer.objects.active = rig
    bpy.ops.object.mode_set(mode="EDIT")
    root = armature.edit_bones.new("Root")
    root.head, root.tail = (0, 0, 0), (0, 0, 1)
    tip = armature.edit_bones.new("Tip")
    tip.head, tip.tail, tip.parent = (0, 0, 1), (0, 0, 2), root
    bpy.ops.object.mode_set(mode="OBJECT")
    bpy.ops.mesh.primitive_cylinder_add(vertices=8, depth=2.0, location=(0, 0, 1))
    body = bpy.context.active_object
    body.name = "Body"
    for name, low in (("Root", True), ("Tip", False)):
        group = body.vertex_groups.new(name=name)
        group.add([v.index for v in body.data.vertices if (v.co.z < 0) == low], 1.0, "REPLACE")
    body.parent = rig
    body.modifiers.new("Armature", "ARMATURE").object = rig
    rig.animation_data_create()
    rig.animation_data.action = bpy.data.actions.new("Wave")
    for frame, angle in ((1, 0.0), (12, 0.6), (24, 0.0)):
        pose = rig.pose.bones["Tip"]
        pose.rotation_mode = "XYZ"
        pose.rotation_euler = (angle, 0.0, 0.0)
        pose.keyframe_insert("rotation_euler", frame=frame)


def morph() -> None:
    obj = cube_mesh("Blob")
    obj.shape_key_add(name="Basis")
    key = obj.shape_key_add(name="Squash")
    for point in key.data:
        point.co.z *= 0.5
    key.value = 0.3
    obj.shape_key_add(name="Stretch").data[0].co.x += 1.0


def vertex_colours() -> None:
    obj = cube_mesh("Painted")
    colours = obj.data.color_attributes.new("Col", "BYTE_COLOR", "CORNER")
    for i, item in enumerate(colours.data):
        item.color = ((i % 4) / 4, (i % 3) / 3, (i % 5) / 5, 1.0)
    mat = pbr_material("Vertex")
    attr = mat.node_tree.nodes.new("ShaderNodeVertexColor")
    attr.layer_name = "Col"
    mat.node_tree.links.new(
        attr.outputs["Color"], mat.node_tree.nodes["Principled BSDF"].inputs["Base Color"]
    )
    obj.data.materials.append(mat)


def hierarchy() -> None:
    top = link(bpy.data.objects.new("Top", None))
    top.location, top.scale = (1, 2, 3), (2, 2, 2)
    top["note"] = "the top of the tree"
    top["weight"] = 4.5
    parent = top
    for i in range(3):
        child = cube_mesh(f"Child{i}", size=0.5)
        child.parent = parent
        child.location = (i + 1.0, 0.0, 0.5 * i)
        child.rotation_euler = (0.0, 0.0, math.radians(30 * i))
        child["level"] = i
        parent = child
    cube_mesh("Sibling", size=0.3).parent = top


def light_and_camera() -> None:
    lamp = link(bpy.data.objects.new("Lamp", bpy.data.lights.new("Lamp", "SPOT")))
    lamp.data.energy, lamp.data.color = 250.0, (1.0, 0.8, 0.6)
    lamp.data.spot_size = 0.8
    lamp.location = (2, -2, 3)
    sun = link(bpy.data.objects.new("Sun", bpy.data.lights.new("Sun", "SUN")))
    sun.data.energy = 3.0
    cam = link(bpy.data.objects.new("Cam", bpy.data.cameras.new("Cam")))
    cam.data.lens = 35.0
    cam.location, cam.rotation_euler = (0, -5, 2), (1.2, 0, 0)
    cube_mesh("Subject")


CASES: dict[str, tuple[Callable[[], None], dict[str, Any]]] = {
    "textured": (textured, {}),
    "draco": (draco, {"export_draco_mesh_compression_enable": True}),
    "skinned": (skinned, {"export_animations": True, "export_skins": True}),
    "morph": (morph, {"export_morph": True}),
    "vertex_colours": (vertex_colours, {}),
    "hierarchy": (hierarchy, {"export_extras": True}),
    "light_camera": (light_and_camera, {"export_lights": True, "export_cameras": True}),
}


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name, (build, options) in CASES.items():
        fresh()
        build()
        bpy.ops.export_scene.gltf(filepath=str(out / f"{name}.glb"), export_format="GLB", **options)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
    # Blender 4.2 as a module can crash while shutting down after these operators; all is written.
    sys.stdout.flush()
    os._exit(0)
