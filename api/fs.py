"""Renames and deletes that hold up on Windows.

Antivirus scanners, search indexers, backup and sync tools, and other Blenders open files for a
moment; while they do, Windows refuses to rename or delete them (PermissionError, "the process
cannot access the file because it is being used by another process"). Such a lock lasts
milliseconds to a second, so a short retry gets through; past that the caller gets a StorageError
naming the file. These helpers sleep between attempts: call them from worker threads, or where a
second's wait is acceptable.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .errors import StorageError

log = logging.getLogger(__name__)

#: About 1.5 s in all: longer than a virus scan of a small file, short enough to report soon.
RETRY_DELAYS = (0.05, 0.1, 0.2, 0.4, 0.75)


def replace(source: Path, target: Path) -> None:
    """``source`` becomes ``target`` atomically (an existing target is replaced)."""
    _retrying(lambda: source.replace(target), target)


def unlink(path: Path) -> None:
    """Delete ``path`` if it exists."""
    _retrying(lambda: path.unlink(missing_ok=True), path)


def discard(path: Path) -> bool:
    """Delete a leftover Kiln made (a helper's .blend, a stale cache file): retried, then logged.

    For files whose removal is tidying, not correctness: a lock that outlasts the retries leaves
    the file for the next clean-up instead of failing the work that made it. True when gone.
    """
    try:
        unlink(path)
    except StorageError as exc:
        log.warning("%s", exc.user_message)
        return False
    return True


def _retrying(action: Callable[[], Any], path: Path) -> None:
    for delay in (*RETRY_DELAYS, None):
        try:
            action()
            return
        except PermissionError as exc:
            if delay is None:
                raise StorageError(path, exc, locked=True) from None
            log.debug("%s is locked (%s); trying again in %.2f s", path, exc, delay)
            time.sleep(delay)
        except OSError as exc:
            raise StorageError(path, exc) from None
