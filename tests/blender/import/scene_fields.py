"""Everything an import puts into a file, as plain values, so two imports compare field by field.

Floats are rounded (an appended value is bit-identical, but rounding keeps failures readable);
pixel and vertex data are summarised by a hash of their rounded values. Names are compared as
they are: both imports run into an empty file, so Blender names every data-block the same way.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

DIGITS = 5


def describe(bpy: Any) -> dict[str, Any]:
    """The whole file: objects and every kind of data an import creates."""
    bpy.context.view_layer.update()  # world matrices of appended objects are evaluated lazily
    data = bpy.data
    return {
        "objects": {obj.name: _object(obj) for obj in data.objects},
        "meshes": {mesh.name: _mesh(mesh) for mesh in data.meshes},
        "materials": {mat.name: _material(mat) for mat in data.materials},
        "images": {img.name: _image(img) for img in data.images if img.type == "IMAGE"},
        "actions": {action.name: _action(action) for action in data.actions},
        "armatures": {arm.name: _armature(arm) for arm in data.armatures},
        "lights": {light.name: _light(light) for light in data.lights},
        "cameras": {cam.name: _camera(cam) for cam in data.cameras},
        "shape_keys": sorted(len(key.key_blocks) for key in data.shape_keys),
    }


def _round(values: Any) -> Any:
    return tuple(round(float(v), DIGITS) + 0.0 for v in values)


def _digest(array: np.ndarray) -> str:
    return hashlib.sha256(np.round(array, 4).astype(np.float32).tobytes()).hexdigest()[:16]


def _read(collection: Any, attribute: str, width: int) -> np.ndarray:
    values = np.zeros(len(collection) * width, dtype=np.float32)
    if len(collection):
        collection.foreach_get(attribute, values)
    return values


def _props(owner: Any) -> dict[str, Any]:
    """Custom properties (glTF extras), as comparable values."""
    out = {}
    names = owner.keys()
    for key in names:
        value = owner[key]
        out[key] = (
            value.to_dict()
            if hasattr(value, "to_dict")
            else value
            if isinstance(value, (int, float, str))
            else repr(list(value))
        )
    return out


def _object(obj: Any) -> dict[str, Any]:
    animation = obj.animation_data
    return {
        "type": obj.type,
        "data": obj.data.name if obj.data else None,
        "parent": obj.parent.name if obj.parent else None,
        "parent_type": obj.parent_type,
        "parent_bone": obj.parent_bone,
        "location": _round(obj.location),
        "rotation": (obj.rotation_mode, _round(obj.rotation_quaternion), _round(obj.rotation_euler)),
        "scale": _round(obj.scale),
        "matrix_local": _round(v for row in obj.matrix_local for v in row),
        "matrix_world": _round(v for row in obj.matrix_world for v in row),
        "modifiers": [(m.type, getattr(getattr(m, "object", None), "name", None)) for m in obj.modifiers],
        "vertex_groups": [group.name for group in obj.vertex_groups],
        "materials": [slot.material.name if slot.material else None for slot in obj.material_slots],
        "action": animation.action.name if animation and animation.action else None,
        "nla": [(t.name, [s.action.name for s in t.strips if s.action]) for t in animation.nla_tracks]
        if animation
        else [],
        "pose": {b.name: _round(b.matrix_basis.to_translation()) for b in obj.pose.bones} if obj.pose else {},
        "props": _props(obj),
    }


def _mesh(mesh: Any) -> dict[str, Any]:
    key = mesh.shape_keys
    return {
        "vertices": len(mesh.vertices),
        "polygons": len(mesh.polygons),
        "loops": len(mesh.loops),
        "positions": _digest(_read(mesh.vertices, "co", 3)),
        "uv": {uv.name: _digest(_read(uv.data, "uv", 2)) for uv in mesh.uv_layers},
        "colours": {
            a.name: (a.domain, a.data_type, _digest(_read(a.data, "color", 4))) for a in mesh.color_attributes
        },
        "attributes": sorted(a.name for a in mesh.attributes),
        "materials": [mat.name if mat else None for mat in mesh.materials],
        "shape_keys": [
            (k.name, round(k.value, DIGITS), k.relative_key.name, _digest(_read(k.data, "co", 3)))
            for k in key.key_blocks
        ]
        if key
        else [],
        "props": _props(mesh),
    }


def _material(mat: Any) -> dict[str, Any]:
    nodes = mat.node_tree.nodes if mat.node_tree else []
    inputs = {}
    for node in nodes:
        for socket in node.inputs:
            if not socket.is_linked and hasattr(socket, "default_value"):
                value = socket.default_value
                inputs[f"{node.name}.{socket.identifier}"] = (
                    _round(value) if hasattr(value, "__len__") else round(float(value), DIGITS)
                )
    return {
        "nodes": sorted((node.bl_idname, node.name) for node in nodes),
        "links": sorted(
            (link.from_node.name, link.from_socket.identifier, link.to_node.name, link.to_socket.identifier)
            for link in mat.node_tree.links
        )
        if mat.node_tree
        else [],
        "images": sorted(node.image.name for node in nodes if getattr(node, "image", None)),
        "inputs": inputs,
        "blend_method": getattr(mat, "blend_method", None),
    }


def _image(img: Any) -> dict[str, Any]:
    pixels = np.zeros(img.size[0] * img.size[1] * img.channels, dtype=np.float32)
    if len(pixels):
        img.pixels.foreach_get(pixels)
    return {
        "size": tuple(img.size),
        "packed": img.packed_file is not None,
        "pixels": _digest(pixels),
        "has_pixels": bool(len(pixels)) and float(pixels.max()) > 0,
        "colorspace": img.colorspace_settings.name,
    }


def _fcurves(action: Any) -> list[Any]:
    """F-curves of a legacy action (4.2) or of every slot of a layered one (4.4 and newer)."""
    if getattr(action, "layers", None):
        return [
            fc
            for layer in action.layers
            for strip in layer.strips
            for bag in strip.channelbags
            for fc in bag.fcurves
        ]
    return list(action.fcurves)


def _action(action: Any) -> dict[str, Any]:
    return {
        "frame_range": _round(action.frame_range),
        "fcurves": sorted(
            (
                fc.data_path,
                fc.array_index,
                len(fc.keyframe_points),
                _digest(_read(fc.keyframe_points, "co", 2)),
            )
            for fc in _fcurves(action)
        ),
        "fake_user": action.use_fake_user,
    }


def _armature(arm: Any) -> dict[str, Any]:
    return {
        bone.name: (
            bone.parent.name if bone.parent else None,
            _round(bone.head_local),
            _round(bone.tail_local),
        )
        for bone in arm.bones
    }


def _light(light: Any) -> dict[str, Any]:
    return {
        "type": light.type,
        "energy": round(light.energy, DIGITS),
        "color": _round(light.color),
        "spot_size": round(getattr(light, "spot_size", 0.0), DIGITS),
        "props": _props(light),
    }


def _camera(cam: Any) -> dict[str, Any]:
    return {
        "type": cam.type,
        "lens": round(cam.lens, DIGITS),
        "clip": _round((cam.clip_start, cam.clip_end)),
        "sensor": round(cam.sensor_width, DIGITS),
    }


def differences(expected: Any, actual: Any, path: str = "") -> list[str]:
    """Every leaf where two descriptions differ, as "path: expected != actual"."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        out = []
        for key in sorted(set(expected) | set(actual), key=str):
            out += differences(expected.get(key, "<missing>"), actual.get(key, "<missing>"), f"{path}/{key}")
        return out
    return [] if expected == actual else [f"{path}: {expected!r} != {actual!r}"]
