"""Export a finished job for a game engine, after the fact: the session's part of ``kiln.export_job``.

The helper Blender imports the job's cached GLB again, applies the job's own fix-ups and outputs
(LODs, collision) with the chosen engine's names, and writes the export; the artist's Blender only
waits for the answer on the one off-thread mechanism (in background mode it blocks, as everything
does there). Where no helper can run, the export is made here, in a collection of the artist's
scene removed afterwards.
"""

from __future__ import annotations

import contextlib
import logging
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import bpy

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import WmReportItems

from .. import main_thread, preferences
from ..api.errors import KilnError
from ..api.features.quality.options import GameOptions
from ..api.isolation import HelperUnavailable
from ..api.jobs import Job
from ..api.words import Message, message
from ..api.words import catalogue as words
from . import messenger, provenance, runtime

log = logging.getLogger(__name__)

#: What the export made, and why it did not when it did not (for the console and Copy Details; the
#: artist reads Kiln's own sentence): ([paths], "") done, (None, "") no helper could run, ([], why) failed.
Outcome = tuple[list[str] | None, str]


def export_options(job: Job, engine: str, directory: str) -> GameOptions:
    """The job's own fix-ups and outputs, with this engine and folder."""
    return replace(GameOptions.from_text(job.request.game), engine=engine, export_dir=directory)


def export_in_helper(job: Job, options: GameOptions, context: bpy.types.Context) -> Callable[[], Outcome]:
    """The worker's job (plain values only): ([paths], "") done, (None, "") no helper, ([], why) failed."""
    config = preferences.service_config(context)
    helper = runtime.engine(context).import_helper
    mesh, game, label = Path(job.mesh_path), options.to_text(), job.request.label
    record, image = provenance.job_record(job, context), provenance.job_image(job)

    def work() -> Outcome:
        scratch = Path(tempfile.mkdtemp(prefix="kiln-export-"))
        try:
            made = helper.prepare(
                config.helper_command,
                config.helper_limits,
                mesh,
                scratch / "export.blend",
                cancelled=lambda: False,
                game=game,
                label=label,
                provenance=provenance.with_digest(record, image).to_json(),
            )
        except HelperUnavailable:
            return None, ""
        except KilnError as exc:
            return [], exc.details or exc.user_message
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        return list(made.exported), made.finish_error

    return work


def export_in_place(job: Job, options: GameOptions, context: bpy.types.Context) -> tuple[list[str], str]:
    """No helper can run: import the GLB into a collection of the artist's own scene, export, and
    remove it all, the selection and the active object as they were.

    Not a scene of its own: Blender's glTF exporter makes each scene it writes the window's scene
    and evaluates the context's depsgraph, so a scene made current only under ``temp_override``
    (its view layer not the window's) crashed Blender as soon as the file held other objects.
    """
    window = context.window or next(iter(context.window_manager.windows), None)
    with context.temp_override(window=window) if window is not None else contextlib.nullcontext():
        return _export_here(job, options, bpy.context)


def _export_here(job: Job, options: GameOptions, context: bpy.types.Context) -> tuple[list[str], str]:
    from ..finishing import game_ready  # loaded on the first export with no helper: rare

    view_layer = context.view_layer
    selected = [obj for obj in view_layer.objects if obj.select_get()]
    active, active_collection = view_layer.objects.active, view_layer.active_layer_collection
    holder = bpy.data.collections.new("Kiln Export")
    context.scene.collection.children.link(holder)
    view_layer.active_layer_collection = view_layer.layer_collection.children[holder.name]
    before = set(bpy.data.objects)
    try:
        bpy.ops.import_scene.gltf(filepath=job.mesh_path)
        made = [obj for obj in bpy.data.objects if obj not in before]
        _objects, said = game_ready.finish(
            made, options, job.request.label, provenance.export_record(job, options, context)
        )
        return list(said["exported"]), ""
    except (RuntimeError, OSError) as exc:  # the importer or an exporter refused; the folder is unwritable
        log.warning("Export of %s failed: %s", job.mesh_path, exc)
        return [], str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__
    finally:
        _remove([obj for obj in bpy.data.objects if obj not in before], holder)
        view_layer.active_layer_collection = active_collection
        for obj in view_layer.objects:
            obj.select_set(obj in selected)
        view_layer.objects.active = active


def _remove(objects: list[bpy.types.Object], holder: bpy.types.Collection) -> None:
    """The export's objects, their meshes and their collection, gone from the file."""
    for obj in objects:
        data = obj.data
        bpy.data.objects.remove(obj)
        if isinstance(data, bpy.types.Mesh) and data.users == 0:
            bpy.data.meshes.remove(data)
    bpy.data.collections.remove(holder)


def said(paths: list[str], error: str, folder: str) -> tuple[WmReportItems, Message]:
    """What the status bar says of an export: its files and where, or that it failed (the reason, the
    exporter's or the disk's own words, goes to the console and the message's details)."""
    if error or not paths:
        log.warning("The export to %s failed: %s", folder, error or "nothing was written")
        return "ERROR", message(words.EXPORT_FAILED, folder=folder, details=error)
    names = ", ".join(Path(p).name for p in paths)
    return "INFO", message(words.EXPORTED, files=names, folder=str(Path(paths[0]).parent))


def follow(job: Job, options: GameOptions, work: Callable[[], Outcome]) -> None:
    """Run ``work`` off the main thread; its outcome (or an export in place) is said when it is in."""

    def done(outcome: Outcome) -> None:
        paths, error = outcome
        if paths is None:
            paths, error = export_in_place(job, options, bpy.context)
        level, what = said(paths, error, options.export_dir)
        messenger.announce(level, what)

    main_thread.follow("export", work, done)
