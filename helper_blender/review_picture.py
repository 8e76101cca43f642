"""A result's picture for a batch's review sheet, rendered in the helper Blender.

Run by the helper's request loop (``helper_blender.request_loop``) after finishing a result whose
options ask for it (``GameOptions.review``); Workbench renders without a GPU window.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import bpy
import numpy as np
from mathutils import Vector

log = logging.getLogger(__name__)

PICTURE_SIZE = 256
#: From the result's centre towards the review camera: front right, above (Blender's -Y is front).
VIEW_DIRECTION = Vector((1.0, -1.2, 0.8)).normalized()


def render_picture(objects: Sequence[bpy.types.Object], path: str, size: int = PICTURE_SIZE) -> bool:
    """Render ``objects`` for a review sheet: Workbench, one fixed three-quarter view, the result's
    bounding box filling the frame, so every result of a batch is framed the same way. The camera
    is removed again (it must not reach the .blend). False when this Blender cannot render."""
    meshes = [obj for obj in objects if obj.type == "MESH"]
    if not meshes:
        return False
    bpy.context.view_layer.update()  # bounding boxes of meshes the fix-ups changed
    corners = np.array([(obj.matrix_world @ Vector(c)).to_tuple() for obj in meshes for c in obj.bound_box])
    low, high = corners.min(axis=0), corners.max(axis=0)
    centre, extent = (low + high) / 2, float(np.linalg.norm(high - low)) or 1.0
    scene = bpy.context.scene
    data = bpy.data.cameras.new("Kiln Review")
    data.type, data.ortho_scale = "ORTHO", extent * 1.05
    camera = bpy.data.objects.new("Kiln Review", data)
    scene.collection.objects.link(camera)
    camera.location = Vector(centre.tolist()) + VIEW_DIRECTION * extent * 2
    camera.rotation_euler = (-VIEW_DIRECTION).to_track_quat("-Z", "Y").to_euler()
    data.clip_end = extent * 5
    render, saved_camera = scene.render, scene.camera
    scene.camera = camera
    render.engine = "BLENDER_WORKBENCH"
    scene.display.shading.color_type = "TEXTURE"  # the result's own colours
    render.resolution_x = render.resolution_y = size
    render.resolution_percentage = 100
    render.filepath = path
    try:
        bpy.ops.render.render(write_still=True)
        return Path(path).is_file()
    except RuntimeError as exc:
        log.warning("Could not render a review picture: %s", exc)
        return False
    finally:
        scene.camera = saved_camera
        bpy.data.objects.remove(camera)
        bpy.data.cameras.remove(data)
