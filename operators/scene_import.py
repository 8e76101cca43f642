"""Put a checked GLB into the scene: appended from the helper Blender's .blend, or imported here.

By default every mesh arrives already imported by a helper Blender (``api.isolation``) into a
.blend, and the UI thread only appends it: a hostile or broken file never reaches this Blender's
importer, and appending costs a few hundredths of importing. A mesh imports in place when the
artist chose "Import in this Blender", or when no helper can run (said once). Both ways end in
the same placement, provenance and selection (the caller pushes the one undo step).
"""

from __future__ import annotations

import contextlib
import logging
import math
from pathlib import Path
from typing import Any

import bpy
from bpy.props import BoolProperty, FloatProperty
from mathutils import Matrix, Vector

from .. import preferences
from ..api.blockout import Fit, ImportOptions
from ..api.isolation import in_place_notice
from ..api.jobs import Job
from ..api.quality.options import GameOptions
from ..ui_text import object_name
from . import game_ready, layout, messenger

log = logging.getLogger(__name__)


class ImportFailed(Exception):
    """The importer rejected the file; carries a sentence for the artist."""


def target_collection(context: bpy.types.Context, name: str, group: str = "") -> bpy.types.Collection:
    """The ``Kiln`` collection (or a named sub-collection of it), created and linked when missing."""
    scene = context.scene
    root = bpy.data.collections.get(name)
    if root is None:
        root = bpy.data.collections.new(name)
    if root.name not in scene.collection.children:
        scene.collection.children.link(root)
    if not group:
        return root
    child = root.children.get(group)
    if child is None:
        child = bpy.data.collections.new(group)
        root.children.link(child)
    return child


#: Options an operator chose for its jobs (by job id), over the preferences; kept for this session.
_chosen: dict[str, tuple[ImportOptions, Fit]] = {}


def choose_options(job_id: str, options: ImportOptions, fit: Fit = "CONTAIN") -> None:
    """The import options (and blockout fit) a generate operator was called with, for one job."""
    _chosen[job_id] = (options, fit)


def preferred_options(context: bpy.types.Context | None = None) -> ImportOptions:
    """The import options set in the preferences."""
    prefs = preferences.get(context)
    return ImportOptions(
        origin_at_base=prefs.origin_at_base,
        apply_scale=prefs.apply_scale,
        smooth_angle=prefs.smooth_angle if prefs.smooth_by_angle else None,
        target_height=prefs.target_height,
    )


class ImportOptionProperties:
    """The import options as operator arguments (a mixin); one not given takes its preference."""

    origin_at_base: BoolProperty(name="Origin at Base", default=False)  # type: ignore[valid-type]
    apply_scale: BoolProperty(name="Apply Scale", default=False)  # type: ignore[valid-type]
    smooth_by_angle: BoolProperty(name="Smooth by Angle", default=False)  # type: ignore[valid-type]
    smooth_angle: FloatProperty(name="Angle", default=30.0, min=0.0, max=180.0)  # type: ignore[valid-type]
    target_height: FloatProperty(name="Height at Cursor", default=0.0, min=0.0)  # type: ignore[valid-type]

    def import_options(self, context: bpy.types.Context) -> ImportOptions:
        preferred = preferred_options(context)
        props = self.properties  # type: ignore[attr-defined]

        def given(name: str) -> bool:
            return bool(props.is_property_set(name))

        smooth = preferred.smooth_angle
        if given("smooth_by_angle") or given("smooth_angle"):
            on = self.smooth_by_angle if given("smooth_by_angle") else preferred.smooth_angle is not None
            smooth = self.smooth_angle if on else None
        return ImportOptions(
            origin_at_base=self.origin_at_base if given("origin_at_base") else preferred.origin_at_base,
            apply_scale=self.apply_scale if given("apply_scale") else preferred.apply_scale,
            smooth_angle=smooth,
            target_height=self.target_height if given("target_height") else preferred.target_height,
        )


