"""The words the Sidebar and the preferences show for a job, a key and a size (no bpy: easy to test)."""

from __future__ import annotations

import re
import time
from pathlib import PurePosixPath, PureWindowsPath

from .api.jobs import Job, JobState
from .api.paths import UNSAVED_PREFIX

#: Filter values of the job list, and which states each one shows.
FILTER_STATES: dict[str, frozenset[JobState]] = {
    "ACTIVE": frozenset({JobState.SUBMITTING, JobState.QUEUED, JobState.RUNNING, JobState.DOWNLOADING}),
    "DONE": frozenset({JobState.READY, JobState.IMPORTED}),
    "FAILED": frozenset({JobState.FAILED, JobState.CANCELLED, JobState.OUTCOME_UNKNOWN, JobState.TIMED_OUT}),
}

_KEY_SHAPE = re.compile(r"[A-Za-z0-9]+_live_\S{8,}")


def shown_by_filter(state: JobState, filter_value: str) -> bool:
    """Whether a job in ``state`` is listed under the filter ('ALL' shows every job)."""
    return filter_value == "ALL" or state in FILTER_STATES.get(filter_value, frozenset())


def format_eta(seconds: int | None) -> str:
    """'about 40 s left' / 'about 3 min left'; empty when the service gave no estimate."""
    if seconds is None or seconds < 0:
        return ""
    if seconds < 60:
        return f"about {max(seconds, 1)} s left"
    return f"about {round(seconds / 60)} min left"


def remaining_seconds(job: Job, now: float | None = None) -> int | None:
    """Seconds a running job probably still needs, or None when there is nothing to go on.

    The service's ``eta_seconds`` (image jobs) counts from the submit; without it, or once it has
    passed, the pace so far is extrapolated from the progress.
    """
    if job.submitted_at is None:
        return None
    elapsed = (time.time() if now is None else now) - job.submitted_at
    if job.eta_seconds is not None and job.eta_seconds > elapsed:
        return round(job.eta_seconds - elapsed)
    if 0 < job.progress < 100:
        return round(elapsed * (100 - job.progress) / job.progress)
    return None


#: Notes this short fit inside a progress bar as they are ("Sending", "Downloading 40%").
BAR_CHARS = 20
#: The end of a note saying when the next attempt comes ("… Trying again in 2 s.").
_NEXT_TRY = re.compile(r"\bin (\d+) s\.?$")
_DEFAULT_BAR = {
    JobState.SUBMITTING: "Sending",
    JobState.QUEUED: "Queued",
    JobState.DOWNLOADING: "Downloading",
}


def progress_text(job: Job, now: float | None = None) -> str:
    """The few words inside the progress bar of an active job; a longer note goes below it."""
    next_try = _NEXT_TRY.search(job.note)
    if next_try:
        return f"Waiting {next_try[1]} s"
    if job.note and len(job.note) <= BAR_CHARS:
        return job.note
    if job.note.startswith("Waiting"):
        return "Waiting"
    if job.state is not JobState.RUNNING:
        return _DEFAULT_BAR.get(job.state, job.state.value.capitalize())
    eta = format_eta(remaining_seconds(job, now))
    percent = f"{job.progress:.0f}%"
    return f"{percent} · {eta}" if eta else percent


def progress_sentence(job: Job) -> str:
    """What an active job's bar cannot carry: its note in full (why it waits), or empty."""
    if not job.state.is_active or job.note == progress_text(job):
        return ""
    return job.note


def status_text(job: Job, now: float | None = None, *, here: bool = False, origin: str = "") -> str:
    """One short phrase for a job's state.

    For an imported job, where its result is: ``here`` says an object of it is in the open
    .blend, ``origin`` is that .blend's identity (``operators.runtime.current_origin``).
    """
    if job.state.is_active:
        return progress_text(job, now)
    if job.state is JobState.READY:
        return "Ready to import"
    if job.state is JobState.IMPORTED:
        return imported_text(job, here=here, origin=origin)
    return {
        JobState.FAILED: "Failed",
        JobState.CANCELLED: "Cancelled",
        JobState.OUTCOME_UNKNOWN: "Outcome unknown",
        JobState.TIMED_OUT: "Timed out",
    }[job.state]


def imported_text(job: Job, *, here: bool, origin: str) -> str:
    """Where an imported job's result is: "In the scene" only when it is in the open file."""
    into = job.imported_into
    if here:
        return "In the scene"
    if not into:
        return "Imported in another session"
    if into == origin:
        return "Imported into this file, since removed"
    if into.startswith(UNSAVED_PREFIX):
        return "Imported into a file that was not saved"
    # An identity is a real path of this system (or another's, in a shared job list).
    name = PureWindowsPath(into).name if "\\" in into else PurePosixPath(into).name
    return f"Imported into {name}"


def triangles_text(job: Job) -> str:
    """'6,144 triangles' for a finished mesh; empty when the service did not say."""
    return f"{job.triangles:,} triangles" if job.triangles else ""


def key_hint(key: str) -> str:
    """A hint when a key does not look like ``<prefix>_live_<random>``; empty when it does (or is empty)."""
    key = key.strip()
    if not key or _KEY_SHAPE.fullmatch(key):
        return ""
    return (
        "This does not look like a live secret key (<prefix>_live_…). "
        "Check that you copied the whole secret key; Kiln will still try it"
    )


def human_size(size: int) -> str:
    """Bytes as an artist reads them: '512 B', '12.3 MB'."""
    units = ("B", "KB", "MB", "GB")
    value, index = float(size), 0
    while value >= 1000 and index < len(units) - 1:
        value, index = value / 1000, index + 1
    return f"{size} B" if index == 0 else f"{value:.1f} {units[index]}"
