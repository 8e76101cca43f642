"""What a job is: the request, its state, its owner, and the record that reaches disk.

Published ``Job`` values are snapshots: the engine never changes one in place once another
thread may hold it, it puts a changed copy in its place (``dataclasses.replace``). So the UI
thread reads the job list without copying it, and the writer thread saves a value that cannot
change under it.
"""

from __future__ import annotations

import enum
import hashlib
import json
import time
import uuid
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from ..isolation import HelperLimits
from ..services import old_records_service, service_id
from ..words import Message, english_message
from .defaults import LARGE_IMPORT_TRIANGLES, MAX_IN_FLIGHT, POLL_INTERVAL, TIMEOUT_SECONDS

#: The record layout inside the store; a record of a newer layout is kept, never rewritten.
RECORD_FORMAT = 1


class JobState(enum.StrEnum):
    SUBMITTING = "submitting"
    QUEUED = "queued"
    RUNNING = "running"
    DOWNLOADING = "downloading"
    READY = "ready"
    IMPORTED = "imported"
    FAILED = "failed"
    CANCELLED = "cancelled"
    OUTCOME_UNKNOWN = "outcome unknown"
    TIMED_OUT = "timed out"

    @property
    def is_active(self) -> bool:
        """Still being worked on by its owner's engine."""
        return self in ACTIVE_STATES


ACTIVE_STATES = frozenset({JobState.SUBMITTING, JobState.QUEUED, JobState.RUNNING, JobState.DOWNLOADING})
#: States whose work needs an owner: active, or ready and not yet imported.
OWNED_STATES = ACTIVE_STATES | {JobState.READY}
FINISHED_STATES = frozenset({JobState.IMPORTED, JobState.FAILED, JobState.CANCELLED})


class JobKind(enum.StrEnum):
    """What the first request of a job was; ``TASK`` follows a task by its id and never submits."""

    TEXT = "text"
    IMAGE = "image"
    TASK = "task"
    #: New textures for a mesh Kiln exported (``model_path``), styled by ``prompt`` or ``image_path``.
    RETEXTURE = "retexture"


@dataclass(frozen=True)
class Account:
    """Where one service is reached and the key it takes (copied on the main thread)."""

    service: str
    base_url: str
    api_key: str = field(repr=False)


@dataclass(frozen=True)
class ServiceConfig:
    """Everything workers need from the preferences, copied on the main thread.

    ``base_url`` and ``api_key`` are the account of the service a request naming none goes to (the old
    records' service, ``api.services.old_records_service``: as outside checks give them); ``accounts``
    every service's the artist set up (one there wins).
    """

    base_url: str
    api_key: str = field(repr=False)
    poll_interval: float = POLL_INTERVAL
    max_in_flight: int = MAX_IN_FLIGHT
    timeout_seconds: float = TIMEOUT_SECONDS
    #: Blender's "Allow Online Access"; while it is off, jobs wait and nothing is sent.
    online: bool = True
    #: Every mesh is imported by the helper Blender and appended (``isolation``), unless the artist
    #: chose to import in this Blender: then only results above either size still go through it.
    import_in_place: bool = False
    large_import_triangles: int = LARGE_IMPORT_TRIANGLES
    large_import_bytes: int = 20 * 1024 * 1024
    #: The helper's command line (``isolation.helper_command``); empty: no helper can run here.
    helper_command: tuple[str, ...] = ()
    helper_limits: HelperLimits = field(default_factory=HelperLimits)
    accounts: tuple[Account, ...] = ()

    def account(self, service: str) -> Account:
        """Where ``service`` is reached, and its key ("" each where the artist has not set it up)."""
        sid = service_id(service)
        found = next((a for a in self.accounts if a.service == sid), None)
        if found is None and sid == old_records_service():
            found = Account(sid, self.base_url, self.api_key)
        return found or Account(sid, "", "")


