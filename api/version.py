"""Kiln's own version, read from the manifest it ships with (requests tell it, files record it)."""

from __future__ import annotations

import functools
import tomllib
from pathlib import Path

#: The manifest at the add-on's root (this module is ``api/version.py``).
MANIFEST = Path(__file__).resolve().parents[1] / "blender_manifest.toml"


@functools.cache
def kiln_version() -> str:
    """The add-on's version from ``blender_manifest.toml`` ("unknown" when it cannot be read)."""
    try:
        with MANIFEST.open("rb") as f:
            return str(tomllib.load(f).get("version", "unknown"))
    except (OSError, tomllib.TOMLDecodeError):
        return "unknown"
