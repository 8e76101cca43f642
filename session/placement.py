"""Where a result's objects go once they exist: one way for a fresh import and for a library copy reused.

A result comes from a .blend (the helper Blender's, or the Kiln asset library's) or from the glTF
importer; from there both take the same steps (:func:`place`): into the ``Kiln`` collection (a
batch's group inside it), at the 3D cursor or the origin, into its batch grid's next slot, or into
a placeholder's place, fitted, as its newest variant; the import options applied (height at the
cursor, apply scale, origin at the base, smooth by angle), selected and active, and one undo step
for it all.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import bpy
from mathutils import Matrix, Vector

from .. import preferences
from ..api.features.blockout import Box, Fit, Vec3, empty_box, fit_into, scaled_box
from .batch_grid import Grid
from .variants import PLACEHOLDER_KEY, VARIANT_KEY, show_variant, variants_of


@dataclass(frozen=True)
class ImportOptions:
    """What every import does after placing the mesh; all off keeps the mesh as the service made it."""

    origin_at_base: bool = False
    apply_scale: bool = False
    #: Smooth shading with edges sharper than this many degrees kept sharp; None: as imported.
    smooth_angle: float | None = None
    #: Uniform scale to this height in metres for imports at the cursor; 0: as imported.
    target_height: float = 0.0


@dataclass(frozen=True)
class Placement:
    """How a result takes its place: the import options, and for a blockout result its placeholder and fit."""

    options: ImportOptions = field(default_factory=ImportOptions)
    fit: Fit = "CONTAIN"
    #: A sub-collection of ``Kiln`` (a batch's line), or "".
    group: str = ""
    #: The placeholder object the result replaces, or "".
    placeholder: str = ""
    #: The batch grid the result takes the next slot of (None: not part of a batch).
    grid: Grid | None = None
    #: The object a re-texture is of: the result lands beside it, never in its place, or "".
    beside: str = ""


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


def append_blend(path: Path, *, actions: bool = False) -> list[bpy.types.Object]:
    """Append every object of a .blend (with its meshes, materials, images…; with ``actions``, the
    actions no object uses too). Raises OSError when the file cannot be read."""
    libraries = set(bpy.data.libraries)
    # The stubs say load() returns None; it returns a context manager of (source, target) data.
    load: Any = bpy.data.libraries.load
    try:
        with load(str(path), link=False) as (source, target):
            target.objects = list(source.objects)
            if actions:
                target.actions = list(source.actions)
    finally:
        # Appended data is local; the library entry would only point at the file it came from.
        for library in set(bpy.data.libraries) - libraries:
            bpy.data.libraries.remove(library)
    return [obj for obj in target.objects if obj is not None]


def name_copy_after_request(objects: list[bpy.types.Object], name: str) -> None:
    """A library copy was named when it was first imported: its one root (the object, or the parent
    its import made) takes the name of the request that reuses it. A copy of several roots (game
    outputs, named for their engine) keeps its names."""
    roots = [obj for obj in objects if obj.parent is None]
    if len(roots) == 1:
        roots[0].name = name


def place(context: bpy.types.Context, objects: list[bpy.types.Object], how: Placement, undo: str) -> None:
    """Collection, location (the cursor, a grid slot or the placeholder's place), import options,
    selection, and one undo step called ``undo`` (the importer and ``libraries.load``, called from
    Python, push none; without a window there is no undo history to push to)."""
    prefs = preferences.get(context)
    collection = target_collection(context, prefs.collection_name, how.group)
    location = context.scene.cursor.location.copy() if prefs.placement == "CURSOR" else Vector()
    placeholder = bpy.data.objects.get(how.placeholder) if how.placeholder else None
    for obj in objects:
        for owner in list(obj.users_collection):
            owner.objects.unlink(obj)
        collection.objects.link(obj)
        if obj.parent is None and placeholder is None:
            obj.location += location
    original = bpy.data.objects.get(how.beside) if how.beside else None
    if placeholder is not None:
        _replace_placeholder(context, objects, placeholder, how.fit)
    elif original is not None:
        _beside(objects, original, location)
    elif how.options.target_height > 0:
        _scale_to_height(context, objects, how.options.target_height, location)
    if original is None:
        _finish(context, objects, how.options)
    if how.grid is not None and placeholder is None:
        _into_grid(context, objects, how.grid)

    for obj in context.view_layer.objects:
        obj.select_set(obj in objects)
    for obj in objects:  # a parent made above may not be in the view layer's list until it syncs
        obj.select_set(True)
    roots = [obj for obj in objects if obj.parent is None]
    context.view_layer.objects.active = roots[0] if roots else objects[0]
    if not bpy.app.background:
        bpy.ops.ed.undo_push(message=undo)


def world_bounds(objects: list[bpy.types.Object]) -> tuple[Vector, Vector]:
    """Axis-aligned world box around the objects' geometry (their origins when they have none)."""
    points = [
        obj.matrix_world @ Vector(corner) for obj in objects if obj.type == "MESH" for corner in obj.bound_box
    ] or [obj.matrix_world.translation for obj in objects]
    low = Vector(tuple(min(p[i] for p in points) for i in range(3)))
    high = Vector(tuple(max(p[i] for p in points) for i in range(3)))
    return low, high


def _into_grid(context: bpy.types.Context, objects: list[bpy.types.Object], grid: Grid) -> None:
    """Move a result into its batch grid's next slot (its box's min-X / max-Y corner there)."""
    context.view_layer.update()
    low, high = world_bounds(objects)
    corner = grid.slot(high.x - low.x, high.y - low.y)
    offset = Vector((corner.x - low.x, corner.y - high.y, 0.0))
    for obj in objects:
        if obj.parent is None:
            obj.location += offset
    context.view_layer.update()


def _beside(objects: list[bpy.types.Object], original: bpy.types.Object, added: Vector) -> None:
    """A re-texture's result next to its original: moved along X by the original's width (its own
    place otherwise kept: the service returns the mesh where it was sent). The original is not touched."""
    low, high = world_bounds([original])
    width = max(high.x - low.x, 0.1)
    roots = [obj for obj in objects if obj.parent is None]
    for obj in roots:
        obj.location += original.matrix_world.translation - added + Vector((width, 0.0, 0.0))


def _vec3(vector: Vector) -> Vec3:
    return (vector.x, vector.y, vector.z)


def placeholder_box(obj: bpy.types.Object) -> Box:
    """The placeholder's box in its own frame (location and rotation, scale included)."""
    scale = _vec3(obj.matrix_world.to_scale())
    if obj.type == "EMPTY":
        return empty_box(obj.empty_display_size, scale)
    local = Box.around([_vec3(Vector(corner)) for corner in obj.bound_box])
    return scaled_box(local.low, local.high, scale)


def _replace_placeholder(
    context: bpy.types.Context, objects: list[bpy.types.Object], placeholder: bpy.types.Object, fit: Fit
) -> None:
    """The result takes the placeholder's place, fitted, as its newest variant; the placeholder hides.

    Base on its base, in its location and rotation without its scale; the fitting arithmetic is
    ``api.features.blockout``'s.
    """
    context.view_layer.update()
    low, high = world_bounds(objects)
    scale, offset = fit_into(placeholder_box(placeholder), Box(_vec3(low), _vec3(high)), fit)
    location, rotation, _scale = placeholder.matrix_world.decompose()
    frame = Matrix.Translation(location) @ rotation.to_matrix().to_4x4()
    into = frame @ Matrix.Translation(Vector(offset)) @ Matrix.Scale(scale, 4)
    for obj in objects:
        if obj.parent is None:
            obj.matrix_world = into @ obj.matrix_world
    context.view_layer.update()
    number = max(variants_of(placeholder.name), default=0) + 1
    for obj in objects:
        obj[PLACEHOLDER_KEY] = placeholder.name
        obj[VARIANT_KEY] = number
        obj.name = f"{placeholder.name} v{number}"
    show_variant(context, placeholder.name, number)
    if placeholder.name in context.view_layer.objects:
        placeholder.hide_set(True)
    placeholder.hide_render = True


def _scale_to_height(
    context: bpy.types.Context, objects: list[bpy.types.Object], height: float, about: Vector
) -> None:
    """Uniform scale about the placement point so the mesh is ``height`` metres tall."""
    context.view_layer.update()
    low, high = world_bounds(objects)
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