@dataclass(frozen=True)
class JobRequest:
    """What the artist asked for; enough to submit (or re-submit) the job.

    ``kind`` may be given as a plain string ("text", "image", "task"); it is kept as a JobKind.
    """

    kind: JobKind | str  # always a JobKind once made
    prompt: str = ""
    image_path: str = ""
    image_url: str = ""
    resolution: int | None = None
    provider: str = ""
    quality: str = ""
    webhook_url: str = ""
    name: str = ""
    blender_image: str = ""  # the Blender image ``image_path`` was saved from, for provenance
    #: The blockout object the result replaces (``operators.blockout``); empty: placed as usual.
    placeholder: str = ""
    #: Fix-ups and game outputs the helper applies (``api.features.quality.options.GameOptions`` as
    #: JSON); "": none.
    game: str = ""
    #: Who asked for it when an agent did (its client's name, through Kiln's agent server): the
    #: job list marks it and its objects say so (``kiln_agent``). "": the artist or a script.
    agent: str = ""
    #: The service it goes to (an ``api.services`` id); "": the old records' service (older job lists).
    service: str = ""
    #: The service's quality tier (``Capabilities`` tier id); "": the service's default. The old
    #: records' service's tier is its resolution, which ``resolution`` keeps as it always did.
    tier: str = ""
    #: Options by their one name (``api.services.OPTION_NAMES``) as JSON; "": the service's defaults.
    options: str = ""
    #: More images of the same object after ``image_path``, by position (back, left, right); "" where
    #: a view in the middle is missing.
    views: tuple[str, ...] = ()
    #: A re-texture's mesh: the GLB Kiln exported of the artist's object.
    model_path: str = ""
    #: The object a re-texture is of: its result lands beside it (``kiln_retexture_of``).
    retexture_of: str = ""
    #: The image actually sent when Kiln prepared it (``api.checks.image_preflight``): a file of Kiln's
    #: uploads folder, sent instead of ``image_path`` or ``image_url``, which stay the provenance.
    image_sent: str = ""
    #: What the image check found and prepared (``Preflight.summary`` as JSON); "": not checked.
    preflight: str = ""
    #: The name the variants of one image share (``session.image_jobs``): the best match is shown.
    variant_of: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", JobKind(self.kind))
        object.__setattr__(self, "views", tuple(str(view) for view in self.views))

    @property
    def service_id(self) -> str:
        """The service this job goes to, as ``api.services`` knows it."""
        return service_id(self.service)

    def to_service(self, service: str, tier: str = "", options: str = "") -> JobRequest:
        """This request going to ``service`` at ``tier`` with ``options`` (JSON). The resolution is the
        old records' service's tier (stored as it always was); another's carries a ``tier`` instead."""
        resolution = self.resolution if service_id(service) == old_records_service() else None
        return replace(self, service=service, tier=tier, resolution=resolution, options=options)

    @property
    def tier_id(self) -> str:
        """The tier sent: ``tier``, else the resolution (the interface service's tiers), else the default."""
        return self.tier or (str(self.resolution) if self.resolution else "")

    @property
    def option_values(self) -> dict[str, object]:
        """``options`` read back; a damaged value reads as no options."""
        try:
            values = json.loads(self.options) if self.options else {}
        except ValueError:
            return {}
        return values if isinstance(values, dict) else {}

    @property
    def label(self) -> str:
        """A short name for lists and object names."""
        if self.name:
            return self.name
        if self.kind is JobKind.TEXT:
            return self.prompt.strip()
        if self.kind is JobKind.TASK:
            return "Task"
        if self.kind is JobKind.RETEXTURE and self.retexture_of:
            return self.retexture_of
        return Path(self.image_path).name if self.image_path else self.image_url.rsplit("/", 1)[-1]


@dataclass(frozen=True)
class Owner:
    """The Kiln process working on a job: its pid, when its engine started, and where it runs."""

    pid: int
    started: float
    label: str = ""

    @property
    def key(self) -> tuple[int, float]:
        return (self.pid, self.started)


