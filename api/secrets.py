"""The API key's home on disk: a private file beside the job list, never inside a .blend.

Blender saves add-on preferences into ``userpref.blend``; keeping the key in its own file
(mode 0600) means no .blend, user preferences included, ever carries it.
"""

from __future__ import annotations

import os
from pathlib import Path

KEY_FILE_NAME = "api_key"


def read_key(directory: Path) -> str:
    """The stored key, or an empty string when none was saved."""
    try:
        return (directory / KEY_FILE_NAME).read_text(encoding="utf-8").strip()
    except OSError:
        return ""


def write_key(directory: Path, key: str) -> None:
    """Store (or, for an empty key, forget) the key with owner-only permissions."""
    path = directory / KEY_FILE_NAME
    key = key.strip()
    if not key:
        path.unlink(missing_ok=True)
        return
    directory.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(key)
        fh.flush()
        os.fsync(fh.fileno())
    tmp.replace(path)
