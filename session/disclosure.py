"""The AI disclosure report: the session's part of ``kiln.disclosure_report``.

The rows are read on the main thread (the open file's objects; with ``library``, the objects of the
Kiln asset library's .blend files, linked for a moment and removed again); the images' digests and
the two files (CSV, and HTML beside it: ``api.features.disclosure``) are made by a worker, or here in
background mode. An object is listed when it carries ``kiln_task_id``: a duplicate carries it too,
and an object whose provenance the artist removed is not Kiln's to declare any more.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import bpy

from ..api.features import disclosure
from ..api.features.disclosure import Row
from ..api.features.library_folder import is_temp_name
from ..api.version import kiln_version
from ..api.words import Message, english, message
from ..api.words import catalogue as words
from ..language import text
from . import library, provenance

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import WmReportItems

log = logging.getLogger(__name__)

#: The HTML table's headings, one per column of ``disclosure.COLUMNS``.
HEADINGS = (
    words.DISCLOSURE_COL_NAME,
    words.DISCLOSURE_COL_WHERE,
    words.DISCLOSURE_COL_SERVICE,
    words.DISCLOSURE_COL_REQUEST,
    words.DISCLOSURE_COL_JOB,
    words.DISCLOSURE_COL_DATE,
    words.DISCLOSURE_COL_CREDIT,
    words.DISCLOSURE_COL_DONE,
    words.DISCLOSURE_COL_SOURCE,
)

#: A row and the concept image to digest for it ("" when none is on this computer).
Found = tuple[Row, str]


def file_rows(context: bpy.types.Context) -> list[Found]:
    """Every Kiln object of the open file (not linked from another), by name."""
    credit, version = provenance.credit(context), kiln_version()
    found: list[Found] = []
    for obj in sorted(bpy.data.objects, key=lambda o: o.name):
        if obj.library is not None:
            continue
        record = provenance.object_record(obj, credit, version)
        if record is not None:
            found.append(
                (Row(obj.name, "file", record), provenance.image_file(str(obj.get("kiln_image") or "")))
            )
    return found


def library_rows(context: bpy.types.Context) -> list[Found]:
    """Every Kiln object of the library's .blend files: linked, read, and the link removed."""
    folder = library.library_dir(context)
    credit, version = provenance.credit(context), kiln_version()
    found: list[Found] = []
    for blend in sorted(folder.glob("*.blend")) if folder.is_dir() else []:
        if is_temp_name(blend.name):
            continue
        before = set(bpy.data.libraries)
        try:
            load: Any = bpy.data.libraries.load  # the stubs miss its context manager (as placement says)
            with load(str(blend), link=True) as (source, target):
                target.objects = list(source.objects)
            for obj in target.objects:
                record = provenance.object_record(obj, credit, version) if obj is not None else None
                if record is not None:
                    found.append((Row(f"{blend.stem}: {obj.name}", "library", record), ""))
        except (OSError, RuntimeError) as exc:  # a file being written, or damaged: the rest still count
            log.warning("Could not read %s for the disclosure report: %s", blend, exc)
        finally:
            for lib in set(bpy.data.libraries) - before:
                bpy.data.libraries.remove(lib)
    return found


def report_paths(filepath: str) -> tuple[Path, Path]:
    """The CSV and the HTML beside it, whichever of the two (or neither) ``filepath`` names."""
    path = Path(bpy.path.abspath(filepath))
    base = path.with_suffix("") if path.suffix.lower() in (".csv", ".html", ".htm") else path
    return base.with_name(base.name + ".csv"), base.with_name(base.name + ".html")


def writer(context: bpy.types.Context, filepath: str, found: list[Found]) -> Callable[[], tuple[int, str]]:
    """The worker's part (plain values only): digest the images, write both files; (rows, "") when
    written, (rows, why) when not."""
    csv_path, html_path = report_paths(filepath)
    project = Path(bpy.data.filepath).stem if bpy.data.filepath else csv_path.stem
    title = english(words.DISCLOSURE_TITLE, project=project)
    intro, empty = text(words.DISCLOSURE_INTRO), text(words.DISCLOSURE_NONE)
    headings = [text(h) for h in HEADINGS]

    def work() -> tuple[int, str]:
        rows = [replace(row, record=provenance.with_digest(row.record, image)) for row, image in found]
        try:
            csv_path.parent.mkdir(parents=True, exist_ok=True)
            csv_path.write_text(disclosure.to_csv(rows), encoding="utf-8-sig", newline="")
            html_path.write_text(disclosure.to_html(rows, title, intro, headings, empty), encoding="utf-8")
        except OSError as exc:
            return len(rows), str(exc)
        return len(rows), ""

    return work


def outcome(filepath: str, written: tuple[int, str]) -> tuple[WmReportItems, Message]:
    """What the status bar says: ("INFO", the files) or ("ERROR", the folder; the reason to the console)."""
    count, error = written
    csv_path, html_path = report_paths(filepath)
    if error:
        log.warning("The disclosure report could not be written: %s", error)
        return "ERROR", message(words.DISCLOSURE_NOT_WRITTEN, folder=str(csv_path.parent), details=error)
    files = f"{csv_path}, {html_path.name}"
    return "INFO", message(words.DISCLOSURE_WRITTEN, n=count, files=files)
