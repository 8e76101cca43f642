"""Game-ready work on a freshly imported result: report, fix-ups, LODs, collision, engine names, export.

Run by the helper's request loop (``helper_blender.request_loop``) between the glTF import and the
save, so none of it costs the artist's UI a frame; the artist's Blender runs it only when it imports
in place (its own choice, or no helper can run), as it then runs the import itself. The arithmetic is
``api.features.quality`` (plain numpy); this module reads meshes into arrays and does Blender's part with
bmesh and the Decimate modifier.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import bmesh
import bpy
import numpy as np
from mathutils import Vector

from ..api.features import provenance
from ..api.features.quality import QUALITY_KEY, hull, naming
from ..api.features.quality import options as game_options
from ..api.features.quality import report as quality
from ..api.words import Message, message
from ..api.words import catalogue as words

log = logging.getLogger(__name__)

#: Blender's own default distance for Merge by Distance (metres).
MERGE_DISTANCE = 1e-4
#: Before a budget or an LOD, split copies of one vertex are joined so the collapse cannot open the
#: surface along UV seams and hard edges: only vertices within a micrometre (Blender 4.2's
#: remove_doubles joins nothing at a distance of 1e-9, even exact copies).
WELD_DISTANCE = 1e-6
#: The engines whose export is an FBX file (the others get a GLB).
FBX_ENGINES = ("UNREAL", "UNITY")


def finish(
    objects: Sequence[bpy.types.Object],
    options: game_options.GameOptions,
    label: str,
    provenance: str = "",
) -> tuple[list[bpy.types.Object], dict[str, Any]]:
    """Everything ``options`` asks of a result, then its report on every object.

    Returns the result's objects now (joined ones gone, LODs and hull added) and
    ``{"quality": report JSON, "exported": [paths]}`` for the helper's answer. ``provenance``
    (``api.features.provenance.Provenance`` as JSON; "" when not known here) goes into the export,
    with what was done; every object keeps what was done to it as ``kiln_history``.
    """
    meshes = _meshes(objects)
    others = [obj for obj in objects if obj not in meshes]  # empties, cameras: stamped, never joined
    meshes, fixes = _fix_up(meshes, options)
    report = measure(meshes)
    report.fixes = [fix.to_json() for fix in fixes]
    outputs: list[bpy.types.Object] = list(meshes)
    exported: list[str] = []
    own: dict[str, list[Message]] = {}  # what was done to one object only (an LOD, the hull)
    if options.builds_outputs and meshes:
        lod0 = meshes[0]
        lods = [_lod(lod0, ratio) for ratio in options.lods]
        collider = convex_hull(lod0) if options.collision == "HULL" else None
        names = naming.engine_names(options.engine, naming.asset_name(label), len(lods))
        for obj, name in zip([lod0, *lods], names.lods, strict=True):
            obj.name = obj.data.name = name
        for number, (obj, ratio) in enumerate(zip(lods, options.lods, strict=True), start=1):
            own[obj.name] = [message(words.DONE_LOD, n=number, percent=round(ratio * 100))]
        if collider is not None:
            collider.name = collider.data.name = names.collision
            own[collider.name] = [message(words.DONE_COLLISION)]
        outputs = [lod0, *lods, *([collider] if collider is not None else [])]
    # Stamped before the export: a folder that cannot be written still leaves the report on the result.
    stamp([*others, *outputs], report)
    for obj in [*others, *outputs]:
        record_history(obj, [*fixes, *own.get(obj.name, [])])
    if options.builds_outputs and meshes and options.export_dir:
        path = Path(options.export_dir) / names.file
        done = [str(fix) for fix in fixes] + [str(m) for obj in outputs for m in own.get(obj.name, [])]
        done.append(str(message(words.DONE_EXPORTED, file=path.name)))
        record = provenance_of(provenance, done)
        exported.append(export(outputs, options.engine, path, record))
    return [*others, *outputs], {"quality": report.to_json(), "exported": exported}


def _fix_up(
    meshes: list[bpy.types.Object], options: game_options.GameOptions
) -> tuple[list[bpy.types.Object], list[Message]]:
    """The fix-ups ``options`` asks for, in order; the meshes after them (joined when outputs are
    built) and what each did, as stored messages."""
    fixes: list[Message] = []
    if options.fix_merge:
        merged = sum(_merge(obj, MERGE_DISTANCE) for obj in meshes)
        fixes.append(message(words.FIXED_MERGED, n=merged))
    if options.fix_loose > 0.0:
        removed = _remove_loose(meshes, options.fix_loose)
        fixes.append(message(words.FIXED_LOOSE, n=removed))
    if options.fix_normals:
        turned = _face_out(meshes)
        fixes.append(message(words.FIXED_FACES, n=turned))
    if options.builds_outputs and len(meshes) > 1:
        meshes = [_join(meshes)]
    if options.triangles > 0:
        before = triangle_count(meshes)
        if before > options.triangles:
            for obj in meshes:
                decimate(obj, options.triangles / before)
            fixes.append(message(words.FIXED_TRIANGLES, before=before, after=triangle_count(meshes)))
    return meshes, fixes


def finish_in_place(
    objects: list[bpy.types.Object], options: game_options.GameOptions, label: str, provenance: str = ""
) -> list[bpy.types.Object]:
    """:func:`finish` in the artist's Blender, for a mesh it imported itself (no helper could, or
    the artist chose so); a failure leaves the mesh as imported and is logged."""
    try:
        finished, said = finish(objects, options, label, provenance)
    except Exception:
        log.exception("Kiln could not finish the imported mesh; it stays as the service made it")
        return objects
    for path in said["exported"]:
        log.info("Exported %s", path)
    return finished


def record_history(obj: bpy.types.Object, done: Sequence[Message]) -> None:
    """What was done to ``obj`` (stored messages, JSON) after what was done before, kept for the
    disclosure report; nothing done leaves it as it was."""
    if not done:
        return
    holder: Any = obj  # the stubs type ID.get() as returning None
    before = holder.get(provenance.HISTORY_PROPERTY)
    try:
        kept: list[Any] = json.loads(before) if isinstance(before, str) else []
    except ValueError:
        kept = []
    obj[provenance.HISTORY_PROPERTY] = json.dumps([*kept, *(m.to_json() for m in done)], ensure_ascii=False)


def provenance_of(text: str, done: Sequence[str]) -> provenance.Provenance | None:
    """The record handed in, with what was done for this export; None when none was handed in."""
    if not text:
        return None
    try:
        return provenance.Provenance.from_json(text).with_history(*done)
    except (ValueError, TypeError):
        log.warning("The provenance handed to the export does not read; the file goes without it")
        return None


def stamp(objects: Iterable[bpy.types.Object], report: quality.QualityReport) -> None:
    """The report as the ``kiln_quality`` custom property (JSON text) on every object."""
    text = report.to_json()
    for obj in objects:
        obj[QUALITY_KEY] = text


def measure(meshes: Sequence[bpy.types.Object]) -> quality.QualityReport:
    """The report of these mesh objects, as they are now."""
    arrays = [mesh_arrays(obj) for obj in meshes]
    made, _analyses = quality.build_report([a for a, _p in arrays], inventory(meshes))
    return made


def _mesh(obj: bpy.types.Object) -> bpy.types.Mesh:
    mesh = obj.data
    assert isinstance(mesh, bpy.types.Mesh)
    return mesh


def _meshes(objects: Iterable[bpy.types.Object]) -> list[bpy.types.Object]:
    return [
        obj
        for obj in objects
        if obj.type == "MESH" and isinstance(obj.data, bpy.types.Mesh) and len(obj.data.polygons)
    ]


def triangle_count(meshes: Iterable[bpy.types.Object]) -> int:
    total = 0
    for obj in meshes:
        obj.data.calc_loop_triangles()
        total += len(obj.data.loop_triangles)
    return total


def mesh_arrays(obj: bpy.types.Object) -> tuple[quality.MeshArrays, np.ndarray]:
    """(world-space arrays, polygon of each triangle) of a mesh object, read with foreach_get."""
    mesh = obj.data
    mesh.calc_loop_triangles()
    co = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
    mesh.vertices.foreach_get("co", co)
    matrix = np.array(obj.matrix_world, dtype=np.float64)
    positions = co.reshape(-1, 3).astype(np.float64) @ matrix[:3, :3].T + matrix[:3, 3]
    count = len(mesh.loop_triangles)
    corners = np.empty(count * 3, dtype=np.int32)
    mesh.loop_triangles.foreach_get("vertices", corners)
    polygon = np.empty(count, dtype=np.int32)
    mesh.loop_triangles.foreach_get("polygon_index", polygon)
    uvs = None
    layer = mesh.uv_layers.active
    if layer is not None:
        loops = np.empty(count * 3, dtype=np.int32)
        mesh.loop_triangles.foreach_get("loops", loops)
        loop_uv = np.empty(len(mesh.loops) * 2, dtype=np.float32)
        layer.uv.foreach_get("vector", loop_uv)
        uvs = loop_uv.reshape(-1, 2)[loops].reshape(-1, 3, 2).astype(np.float64)
    triangles = corners.reshape(-1, 3).astype(np.int64)
    return quality.MeshArrays(positions=positions, triangles=triangles, uvs=uvs), polygon


def inventory(meshes: Sequence[bpy.types.Object]) -> quality.Inventory:
    materials = {slot.material for obj in meshes for slot in obj.material_slots if slot.material}
    sizes = {
        (int(node.image.size[0]), int(node.image.size[1]))
        for material in materials
        if material.node_tree is not None
        for node in material.node_tree.nodes
        if isinstance(node, bpy.types.ShaderNodeTexImage) and node.image is not None
    }
    return quality.Inventory(objects=len(meshes), materials=len(materials), textures=tuple(sorted(sizes)))


# ----------------------------------------------------------------------------------------- fix-ups


def _merge(obj: bpy.types.Object, distance: float) -> int:
    """Merge by distance (Blender's remove_doubles); returns how many vertices went."""
    bm = bmesh.new()
    bm.from_mesh(_mesh(obj))
    before = len(bm.verts)
    bmesh.ops.remove_doubles(bm, verts=list(bm.verts), dist=distance)
    after = len(bm.verts)
    bm.to_mesh(_mesh(obj))
    bm.free()
    obj.data.update()
    return before - after


def _faces_of(obj: bpy.types.Object, triangles: np.ndarray, polygon: np.ndarray) -> list[int]:
    return sorted(set(polygon[triangles].tolist()))


def _remove_loose(meshes: Sequence[bpy.types.Object], share: float) -> int:
    """Delete parts (welded by position) with less than ``share`` of the result's triangles."""
    read = [mesh_arrays(obj) for obj in meshes]
    analyses = [quality.Analysis(arrays) for arrays, _p in read]
    total = sum(a.triangle_count for a in analyses)
    removed = 0
    for obj, (_arrays, polygon), analysis in zip(meshes, read, analyses, strict=True):
        small = analysis.loose(share, total)
        if not small.any():
            continue
        removed += len(np.unique(analysis.part[small]))
        doomed = _faces_of(obj, np.flatnonzero(small), polygon)
        bm = bmesh.new()
        bm.from_mesh(_mesh(obj))
        bm.faces.ensure_lookup_table()
        bmesh.ops.delete(bm, geom=[bm.faces[i] for i in doomed], context="FACES")
        bm.to_mesh(_mesh(obj))
        bm.free()
        obj.data.update()
    return removed


def _face_out(meshes: Sequence[bpy.types.Object]) -> int:
    """Turn round the triangles that wind against their part, so each part faces out; returns how many."""
    turned = 0
    for obj in meshes:
        arrays, polygon = mesh_arrays(obj)
        inward = quality.Analysis(arrays).inward()
        if not inward.any():
            continue
        turned += int(inward.sum())
        faces = _faces_of(obj, np.flatnonzero(inward), polygon)
        bm = bmesh.new()
        bm.from_mesh(_mesh(obj))
        bm.faces.ensure_lookup_table()
        bmesh.ops.reverse_faces(bm, faces=[bm.faces[i] for i in faces])
        bm.to_mesh(_mesh(obj))
        bm.free()
        obj.data.update()
    return turned


def _join(meshes: Sequence[bpy.types.Object]) -> bpy.types.Object:
    """One object of several (an engine takes a result as one static mesh); the first one stays."""
    first = meshes[0]
    with bpy.context.temp_override(
        active_object=first, selected_editable_objects=list(meshes), selected_objects=list(meshes)
    ):
        bpy.ops.object.join()
    return first


def decimate(obj: bpy.types.Object, ratio: float) -> None:
    """Blender's Decimate (collapse) at ``ratio`` of the triangles, applied to the mesh data."""
    _merge(obj, WELD_DISTANCE)
    modifier = obj.modifiers.new("Kiln Budget", "DECIMATE")
    assert isinstance(modifier, bpy.types.DecimateModifier)
    modifier.decimate_type = "COLLAPSE"
    modifier.ratio = max(min(ratio, 1.0), 0.0)
    modifier.use_collapse_triangulate = True
    evaluated = obj.evaluated_get(bpy.context.evaluated_depsgraph_get())
    made = bpy.data.meshes.new_from_object(evaluated)
    obj.modifiers.remove(modifier)
    old, obj.data = _mesh(obj), made
    made.name = old.name
    if old.users == 0:
        bpy.data.meshes.remove(old)


# ------------------------------------------------------------------------------------ game outputs


def _lod(lod0: bpy.types.Object, ratio: float) -> bpy.types.Object:
    """A copy of LOD0 decimated to ``ratio`` of its triangles, in LOD0's collections."""
    copy = lod0.copy()
    copy.data = lod0.data.copy()
    for collection in lod0.users_collection:
        collection.objects.link(copy)
    decimate(copy, ratio)
    return copy


def convex_hull(source: bpy.types.Object) -> bpy.types.Object:
    """The convex hull of ``source``'s vertices as a new object with the same transform.

    Over ``hull.MAX_TRIANGLES`` triangles, it is rebuilt from its points farthest apart and grown
    about its centre until it holds every vertex again: still convex, still enclosing, fewer faces.
    """
    source_mesh = _mesh(source)
    co = np.empty(len(source_mesh.vertices) * 3, dtype=np.float32)
    source_mesh.vertices.foreach_get("co", co)
    points = co.reshape(-1, 3).astype(np.float64)
    bm = _hull_of(points)
    if len(bm.faces) > hull.MAX_TRIANGLES:
        corners = np.array([v.co.to_tuple() for v in bm.verts])
        bm.free()
        bm = _hull_of(corners[hull.farthest_points(corners, hull.MAX_POINTS)])
        bm.verts.index_update()
        vertices = np.array([v.co.to_tuple() for v in bm.verts])
        triangles = np.array([[v.index for v in f.verts] for f in bm.faces])
        factor, centre = hull.enclosing_scale(vertices, triangles, points)
        for vert, point in zip(bm.verts, centre + (vertices - centre) * factor * (1 + 1e-6), strict=True):
            vert.co = point.tolist()
    mesh = bpy.data.meshes.new(f"{source.name} hull")
    bm.to_mesh(mesh)
    bm.free()
    made = bpy.data.objects.new(mesh.name, mesh)
    made.matrix_world = source.matrix_world.copy()
    for collection in source.users_collection:
        collection.objects.link(made)
    made.display_type = "WIRE"
    return made


def _hull_of(points: np.ndarray) -> bmesh.types.BMesh:
    """A bmesh of the convex hull of ``points``, triangles wound outwards."""
    bm = bmesh.new()  # the points alone: a source's own faces must not stay in the hull
    for point in points.tolist():
        bm.verts.new(point)
    made = bmesh.ops.convex_hull(bm, input=list(bm.verts))
    inside = [g for g in (*made["geom_interior"], *made["geom_unused"]) if isinstance(g, bmesh.types.BMVert)]
    inside = list(dict.fromkeys(inside))  # a point may be both interior and unused
    bmesh.ops.delete(bm, geom=inside, context="VERTS")
    # The hull's faces come wound either way (recalc_face_normals misses some on near-flat spots);
    # a convex hull holds its centroid, so a face looking at it is turned round.
    centroid = sum((v.co for v in bm.verts), Vector()) / max(len(bm.verts), 1)
    bm.normal_update()
    inward = [f for f in bm.faces if f.normal.dot(f.calc_center_median() - centroid) < 0]
    bmesh.ops.reverse_faces(bm, faces=inward)
    bmesh.ops.triangulate(bm, faces=list(bm.faces))
    return bm


class ExportFailed(Exception):
    """The export could not be written; the message is a sentence for the job."""


def export(
    objects: Sequence[bpy.types.Object], engine: str, path: Path, record: provenance.Provenance | None = None
) -> str:
    """Write ``objects`` with Blender's own exporter: FBX for Unreal and Unity, GLB otherwise;
    ``record`` goes in as the GLB's XMP packet or as the FBX objects' custom properties."""
    try:
        if record is not None and engine in FBX_ENGINES:
            for obj in objects:
                for key, value in record.properties().items():
                    obj[key] = value
        _export(objects, engine, path)
        if record is not None and engine not in FBX_ENGINES:
            provenance.stamp_glb(path, record)
    except provenance.NotAGlb as exc:  # Blender's exporter wrote something else: the file stays
        log.warning("The export %s was not stamped with its provenance: %s", path, exc)
    except OSError as exc:
        raise ExportFailed(f"the export to {path} could not be written ({exc.strerror or exc})") from exc
    except RuntimeError as exc:  # the exporter's own report, its last line the reason
        reason = (str(exc).strip().splitlines() or ["no reason given"])[-1]
        raise ExportFailed(f"the export to {path} failed ({reason})") from exc
    return str(path)


def _export(objects: Sequence[bpy.types.Object], engine: str, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    view_layer = bpy.context.view_layer
    for obj in view_layer.objects:
        obj.select_set(obj in objects)
    view_layer.objects.active = objects[0]
    if engine == "UNREAL":
        # use_custom_props: the objects' custom properties (the provenance) as FBX user properties.
        # Unreal reads the file's axes and units ("Convert Scene"): metres as 100 units, Z up.
        bpy.ops.export_scene.fbx(
            filepath=str(path),
            use_selection=True,
            object_types={"MESH"},
            mesh_smooth_type="FACE",
            use_custom_props=True,
        )
    elif engine == "UNITY":
        # Unity: scale 1 with every scale applied, and the axis change baked into the data, so
        # the objects import unrotated (no -90° about X) and at 1 unit per metre.
        bpy.ops.export_scene.fbx(
            filepath=str(path),
            use_selection=True,
            object_types={"MESH"},
            mesh_smooth_type="FACE",
            apply_scale_options="FBX_SCALE_ALL",
            bake_space_transform=True,
            use_custom_props=True,
        )
    else:
        # Only the scene being finished: by default the exporter writes every scene of the file.
        bpy.ops.export_scene.gltf(
            filepath=str(path), export_format="GLB", use_selection=True, use_active_scene=True
        )
