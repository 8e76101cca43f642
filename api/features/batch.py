"""Batch files in, job requests out; finished jobs in, a summary out.

Plain Python (no bpy), so the rules are unit-tested without Blender. A prompt file is
``.txt`` (one prompt a line, blank lines and ``#`` comments skipped) or ``.csv`` (a header
naming ``prompt`` or ``image``, optionally ``resolution``, ``name``, ``service`` (a service's id in
Kiln, any the registry holds: the line goes there instead of the batch's service), and the game-ready
columns ``triangles``, ``lods`` and ``export``). A bad line never
stops the batch: it is returned as a problem carrying its line number, and the rest goes on.
"""

from __future__ import annotations

import csv
import io
import json
import os
import tempfile
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from ..checks.fidelity import words_for as fidelity_words
from ..checks.inputs import check_prompt, check_web_url, read_image_file
from ..checks.text_files import csv_dialect, decode_text, relative_path
from ..errors import InputError
from ..jobs import Job, JobKind, JobRequest, JobState
from ..services import info, is_registered, old_records_service, service_id, service_ids
from ..words import Message, english, shorten
from ..words import catalogue as words
from ..words import message as msg
from .quality.findings import QualityReport
from .quality.options import RowOptions, parse_row

CSV_COLUMNS = ("prompt", "image", "resolution", "name", "service", "triangles", "lods", "export")
#: Blender names hold 63 bytes; keep room for a " 12" suffix.
MAX_GROUP_BYTES = 56
MAX_GROUP_CHARS = 40


@dataclass(frozen=True)
class BatchItem:
    """One usable line: what to generate, and where it came from."""

    line: int
    request: JobRequest
    #: The line's own triangle budget, LODs and export engine (CSV columns), over the batch's.
    row: RowOptions = field(default_factory=RowOptions)


@dataclass(frozen=True)
class LineProblem:
    """A skipped line and why (``message``: about the line, "It has …")."""

    line: int
    message: Message

    @property
    def said(self) -> Message:
        """ "Line 5 was skipped: It has both a prompt and an image; …"."""
        return msg(words.LINE_SKIPPED, line=self.line, problem=self.message)

    def __str__(self) -> str:
        """For a log line: the line number and why."""
        return f"line {self.line}: {self.message}"


@dataclass(frozen=True)
class Batch:
    items: list[BatchItem]
    problems: list[LineProblem]
    #: Things worth saying that skipped nothing (e.g. the encoding had to be guessed).
    notes: list[Message] = field(default_factory=list)


def read_batch(path: Path, *, resolution: int | None = None) -> Batch:
    """Parse a .txt or .csv prompt file; raises InputError only when the whole file is unusable."""
    suffix = path.suffix.lower()
    if suffix not in (".txt", ".csv"):
        raise InputError(words.PROMPT_FILE_WRONG_KIND, name=path.name)
    try:
        decoded = decode_text(path.read_bytes(), path.name)
    except FileNotFoundError:
        raise InputError(words.PROMPT_FILE_MISSING, path=str(path)) from None
    except OSError as exc:
        raise InputError(
            words.PROMPT_FILE_UNREADABLE, details=str(exc.strerror or exc), path=str(path)
        ) from None
    if suffix == ".txt":
        batch = parse_txt(decoded.text, resolution=resolution)
    else:
        batch = parse_csv(decoded.text, folder=path.parent, resolution=resolution)
    if decoded.note is not None:
        batch.notes.append(decoded.note)
    return batch


def parse_txt(text: str, *, resolution: int | None = None) -> Batch:
    items: list[BatchItem] = []
    problems: list[LineProblem] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        prompt = raw.strip()
        if not prompt or prompt.startswith("#"):
            continue
        if _has_control_characters(prompt):
            problems.append(LineProblem(number, msg(words.LINE_HAS_CONTROL_CHARACTERS)))
            continue
        items.append(BatchItem(number, JobRequest(kind="text", prompt=prompt, resolution=resolution)))
    return Batch(items, problems)