def import_job(context: bpy.types.Context, job: Job, *, location: Vector | None = None) -> list[str]:
    """Import the job's mesh; returns the names of the objects it created."""
    prefs = preferences.get(context)
    options, fit = _chosen.pop(job.id) if job.id in _chosen else (preferred_options(context), "CONTAIN")
    new_objects = _append_prepared(job, fall_back=prefs.import_in_place)
    if new_objects is None:
        new_objects = game_ready.finish_in_place(_import_glb(job), job.request.game, job.request.label)
        _say_in_place_once()
    if not new_objects:
        raise ImportFailed(f"The mesh of task {job.task_id} contained nothing to import.")
    # A blockout result is named after its placeholder instead, and game outputs (LODs, a hull,
    # an engine's names) by the engine's convention, which the helper already gave them.
    if not job.request.placeholder and not GameOptions.from_text(job.request.game).builds_outputs:
        new_objects = _name_after_request(new_objects, object_name(job))

    collection = target_collection(context, prefs.collection_name, job.group)
    if location is None:
        location = context.scene.cursor.location.copy() if prefs.placement == "CURSOR" else Vector()
    placeholder = bpy.data.objects.get(job.request.placeholder) if job.request.placeholder else None
    for obj in new_objects:
        for owner in list(obj.users_collection):
            owner.objects.unlink(obj)
        collection.objects.link(obj)
        if obj.parent is None and placeholder is None:
            obj.location += location
        _stamp(obj, job)
    if placeholder is not None:
        replace_placeholder(context, new_objects, placeholder, fit)
    elif options.target_height > 0:
        _scale_to_height(context, new_objects, options.target_height, location)
    _finish(context, new_objects, options)

    for obj in context.view_layer.objects:
        obj.select_set(obj in new_objects)
    for obj in new_objects:  # a parent made above may not be in the view layer's list until it syncs
        obj.select_set(True)
    roots = [obj for obj in new_objects if obj.parent is None]
    context.view_layer.objects.active = roots[0] if roots else new_objects[0]
    return [obj.name for obj in new_objects]


def _name_after_request(objects: list[bpy.types.Object], name: str) -> list[bpy.types.Object]:
    """The Outliner shows what was asked for: one object takes the name; several get a parent of
    that name (an empty at the origin, so nothing moves), keeping the GLB's own names below it."""
    if len(objects) == 1:
        objects[0].name = name
        return objects
    parent = bpy.data.objects.new(name, None)
    parent.empty_display_type = "PLAIN_AXES"
    for obj in objects:
        if obj.parent is None:
            obj.parent = parent
    return [parent, *objects]


def replace_placeholder(
    context: bpy.types.Context, objects: list[bpy.types.Object], placeholder: bpy.types.Object, fit: Fit
) -> None:
    """The result takes the placeholder's place as its newest variant; the placeholder is hidden."""
    layout.fit_to_placeholder(context, objects, placeholder, fit)
    number = max(layout.variants_of(placeholder.name), default=0) + 1
    for obj in objects:
        obj[layout.PLACEHOLDER_KEY] = placeholder.name
        obj[layout.VARIANT_KEY] = number
        obj.name = f"{placeholder.name} v{number}"
    layout.show_variant(context, placeholder.name, number)
    if placeholder.name in context.view_layer.objects:
        placeholder.hide_set(True)
    placeholder.hide_render = True


def _scale_to_height(
    context: bpy.types.Context, objects: list[bpy.types.Object], height: float, about: Vector
) -> None:
    """Uniform scale about the placement point so the mesh is ``height`` metres tall."""
    context.view_layer.update()
    low, high = layout.world_bounds(objects)
    if high.z - low.z <= 1e-9:
        return
    factor = height / (high.z - low.z)
    around = Matrix.Translation(about) @ Matrix.Scale(factor, 4) @ Matrix.Translation(-about)
    for obj in objects:
        if obj.parent is None:
            obj.matrix_world = around @ obj.matrix_world


def _finish(context: bpy.types.Context, objects: list[bpy.types.Object], options: ImportOptions) -> None:
    """Apply scale, origin at the base centre and smooth shading, on mesh data only (no operators)."""
    if options == ImportOptions(target_height=options.target_height):
        return
    context.view_layer.update()
    for obj in objects:
        mesh = obj.data if obj.type == "MESH" else None
        if not isinstance(mesh, bpy.types.Mesh) or obj.children or mesh.users > 1:
            continue
        if options.apply_scale:
            _apply_scale(obj, mesh)
        if options.origin_at_base:
            _origin_to_base(obj, mesh)
        if options.smooth_angle is not None:
            mesh.shade_smooth()
            mesh.set_sharp_from_angle(angle=math.radians(options.smooth_angle))
    context.view_layer.update()


