"""What the artist reads about a damaged job list: plain words and a count, from the catalogue.

The folder of the backup, the file names, what exactly was wrong with which file and how many pages
the log gave back go to the details and the console log (``store``); the panel and the status bar
get these sentences. The backup's folder also rides along as a value, for the panel's Show the Copy
button (never in the sentence).
"""

from __future__ import annotations

from pathlib import Path

from ..words import Message, message
from ..words import catalogue as words
from .store_files import DamageKind

#: What happened, by kind of damage (:data:`store_files.DamageKind`).
HAPPENED: dict[DamageKind, str] = {
    "emptied": words.JOB_LIST_EMPTIED,
    "deleted": words.JOB_LIST_DELETED,
    "cut short": words.JOB_LIST_CUT_SHORT,
    "overwritten": words.JOB_LIST_OVERWRITTEN,
    "log": words.JOB_LIST_LOG_DAMAGED,
    "unreadable": words.JOB_LIST_UNREADABLE,
    "foreign": words.JOB_LIST_FOREIGN,
}


def recovered(kind: DamageKind, folder: Path, count: int) -> Message:
    """Damage found, kept and (partly) undone: said once, in the panel and the status bar."""
    return _kept(message(HAPPENED[kind]), folder, count)


def old_list_recovered(folder: Path, count: int) -> Message:
    """An old ``jobs.json`` that could not be read whole, moved into the list once."""
    return _kept(message(words.OLD_JOB_LIST_DAMAGED), folder, count)


def _kept(happened: Message, folder: Path, count: int) -> Message:
    """The sentence, with the copy's folder as a value (the panel's Show the Copy opens it)."""
    details = f"the copy is kept in {folder}"
    if count:
        return message(
            words.JOB_LIST_KEPT, details=details, happened=happened, n=count, copy_folder=str(folder)
        )
    return message(words.JOB_LIST_KEPT_NOTHING, details=details, happened=happened, copy_folder=str(folder))


def in_use(kind: DamageKind) -> Message:
    """Damage found while another Blender has the list open: nothing is moved, Kiln does not start."""
    return message(words.JOB_LIST_IN_USE, happened=message(HAPPENED[kind]))
