"""The words the Sidebar and the preferences show for a job, a key and a size (no bpy: easy to test).

Each is a catalogue ``Message`` (said in the artist's language by ``language.said``); a size is a
number with its unit.
"""

from __future__ import annotations

import re
import time
from pathlib import PurePosixPath, PureWindowsPath

from .api.jobs import Job, JobState
from .api.paths import UNSAVED_PREFIX
from .api.words import Message, message
from .api.words import catalogue as words

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


def format_eta(seconds: int | None) -> Message | None:
    """'about 40 s left' / 'about 3 min left'; None when the service gave no estimate."""
    if seconds is None or seconds < 0:
        return None
    if seconds < 60:
        return message(words.LEFT_SECONDS, seconds=max(seconds, 1))
    return message(words.LEFT_MINUTES, minutes=round(seconds / 60))


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


#: Notes short enough to be the words inside a progress bar as they are.
_BAR_NOTES = frozenset({"NOTE_SENDING", "NOTE_DOWNLOADING", "NOTE_PREPARING"})
#: Notes saying when the next attempt comes: the bar counts down, the note goes below.
_NEXT_TRY_NOTES = frozenset({"NOTE_TRYING_AGAIN", "NOTE_DOWNLOAD_TRYING_AGAIN"})
_DEFAULT_BAR = {
    JobState.SUBMITTING: words.NOTE_SENDING,
    JobState.QUEUED: words.BAR_QUEUED,
    JobState.DOWNLOADING: words.BAR_DOWNLOADING,
    JobState.RUNNING: words.BAR_RUNNING,
}


def progress_text(job: Job, now: float | None = None) -> Message:
    """The few words inside the progress bar of an active job; a longer note goes below it."""
    note = job.note_message
    if note is not None and note.name in _NEXT_TRY_NOTES:
        return message(words.BAR_WAITING_SECONDS, seconds=note.values.get("seconds", ""))
    if note is not None and note.name in _BAR_NOTES:
        return note
    if note is not None and note.name.startswith("NOTE_WAITING"):
        return message(words.BAR_WAITING)
    if job.state is not JobState.RUNNING or job.progress <= 0:
        return message(_DEFAULT_BAR.get(job.state, words.BAR_RUNNING))
    left = format_eta(remaining_seconds(job, now))
    percent = f"{job.progress:.0f}"
    if left is None:
        return message(words.BAR_PERCENT, percent=percent)
    return message(words.BAR_PERCENT_LEFT, percent=percent, left=left)


def progress_sentence(job: Job) -> Message | None:
    """What an active job's bar cannot carry: its note in full (why it waits), or None."""
    note = job.note_message
    if not job.state.is_active or note is None or note == progress_text(job):
        return None
    return note


_STATE_WORDS = {
    JobState.READY: words.STATE_READY,
    JobState.FAILED: words.STATE_FAILED,
    JobState.CANCELLED: words.STATE_CANCELLED,
    JobState.OUTCOME_UNKNOWN: words.STATE_OUTCOME_UNKNOWN,
    JobState.TIMED_OUT: words.STATE_TIMED_OUT,
}


def status_text(job: Job, now: float | None = None, *, here: bool = False, origin: str = "") -> Message:
    """One short phrase for a job's state.

    For an imported job, where its result is: ``here`` says an object of it is in the open
    .blend, ``origin`` is that .blend's identity (``operators.runtime.current_origin``).
    """
    if job.state.is_active:
        return progress_text(job, now)
    if job.state is JobState.IMPORTED:
        return imported_text(job, here=here, origin=origin)
    return message(_STATE_WORDS[job.state])


def imported_text(job: Job, *, here: bool, origin: str) -> Message:
    """Where an imported job's result is: "In the scene" only when it is in the open file."""
    into = job.imported_into
    if here:
        return message(words.IMPORTED_HERE)
    if not into:
        return message(words.IMPORTED_OTHER_SESSION)
    if into == origin:
        return message(words.IMPORTED_SINCE_REMOVED)
    if into.startswith(UNSAVED_PREFIX):
        return message(words.IMPORTED_UNSAVED)
    # An identity is a real path of this system (or another's, in a shared job list).
    name = PureWindowsPath(into).name if "\\" in into else PurePosixPath(into).name
    return message(words.IMPORTED_INTO, name=name)


def triangles_text(job: Job) -> Message | None:
    """'6,144 triangles' for a finished mesh; None when the service did not say."""
    return message(words.TRIANGLE_COUNT, n=job.triangles) if job.triangles else None


def key_hint(key: str) -> str:
    """A hint when a key does not look like ``<prefix>_live_<random>``; empty when it does (or is empty)."""
    key = key.strip()
    if not key or _KEY_SHAPE.fullmatch(key):
        return ""
    return words.KEY_LOOKS_ODD


def human_size(size: int) -> str:
    """Bytes as an artist reads them: '512 B', '12.3 MB'."""
    units = ("B", "KB", "MB", "GB")
    value, index = float(size), 0
    while value >= 1000 and index < len(units) - 1:
        value, index = value / 1000, index + 1
    return f"{size} B" if index == 0 else f"{value:.1f} {units[index]}"
