"""The Kiln asset library's index: which request made which .blend, so lookups never open a .blend.

A key is a hash of what the service was asked: the normalised prompt (casefolded, whitespace
collapsed) with the options that change the result (resolution, provider, quality), or the
image's bytes (sha256) with the resolution. An image given by URL has no key (the bytes behind a
URL can change).

A team shares one library folder (a network share, several machines and user accounts), and file
locks are not honoured everywhere a share can live (SMB and NFS setups differ, FUSE mounts ignore
them). So nothing here locks: each entry is a file of its own in ``kiln_index/``, named from the
request's key, written whole under a temporary name (hidden, ending ``.tmp``; readers skip such
names) and renamed into place, which every local and network file system does atomically. Two
Kilns adding at once write two different files, so no entry is lost; a lookup reads the one file
its key names. The single ``kiln_library.json`` of earlier Kilns is still read, never written.

An entry or index written by a newer Kiln (a higher ``format``) is not read and never changed;
damaged ones are left as they are (the .blend files stay). Either is said once, in ``problems``.
Also here: the catalog file Blender reads (``blender_assets.cats.txt``), one catalog per day, with
ids every Blender agrees on.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import time
import uuid
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from ..errors import StorageError
from ..jobs import JobKind, JobRequest
from ..services import info, old_records_service
from ..words import Message, message
from ..words import catalogue as words
from .library_folder import is_temp_name, write_whole

log = logging.getLogger(__name__)

#: The one-file index of earlier Kilns: read for their entries, never written.
INDEX_FILE = "kiln_library.json"
INDEX_FORMAT = 1
#: One small JSON file per entry, named by ``entry_file_name``.
ENTRIES_DIR = "kiln_index"
ENTRY_FORMAT = 1
CATALOG_FILE = "blender_assets.cats.txt"
#: Tries to get a catalog line into the shared catalog file while other Kilns rewrite it.
CATALOG_TRIES = 5
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
    """The key of an identical request, or None when the request cannot be matched (a URL, a task).

    The same prompt or image on another service, tier or options is another request; the interface
    service's keys are what they always were (so its library keeps matching). Several views of one
    object are never matched (the library keeps requests of one image)."""
    if request.views:
        return None
    if request.kind is JobKind.TEXT:
        parts = [
            normalise_prompt(request.prompt),
            request.resolution or 0,
            request.provider.strip().casefold(),
            request.quality.strip().casefold(),
        ]
        if request.service_id != old_records_service():
            parts += [request.service_id, request.tier_id, request.options]
        return "text:" + hashlib.sha256(json.dumps(parts).encode()).hexdigest()
    if request.kind is JobKind.IMAGE and image_bytes is not None:
        return image_digest_key(hashlib.sha256(image_bytes).hexdigest(), request)
    return None


def image_digest_key(sha256_hex: str, request: JobRequest) -> str:
    """The key of an image request from its bytes' sha256 (the old records' service's keys name its
    resolution, its default where none was asked, as they always did)."""
    if request.service_id == old_records_service():
        resolution = request.resolution or info(request.service_id).capabilities.image_default
        return f"image:{sha256_hex}:{resolution}"
    return f"image:{sha256_hex}:{request.service_id}:{request.tier_id}:{request.options}"


def image_key(request: JobRequest) -> str | None:
    """``request_key`` reading the image file (a few MB at most: the inputs check capped it)."""
    if request.kind is JobKind.IMAGE and request.image_path and not request.views:
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


ENTRY_FIELDS = tuple(f.name for f in fields(Entry))


def blend_name(job_id: str, label: str) -> str:
    """A file name from Kiln's own job id (never the service's) and a readable slug of the label."""
    slug = re.sub(r"[^A-Za-z0-9]+", "_", label).strip("_")[:40] or "result"
    return f"{slug}_{job_id}.blend"


@dataclass(frozen=True)
class Shelf:
    """Where a result goes in the library: its .blend, and the index entry that finds it again."""

    path: Path
    #: None for a request the library cannot recognise again (a followed task, an unreadable image).
    entry: Entry | None


def shelf(folder: Path, job_id: str, request: JobRequest, task_id: str, now: float) -> Shelf:
    """The result's place in ``folder``: a file named by Kiln (never the service), and its entry."""
    path = folder / blend_name(job_id, request.label)
    key = image_key(request)
    return Shelf(path, Entry(key, path.name, request.label, task_id, now) if key else None)


def entry_file_name(key: str) -> str:
    """The entry file of a request key (a hash: keys hold characters no file system should see)."""
    return hashlib.sha256(key.encode()).hexdigest()[:40] + ".json"


