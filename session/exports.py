"""Export a finished job for a game engine, after the fact: the session's part of ``kiln.export_job``.

The helper Blender imports the job's cached GLB again, applies the job's own fix-ups and outputs
(LODs, collision) with the chosen engine's names, and writes the export; the artist's Blender only
waits for the answer on the one off-thread mechanism (in background mode it blocks, as everything
does there). Where no helper can run, the export is made here in a scene of its own, removed
afterwards.
"""

from __future__ import annotations

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
from ..helper_blender import game_ready
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
    """No helper can run: import the GLB into a scene of its own, export, and remove it all."""
    scene = bpy.data.scenes.new("Kiln Export")
    before = set(bpy.data.objects)
    try:
        with context.temp_override(scene=scene, view_layer=scene.view_layers[0]):
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
        for obj in [obj for obj in bpy.data.objects if obj not in before]:
            data = obj.data
            bpy.data.objects.remove(obj)
            if isinstance(data, bpy.types.Mesh) and data.users == 0:
                bpy.data.meshes.remove(data)
        bpy.data.scenes.remove(scene)


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
