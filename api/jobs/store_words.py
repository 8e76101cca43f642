"""What the artist reads about a damaged job list: plain words, the folder of the backup, a count.

The file names, what exactly was wrong with which file and how many pages the log gave back go to
the console log (``store``); the panel and the status bar get these sentences.
"""

from __future__ import annotations

from pathlib import Path

from .store_files import DamageKind

#: What happened, by kind of damage (:data:`store_files.DamageKind`).
HAPPENED: dict[DamageKind, str] = {
    "emptied": "Kiln's job list was emptied by something outside Kiln.",
    "deleted": "Kiln's job list was deleted by something outside Kiln; only its latest changes were left.",
    "cut short": "Kiln's job list was cut short by something outside Kiln.",
    "overwritten": "Kiln's job list was overwritten by something outside Kiln.",
    "log": "The latest changes to Kiln's job list were damaged by something outside Kiln.",
    "unreadable": "Kiln's job list was damaged and could not be read whole.",
    "foreign": "Kiln's job list holds something other than Kiln's jobs.",
}


def jobs(count: int) -> str:
    return "1 job" if count == 1 else f"{count} jobs"


def recovered(kind: DamageKind, folder: Path, count: int) -> str:
    """Damage found, kept and (partly) undone: said once, in the panel and the status bar."""
    return f"{HAPPENED[kind]} {_kept(folder, count)}"


def old_list_recovered(folder: Path, count: int) -> str:
    """An old ``jobs.json`` that could not be read whole, moved into the list once."""
    return f"Kiln's old job list was damaged. {_kept(folder, count)}"


def _kept(folder: Path, count: int) -> str:
    if count:
        return f"Kiln kept a copy of it (in {folder}) and brought back {jobs(count)} from it."
    return f"Kiln kept a copy of it (in {folder}), but could bring back no job from it."


def in_use(kind: DamageKind) -> str:
    """Damage found while another Blender has the list open: nothing is moved, Kiln does not start."""
    return (
        f"{HAPPENED[kind]} Another Blender is still using it, so Kiln leaves it as it is and nothing "
        "in it is lost. Close the other Blender, then use Kiln here again."
    )
