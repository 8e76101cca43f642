"""Where a result came from, on the Blender side: a job's record, an object's, and exports stamped.

The record and the GLB stamping are ``api.features.provenance`` (plain Python); this module reads
what only the artist's Blender knows (the job, the objects' ``kiln_*`` properties, the credit line
preference) into plain values on the main thread. Reading an image to digest it, or rewriting a
GLB, happens on a worker (background mode excepted: there nothing else waits).
"""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from pathlib import Path
from typing import Any

import bpy

from .. import main_thread, preferences
from ..api.features import provenance
from ..api.features.provenance import Provenance
from ..api.features.quality import naming
from ..api.features.quality.options import GameOptions
from ..api.jobs import Job, JobKind
from ..api.services import service_id
from ..api.version import kiln_version
from ..api.words import Message, english, english_message
from ..api.words import catalogue as words
from .blocking import blocks

log = logging.getLogger(__name__)


def credit(context: bpy.types.Context | None = None) -> str:
    """The artist's credit line (a preference), "" when not set."""
    return str(preferences.get(context).credit_line).strip()


def job_record(job: Job, context: bpy.types.Context | None = None) -> Provenance:
    """The record of a finished job, from the job alone (no disk read: the image's digest is added
    by :func:`with_digest` on a worker)."""
    request = job.request
    image = request.blender_image or request.image_path or request.image_url
    return Provenance(
        task_id=job.task_id or "",
        # ``service`` arrives with the services round; a job from before went to the interface's service.
        service_id=service_id(getattr(request, "service", "")),
        prompt=request.prompt if request.kind is JobKind.TEXT else "",
        image="" if request.kind is JobKind.TEXT else provenance.file_name(image),
        date=provenance.iso_date(job.created_at) if job.created_at else "",
        kiln_version=kiln_version(),
        credit=credit(context),
    )


def job_image(job: Job) -> str:
    """The concept image's file on this computer ("" for a prompt, a URL, a Blender image without one)."""
    request = job.request
    if request.kind is JobKind.TEXT:
        return ""
    return request.image_path or image_file(request.blender_image)


def image_file(name_or_path: str) -> str:
    """A ``kiln_image`` value as a file to digest: a Blender image's file, or the path itself."""
    image = bpy.data.images.get(name_or_path) if name_or_path else None
    if image is not None:
        return bpy.path.abspath(image.filepath) if image.filepath else ""
    return "" if "://" in name_or_path else name_or_path


def with_digest(record: Provenance, image: str) -> Provenance:
    """The record with its image's SHA-256 (reads the file: a worker's call)."""
    if record.prompt or record.image_sha256 or not image:
        return record
    return replace(record, image_sha256=provenance.file_sha256(image))


def object_record(obj: Any, credit_line: str, version: str) -> Provenance | None:
    """An object's record with what was done to it (``kiln_history``); None when Kiln did not make it."""
    record = provenance.from_properties(obj, credit=credit_line, version=version)
    if record is None:
        return None
    return replace(record, history=history(obj), credit=record.credit or credit_line)


def history(obj: Any) -> tuple[str, ...]:
    """What was done to ``obj``, in English sentences (files are for stores)."""
    text = obj.get(provenance.HISTORY_PROPERTY)
    try:
        stored = json.loads(text) if isinstance(text, str) else []
    except ValueError:
        return ()
    said = (Message.from_json(item) for item in stored if isinstance(stored, list))
    return tuple(english_message(m) for m in said if m is not None)


def job_provenance(job: Job, context: bpy.types.Context | None = None) -> dict[str, Any] | None:
    """What an agent's ``get_job`` says of where the result came from: the first of the job's
    objects still in the file (with what was done to it), else the job's own record; None before
    the service gave the job its id."""
    if not job.task_id:
        return None
    credit_line, version = credit(context), kiln_version()
    for name in job.objects:
        obj = bpy.data.objects.get(name)
        record = object_record(obj, credit_line, version) if obj is not None else None
        if record is not None:
            return record.summary()
    return job_record(job, context).summary()


def export_record(job: Job, game: GameOptions, context: bpy.types.Context | None = None) -> str:
    """The record (JSON) for an export made in this Blender while the job imports; "" when nothing
    is exported. The image is digested here: such an import already reads files on this thread."""
    if not (game.builds_outputs and game.export_dir):
        return ""
    return with_digest(job_record(job, context), job_image(job)).to_json()


def stamp_exports_later(job: Job, game: GameOptions, objects: list[bpy.types.Object]) -> None:
    """A GLB the helper exported while the job was imported (it knew no provenance then) gets its
    packet now, off the main thread. An FBX cannot be rewritten: ``kiln.export_job`` writes one
    with it."""
    if not (game.builds_outputs and game.export_dir) or game.engine in ("UNREAL", "UNITY") or not objects:
        return
    path = (
        Path(game.export_dir) / naming.engine_names(game.engine, naming.asset_name(job.request.label), 0).file
    )
    done: list[str] = []
    for obj in objects:
        done += [step for step in history(obj) if step not in done]
    record = job_record(job).with_history(*done, english(words.DONE_EXPORTED, file=path.name))
    image = job_image(job)

    def work() -> str:
        try:
            provenance.stamp_glb(path, with_digest(record, image))
        except (OSError, provenance.NotAGlb) as exc:
            return str(exc)
        return ""

    def done_stamping(error: str) -> None:
        if error:
            log.warning("The export %s was not stamped with its provenance: %s", path, error)

    if blocks():
        done_stamping(work())
    else:
        main_thread.follow("provenance", work, done_stamping)