def parse_csv(text: str, *, folder: Path, resolution: int | None = None) -> Batch:
    """Rows become requests; image paths are relative to ``folder`` (the CSV's own).

    The separator is ``,``, ``;`` or tab (Excel's ``sep=`` line, else the one the header uses);
    line numbers stay those of the file.
    """
    separator, body = csv_dialect(text, ("prompt", "image"))
    skipped = text.count("\n") - body.count("\n")
    reader = csv.reader(io.StringIO(body, newline=""), delimiter=separator)
    header, header_line = _header(reader, skipped)
    items: list[BatchItem] = []
    problems: list[LineProblem] = []
    line = header_line + 1
    for row in reader:
        cells = {name: row[index].strip() for name, index in header.items() if index < len(row)}
        values = {name: value for name, value in cells.items() if value}
        if values and not next(iter(row), "").lstrip().startswith("#"):
            try:
                items.append(BatchItem(line, _row_request(values, folder, resolution), parse_row(values)))
            except InputError as exc:
                problems.append(LineProblem(line, exc.message))
        line = skipped + reader.line_num + 1
    return Batch(items, problems)


def _header(reader: Any, skipped: int) -> tuple[dict[str, int], int]:
    """Column positions by name, and the line the header was on (blank and # lines before it skipped)."""
    for row in reader:
        cells = [cell.strip().lower() for cell in row]
        if not any(cells) or cells[0].startswith("#"):
            continue
        header = {name: cells.index(name) for name in CSV_COLUMNS if name in cells}
        if "prompt" not in header and "image" not in header:
            columns: str | Message = ", ".join(c for c in cells if c) or msg(words.CSV_HEADER_EMPTY)
            raise InputError(words.CSV_NO_PROMPT_COLUMN, line=skipped + reader.line_num, columns=columns)
        return header, skipped + reader.line_num
    raise InputError(words.CSV_EMPTY)


def _row_request(values: dict[str, str], folder: Path, default: int | None) -> JobRequest:
    prompt, image = values.get("prompt", ""), values.get("image", "")
    if prompt and image:
        raise InputError(words.LINE_HAS_PROMPT_AND_IMAGE)
    if not prompt and not image:
        raise InputError(words.LINE_HAS_NOTHING)
    resolution = parse_resolution(values.get("resolution", ""), default)
    name = values.get("name", "")
    return replace(_source_request(prompt, image, folder, resolution, name), service=_service(values))


def _service(values: dict[str, str]) -> str:
    """The line's own service (its ``service`` cell), "" where it names none."""
    given = values.get("service", "")
    if given and not is_registered(given):
        raise InputError(words.LINE_SERVICE_UNKNOWN, service=given, services=", ".join(service_ids()))
    return service_id(given) if given else ""


def _source_request(prompt: str, image: str, folder: Path, resolution: int | None, name: str) -> JobRequest:
    if prompt:
        return JobRequest(kind="text", prompt=check_prompt(prompt), resolution=resolution, name=name)
    if "://" in image:
        url = check_web_url(image, "image URL")
        return JobRequest(kind="image", image_url=url, resolution=resolution, name=name)
    path = relative_path(folder, image).resolve()
    read_image_file(path)
    return JobRequest(kind="image", image_path=str(path), resolution=resolution, name=name)


def parse_resolution(value: str, default: int | None) -> int | None:
    """'' keeps the default, 'auto' lets the service choose, else one of the resolutions of the service
    whose quality is a resolution (its tiers, written in its package)."""
    value = value.strip().lower()
    if not value:
        return default
    if value == "auto":
        return None
    resolutions = [
        tier.id for tier in info(old_records_service()).capabilities.tiers("text") if tier.id.isdigit()
    ]
    if value not in resolutions:
        raise InputError(
            words.RESOLUTION_NOT_A_CHOICE, value=value, choices=", ".join(["auto", *resolutions])
        )
    return int(value)


