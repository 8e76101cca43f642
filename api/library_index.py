"""The Kiln asset library's index: which request made which .blend, so lookups never open a .blend.

One JSON file in the library folder maps a request's key to its entry. A key is a hash of what
the service was asked: the normalised prompt (casefolded, whitespace collapsed) with the options
that change the result (resolution, provider, quality), or the image's bytes (sha256) with the
resolution. An image given by URL has no key (the bytes behind a URL can change).

Several Blenders share the folder: every write reads the file again, adds one entry and
replaces the file atomically. A damaged index is kept as a timestamped backup and a fresh one
started (the .blend files stay; the sentence is in ``problems``). Also here: the catalog file
Blender reads (``blender_assets.cats.txt``), one catalog per day, with ids every Blender agrees on.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import time
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path

from . import fs
from .jobs import JobKind, JobRequest

log = logging.getLogger(__name__)

INDEX_FILE = "kiln_library.json"
CATALOG_FILE = "blender_assets.cats.txt"
INDEX_FORMAT = 1
#: uuid5 namespace of Kiln's catalogs: the same path gives the same id in every Blender.
CATALOG_NAMESPACE = uuid.UUID("6b1f3c52-6f2e-4b53-9a7e-2d0c1e6a4b11")
CATALOG_HEADER = (
    "# This is an Asset Catalog Definition file for Blender.\n"
    "#\n"
    "# Empty lines and lines starting with `#` will be ignored.\n"
    "# The first non-ignored line should be the version indicator.\n"
    '# Other lines are of the format "UUID:catalog/path/for/assets:simple catalog name"\n'
    "\n"
    "VERSION 1\n"
    "\n"
)


def normalise_prompt(prompt: str) -> str:
    return " ".join(prompt.split()).casefold()


def request_key(request: JobRequest, image_bytes: bytes | None = None) -> str | None:
    """The key of an identical request, or None when the request cannot be matched (a URL, a task)."""
    if request.kind is JobKind.TEXT:
        parts = [
            normalise_prompt(request.prompt),
            request.resolution or 0,
            request.provider.strip().casefold(),
            request.quality.strip().casefold(),
        ]
        return "text:" + hashlib.sha256(json.dumps(parts).encode()).hexdigest()
    if request.kind is JobKind.IMAGE and image_bytes is not None:
        return image_digest_key(hashlib.sha256(image_bytes).hexdigest(), request.resolution)
    return None


def image_digest_key(sha256_hex: str, resolution: int | None) -> str:
    """The key of an image request from its bytes' sha256 (1536 is the service's default)."""
    return f"image:{sha256_hex}:{resolution or 1536}"


def image_key(request: JobRequest) -> str | None:
    """``request_key`` reading the image file (a few MB at most: the inputs check capped it)."""
    if request.kind is JobKind.IMAGE and request.image_path:
        try:
            return request_key(request, Path(request.image_path).read_bytes())
        except OSError:
            return None
    return request_key(request)


@dataclass(frozen=True)
class Entry:
    """One result in the library."""

    key: str
    blend: str  # a file name inside the library folder
    label: str
    task_id: str
    created: float

    @property
    def date(self) -> str:
        return time.strftime("%Y-%m-%d", time.localtime(self.created))


def blend_name(job_id: str, label: str) -> str:
    """A file name from Kiln's own job id (never the service's) and a readable slug of the label."""
    slug = re.sub(r"[^A-Za-z0-9]+", "_", label).strip("_")[:40] or "result"
    return f"{slug}_{job_id}.blend"


class LibraryIndex:
    """The index of one library folder, read again only when the file changed."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.path = folder / INDEX_FILE
        self.problems: list[str] = []
        self._stamp: tuple[int, int] | None = None
        self._entries: dict[str, Entry] = {}

    def entries(self) -> dict[str, Entry]:
        """Every entry by key (a stat call; the file is parsed only when it changed)."""
        try:
            st = self.path.stat()
        except OSError:
            self._stamp, self._entries = None, {}
            return self._entries
        stamp = (st.st_mtime_ns, st.st_size)
        if stamp != self._stamp:
            self._entries = self._read()
            self._stamp = stamp
        return self._entries

    def lookup(self, key: str | None) -> Entry | None:
        """The library's copy of an identical request, if its .blend is still there."""
        entry = self.entries().get(key) if key else None
        if entry is None or not (self.folder / entry.blend).is_file():
            return None
        return entry

    def add(self, entry: Entry) -> None:
        """Record ``entry`` (raises StorageError when the folder cannot be written)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        entries = {**self._read(), entry.key: entry}
        data = {"format": INDEX_FORMAT, "entries": [asdict(e) for e in entries.values()]}
        temp = self.path.with_name(f"{INDEX_FILE}.{os.getpid()}.tmp")
        temp.write_text(json.dumps(data, indent=1), encoding="utf-8")
        fs.replace(temp, self.path)
        self._stamp = None

    def _read(self) -> dict[str, Entry]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except OSError as exc:
            log.warning("Could not read the library index %s: %s", self.path, exc)
            return {}
        try:
            data = json.loads(text)
            if int(data.get("format", INDEX_FORMAT)) > INDEX_FORMAT:
                raise ValueError("index of a newer Kiln")
            return {e["key"]: Entry(**e) for e in data["entries"]}
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            return self._back_up(exc)

    def _back_up(self, exc: Exception) -> dict[str, Entry]:
        backup = self.path.with_name(f"{INDEX_FILE}.damaged-{time.strftime('%Y%m%d-%H%M%S')}")
        try:
            fs.replace(self.path, backup)
        except OSError:
            backup = self.path
        log.warning("The library index %s is damaged (%s); kept as %s", self.path, exc, backup)
        self.problems.append(
            f"Kiln's library index was damaged and was kept as {backup.name}; "
            "results generated before are no longer offered for reuse."
        )
        return {}


def ensure_catalog(folder: Path, path: str) -> str:
    """The id of catalog ``path`` (e.g. "Kiln/2026-11-22"), added to the catalog file if missing."""
    catalog_id = str(uuid.uuid5(CATALOG_NAMESPACE, path))
    file = folder / CATALOG_FILE
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = CATALOG_HEADER
    if any(line.split(":", 1)[0] == catalog_id for line in text.splitlines()):
        return catalog_id
    folder.mkdir(parents=True, exist_ok=True)
    simple = path.replace("/", "-")
    temp = file.with_name(f"{CATALOG_FILE}.{os.getpid()}.tmp")
    temp.write_text(text.rstrip("\n") + f"\n{catalog_id}:{path}:{simple}\n", encoding="utf-8")
    fs.replace(temp, file)
    return catalog_id