@dataclass
class Job:
    """One request and everything known about its task; the unit that is persisted."""

    id: str
    request: JobRequest
    origin: str = ""
    group: str = ""
    state: JobState = JobState.SUBMITTING
    task_id: str = ""
    #: An id the service answered that Kiln refused to follow (:mod:`api.http.ids`), escaped for display:
    #: never polled, kept so the artist can quote it to the service's support.
    refused_task_id: str = ""
    idempotency_key: str = field(default_factory=lambda: uuid.uuid4().hex)
    submit_sent: bool = False
    progress: float = 0.0
    eta_seconds: int | None = None
    #: Why the job failed (or stopped), in English: what older job lists hold, and outside checks read.
    error: str = ""
    #: The same sentence to say in the artist's language, with its details (None in older job lists).
    error_message: Message | None = None
    #: A passing remark while the job runs ("Downloading 40%"), in English, and as a message.
    note: str = ""
    note_message: Message | None = None
    created_at: float = field(default_factory=time.time)
    submitted_at: float | None = None
    deadline: float | None = None
    finished_at: float | None = None
    mesh_url: str = ""
    preview_url: str = ""
    resolution: int | None = None
    triangles: int | None = None
    mesh_path: str = ""
    blend_path: str = ""
    preview_path: str = ""
    objects: list[str] = field(default_factory=list)
    #: The .blend the result was imported into (its file identity, or the "unsaved:…" token of an
    #: unsaved file); empty when it was imported before Kiln recorded it, or by a farm.
    imported_into: str = ""
    owner: Owner | None = None
    #: How many times Retry sent the job again: its cache files get a new name each time.
    attempt: int = 0
    #: What the service needs besides the task id to follow it (``Task.handle``).
    task_handle: str = ""
    #: Which submit of a job made in stages the task is (Meshy: 0 the preview, 1 the refine).
    stage: int = 0
    #: How well an image job's mesh matches its image (``api.checks.fidelity``, 0–1); None: not measured.
    fidelity: float | None = None
    #: The view of the mesh that matched best ("front", "side mirrored", …).
    fidelity_view: str = ""

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        for name in ("error_message", "note_message"):
            said: Message | None = getattr(self, name)
            data[name] = said.to_json() if said is not None else None
        data["state"] = self.state.value
        data["request"]["kind"] = JobKind(self.request.kind).value
        data["format"] = RECORD_FORMAT
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Job:
        """Raises KeyError, TypeError or ValueError for a record this version cannot use as is."""
        if int(data.get("format", RECORD_FORMAT)) > RECORD_FORMAT:
            raise ValueError(f"record format {data['format']} is newer than this Kiln")
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        request_fields = {f.name for f in fields(JobRequest)}
        request = {k: v for k, v in data["request"].items() if k in request_fields}
        if not isinstance(request.get("views", ()), list | tuple):
            raise TypeError("views is not a list")
        if request.get("kind") == "text" and not request.get("prompt") and data.get("task_id"):
            request["kind"] = JobKind.TASK  # an older Kiln stored a resumed task as an empty text job
        values["request"] = JobRequest(**request)
        values["state"] = JobState(data["state"])
        owner = data.get("owner")
        values["owner"] = Owner(**owner) if isinstance(owner, dict) else None
        for name in ("error_message", "note_message"):  # absent from older lists; a damaged one is None
            values[name] = Message.from_json(data.get(name))
        if not isinstance(values.get("objects", []), list):
            raise TypeError("objects is not a list")
        return cls(**values)


@dataclass(frozen=True)
class JobEvent:
    """A change the UI should show; drained on the main thread. ``message``: what to say about it."""

    job_id: str
    state: JobState
    message: Message | None = None

    @property
    def text(self) -> str:
        """The message in English, for the log ("" when there is none)."""
        return english_message(self.message) if self.message is not None else ""


def sentence(kind: str, said: Message | None) -> dict[str, Any]:
    """The changes that give a job ``said`` as its ``kind`` ("error" or "note"): the English text and
    the message, kept together (None clears both)."""
    return {kind: english_message(said) if said is not None else "", f"{kind}_message": said}


def new_job_id() -> str:
    """Kiln's own id: also the name of the job's cache files, so never anything from the service."""
    return uuid.uuid4().hex[:12]


def cache_name(job: Job) -> str:
    """Cache files are named from Kiln's own job id (never the service's task id), new for each Retry."""
    job_id = job.id
    if not (job_id and len(job_id) <= 64 and all(c.isascii() and (c.isalnum() or c in "-_") for c in job_id)):
        job_id = hashlib.sha256(job_id.encode("utf-8", "replace")).hexdigest()[:24]
    return f"{job_id}-{job.attempt}" if job.attempt else job_id