def going_to(item: BatchItem, service: str, tier: str = "", options: str = "") -> BatchItem:
    """The line going to the service its ``service`` cell names, else to the batch's ``service`` with the
    batch's tier and options (a tier is one service's: a line of its own service takes that one's default)."""
    own = item.request.service
    request = (
        item.request.to_service(own, "", options) if own else item.request.to_service(service, tier, options)
    )
    return replace(item, request=request)


def _has_control_characters(text: str) -> bool:
    return any(unicodedata.category(ch) == "Cc" for ch in text if ch != "\t")


def group_names(labels: Iterable[str], taken: Iterable[str] = ()) -> list[str]:
    """One collection name per job: its label, shortened to fit Blender, unique among ``taken``."""
    used = set(taken)
    names = []
    for label in labels:
        base = _clip(" ".join(label.split()) or "Kiln job")
        name, n = base, 1
        while name in used:
            n += 1
            name = f"{base} {n}"
        used.add(name)
        names.append(name)
    return names


def _clip(text: str) -> str:
    text = shorten(text, MAX_GROUP_CHARS)
    while len(text.encode("utf-8")) > MAX_GROUP_BYTES:
        text = shorten(text, len(text) - 1)
    return text.rstrip()


# --------------------------------------------------------------------------------- summary


def summarize(jobs: Iterable[Job], reports: Mapping[str, QualityReport] | None = None) -> dict[str, Any]:
    """What happened to each job, for the JSON summary and the closing report; ``reports`` (by job
    id) adds each result's verdict, reasons and quality report (triangles then count after fix-ups)."""
    reports = reports or {}
    rows = []
    for job in jobs:
        report = reports.get(job.id)
        rows.append(
            {
                "name": job.request.label,
                "task_id": job.task_id,
                "state": job.state.value,
                "triangles": report.triangles if report else job.triangles,
                "seconds": round(job.finished_at - job.created_at, 1) if job.finished_at else None,
                "error": job.error,
                #: What is behind the error (the service's own words, statuses), for support.
                "error_details": job.error_message.details if job.error_message else "",
                "verdict": report.verdict if report else None,
                "reasons": report.reasons if report else [],
                "quality": asdict(report) if report else None,
                **_image_facts(job),
            }
        )
    imported = sum(row["state"] == JobState.IMPORTED.value for row in rows)
    return {"jobs": rows, "imported": imported, "failed": len(rows) - imported}


def _image_facts(job: Job) -> dict[str, Any]:
    """An image job's fidelity (0–1, None: not measured) and its words, and what its image check found."""
    if JobKind(job.request.kind) is not JobKind.IMAGE:
        return {}
    try:
        found = json.loads(job.request.preflight).get("findings", []) if job.request.preflight else []
    except (ValueError, AttributeError):
        found = []
    facts: dict[str, Any] = {"fidelity": job.fidelity, "image_check": found}
    if job.state is JobState.IMPORTED:
        percent = round((job.fidelity or 0.0) * 100)
        facts["fidelity_said"] = english(fidelity_words(job.fidelity), percent=percent)
    return facts


def summary_lines(summary: dict[str, Any]) -> list[str]:
    """A readable table: one line a job (name, task id, triangles, seconds or error)."""
    lines = []
    for row in summary["jobs"]:
        name = shorten(row["name"], 30)
        if row["state"] == JobState.IMPORTED.value:
            outcome = f"{row['triangles'] or 0:>8,} triangles  {row['seconds'] or 0:>6.1f} s"
        else:
            outcome = f"{row['state']}: {row['error']}"
        lines.append(f"{name:<30}  {row['task_id'] or '-':<38}  {outcome}")
    lines.append(english(words.BATCH_IMPORTED, imported=summary["imported"], n=len(summary["jobs"])))
    return lines


def write_summary(path: Path, summary: dict[str, Any]) -> None:
    """Write the JSON summary whole or not at all (temp file, then rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".summary-", suffix=".tmp", dir=path.parent)
    try:
        Path(tmp).chmod(0o644)  # a report to share, not a secret (mkstemp makes it private)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(summary, handle, indent=2)
            handle.write("\n")
        Path(tmp).replace(path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