class LibraryIndex:
    """The index of one library folder: an entry file per request, plus the read-only legacy file."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.entries_dir = folder / ENTRIES_DIR
        self.legacy_path = folder / INDEX_FILE
        #: Sentences for the artist, each said once per session and folder (the folder and the
        #: file are in their details).
        self.problems: list[Message] = []
        self._said: set[str] = set()
        self._legacy_stamp: tuple[int, int] | None = None
        self._legacy: dict[str, Entry] = {}

    def lookup(self, key: str | None) -> Entry | None:
        """The library's copy of an identical request, if its .blend is still there (reads one file)."""
        if not key:
            return None
        entry = self._read_entry(self.entries_dir / entry_file_name(key)) or self._legacy_entries().get(key)
        if entry is None or entry.key != key or not (self.folder / entry.blend).is_file():
            return None
        return entry

    def entries(self) -> dict[str, Entry]:
        """Every entry by key (reads the whole folder: for listings and checks, not per draw)."""
        found = dict(self._legacy_entries())
        try:
            paths = sorted(self.entries_dir.iterdir())
        except OSError:
            paths = []
        for path in paths:
            if path.name.endswith(".json") and not is_temp_name(path.name):
                entry = self._read_entry(path)
                if entry is not None:
                    found[entry.key] = entry
        return found

    def add(self, entry: Entry) -> None:
        """Record ``entry`` in a file of its own (raises StorageError when the folder cannot be written).

        An entry a newer Kiln wrote for the same request stays as it is.
        """
        path = self.entries_dir / entry_file_name(entry.key)
        if self._newer(path):
            return
        try:
            self.entries_dir.mkdir(exist_ok=True)
        except OSError as exc:
            raise StorageError(self.entries_dir, exc) from None
        data = {"format": ENTRY_FORMAT, **asdict(entry)}
        write_whole(path, json.dumps(data, indent=1).encode())

    def _read_entry(self, path: Path) -> Entry | None:
        data = self._read_json(path)
        if data is None:
            return None
        if _format(data) > ENTRY_FORMAT:
            self._say("newer", f"{path.name} was written by a newer Kiln")
            return None
        return self._entry(data, path)

    def _newer(self, path: Path) -> bool:
        data = self._read_json(path, quiet=True)
        return data is not None and _format(data) > ENTRY_FORMAT

    def _legacy_entries(self) -> dict[str, Entry]:
        """The entries of the one-file index (parsed again only when the file changed)."""
        try:
            st = self.legacy_path.stat()
        except OSError:
            self._legacy_stamp, self._legacy = None, {}
            return self._legacy
        stamp = (st.st_mtime_ns, st.st_size)
        if stamp != self._legacy_stamp:
            self._legacy_stamp, self._legacy = stamp, self._read_legacy()
        return self._legacy

    def _read_legacy(self) -> dict[str, Entry]:
        data = self._read_json(self.legacy_path)
        if data is None:
            return {}
        if _format(data) > INDEX_FORMAT:
            self._say("newer", f"{self.legacy_path.name} was written by a newer Kiln")
            return {}
        items = data.get("entries")
        if not isinstance(items, list):
            self._say("damaged", self.legacy_path.name)
            return {}
        found = (self._entry(item, self.legacy_path) for item in items)
        return {e.key: e for e in found if e is not None}

    def _read_json(self, path: Path, *, quiet: bool = False) -> dict[str, object] | None:
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except OSError as exc:
            if not quiet:
                self._say("unreadable", f"{path.name} ({exc.strerror or exc})")
            return None
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        if not isinstance(data, dict):
            if not quiet:
                self._say("damaged", path.name)
            return None
        return data

    def _entry(self, data: object, path: Path) -> Entry | None:
        texts = [data.get(name) for name in ENTRY_FIELDS[:4]] if isinstance(data, dict) else []
        created = data.get("created") if isinstance(data, dict) else None
        key, blend, label, task_id = [t if isinstance(t, str) else "" for t in texts] or ["", "", "", ""]
        if not key or not blend or Path(blend).name != blend or not isinstance(created, int | float):
            self._say("damaged", path.name)
            return None
        return Entry(key, blend, label, task_id, float(created))

    def _say(self, kind: str, detail: str) -> None:
        """One sentence per kind of problem and folder, logged and kept for the artist."""
        if kind in self._said:
            return
        self._said.add(kind)
        said = message(_PROBLEMS[kind], details=f"{self.folder}: {detail}")
        log.warning("%s (%s)", said, said.details)
        self.problems.append(said)


#: What is wrong with a library's index, by kind.
_PROBLEMS = {
    "newer": words.LIBRARY_INDEX_NEWER,
    "damaged": words.LIBRARY_INDEX_DAMAGED,
    "unreadable": words.LIBRARY_INDEX_UNREADABLE,
}


def _format(data: dict[str, object]) -> int:
    value = data.get("format", 1)
    return value if isinstance(value, int) else 1 << 30  # a format Kiln cannot name is not one it knows


def catalog_id_of(path: str) -> str:
    """The id of catalog ``path``: the same on every machine, so an asset can carry it before the
    catalog file has the line."""
    return str(uuid.uuid5(CATALOG_NAMESPACE, path))


def ensure_catalog(folder: Path, path: str) -> str:
    """The id of catalog ``path`` (e.g. "Kiln/2026-11-22"), added to the catalog file if missing.

    Blender reads one catalog file, so it is rewritten whole; another Kiln rewriting it at the same
    moment may drop the new line, so the file is read again and the line added again until it
    stays. A line still lost is added by the next result of that day; the id never changes.
    """
    catalog_id = catalog_id_of(path)
    file = folder / CATALOG_FILE
    for _ in range(CATALOG_TRIES):
        try:
            text = file.read_text(encoding="utf-8")
        except FileNotFoundError:
            text = CATALOG_HEADER
        if any(line.split(":", 1)[0] == catalog_id for line in text.splitlines()):
            return catalog_id
        simple = path.replace("/", "-")
        write_whole(file, (text.rstrip("\n") + f"\n{catalog_id}:{path}:{simple}\n").encode())
    log.warning("Catalog %s is not in %s yet (other Kilns kept rewriting it)", path, file)
    return catalog_id