def _apply_scale(obj: bpy.types.Object, mesh: bpy.types.Mesh) -> None:
    location, rotation, scale = obj.matrix_world.decompose()
    mesh.transform(Matrix.Diagonal(scale).to_4x4())
    obj.matrix_world = Matrix.Translation(location) @ rotation.to_matrix().to_4x4()


def _origin_to_base(obj: bpy.types.Object, mesh: bpy.types.Mesh) -> None:
    import numpy  # here, not at the top: Kiln must load on a Blender without numpy (see dependencies)

    if not mesh.vertices:
        return
    # From the vertices: the object's bound_box is stale until the depsgraph runs again.
    coords = numpy.empty(len(mesh.vertices) * 3, dtype=numpy.float64)
    mesh.vertices.foreach_get("co", coords)
    points = coords.reshape(-1, 3)
    low, high = Vector(points.min(axis=0).tolist()), Vector(points.max(axis=0).tolist())
    base = Vector(((low.x + high.x) / 2, (low.y + high.y) / 2, low.z))
    mesh.transform(Matrix.Translation(-base))
    obj.matrix_world = obj.matrix_world @ Matrix.Translation(base)


def _import_glb(job: Job) -> list[bpy.types.Object]:
    """Blender's glTF importer, here on the UI thread: the artist's choice, or no helper could run."""
    path = Path(job.mesh_path)
    if not path.is_file():
        raise ImportFailed(
            f"The downloaded mesh for task {job.task_id} is missing from the cache. Press Retry."
        )
    before = set(bpy.data.objects)
    try:
        bpy.ops.import_scene.gltf(filepath=str(path))
    except RuntimeError as exc:
        log.warning("glTF import of %s failed: %s", path, exc)
        raise ImportFailed(
            f"Blender could not read the mesh of task {job.task_id} (the file is damaged). Press Retry."
        ) from exc
    return [obj for obj in bpy.data.objects if obj not in before]


def _append_prepared(job: Job, *, fall_back: bool) -> list[bpy.types.Object] | None:
    """Append what the helper imported (objects with their meshes, materials, packed images,
    armatures, shape keys, lights, cameras and actions), then delete its .blend.

    None when the job has no .blend: the caller imports the GLB in place. An unreadable .blend
    is a sentence for the job, unless the artist allows in-place imports (``fall_back``).
    """
    if not job.blend_path:
        return None
    path = Path(job.blend_path)
    libraries = set(bpy.data.libraries)
    # The stubs say load() returns None; it returns a context manager of (source, target) data.
    load: Any = bpy.data.libraries.load
    try:
        with load(str(path), link=False) as (source, target):
            target.objects = list(source.objects)
            # Actions no object uses (stashed animations keep a fake user) come along too.
            target.actions = list(source.actions)
        return [obj for obj in target.objects if obj is not None]
    except OSError as exc:
        if fall_back:
            log.warning("Could not append %s (%s); importing the GLB in-process instead", path, exc)
            return None
        log.warning("Could not append %s: %s", path, exc)
        raise ImportFailed(
            f"Kiln could not open the file its helper Blender made for task {job.task_id} "
            "(the disk may be full or the cache was cleared). Press Retry."
        ) from exc
    finally:
        # Appended data is local; the library entry would only point at a deleted file.
        for library in set(bpy.data.libraries) - libraries:
            bpy.data.libraries.remove(library)
        # One try, no wait (this is the UI thread): a file locked on Windows by an antivirus or a
        # backup tool stays for the cache's clean-up, and the import is not failed for it.
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True)


def _say_in_place_once() -> None:
    """No helper could run, so the mesh was imported here: tell the artist, once per session."""
    notice = in_place_notice.take()
    if notice:  # logged when a worker found no helper
        messenger.announce("WARNING", f"{messenger.PREFIX}{notice}", logged=True)


def _stamp(obj: bpy.types.Object, job: Job) -> None:
    """Provenance on every object, so a scene always says where a mesh came from."""
    obj["kiln_task_id"] = job.task_id
    if job.request.kind == "text":
        obj["kiln_prompt"] = job.request.prompt
    else:
        obj["kiln_image"] = job.request.blender_image or job.request.image_path or job.request.image_url
    obj["kiln_resolution"] = job.resolution or job.request.resolution or 0
