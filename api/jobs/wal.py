"""SQLite's write-ahead log (``jobs.sqlite3-wal``), read by Kiln itself, never through SQLite.

SQLite acts on a log the moment it opens the store: it resets a log whose header it rejects, and it
deletes the log outright when the main file is empty or missing. The changes only the log held
(a job sent just before Blender was killed) would go with it. So Kiln judges the log here, from
its bytes (:func:`problem`), and reads the committed pages out of a kept copy (:func:`committed`)
to rebuild the list (:func:`rebuild`).

The format (https://www.sqlite.org/fileformat2.html#walformat): a 32-byte header (magic, format
version, page size, checkpoint sequence, two salts, a checksum of the first 24 bytes), then
frames: a 24-byte frame header (page number, the database size in pages on a commit frame and 0
otherwise, the header's two salts, a running checksum) and one page. A frame counts only while its
salts match the header and the running checksum holds; the first that does not ends the log, and
pages after the last commit frame belong to a transaction that never finished.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Literal

HEADER_BYTES = 32
FRAME_HEADER_BYTES = 24
ByteOrder = Literal["little", "big"]
MAGIC: dict[int, ByteOrder] = {0x377F0682: "little", 0x377F0683: "big"}  # the checksum's byte order
VERSION = 3007000
SQLITE_MAGIC = b"SQLite format 3\x00"
_STRUCT_ORDER = {"little": "<", "big": ">"}


@dataclass
class Committed:
    """What a log's committed transactions hold: the newest copy of each page, and the database size."""

    page_size: int
    pages: dict[int, bytes] = field(default_factory=dict)
    size: int = 0  # in pages, as the last commit frame says; 0 when nothing was committed
    frames: int = 0  # frames read up to the last commit


def problem(header: bytes) -> str | None:
    """Why SQLite would reject a log starting with ``header``, in a few words; None when it would not.

    A log shorter than a header holds no committed change (SQLite writes the header with the first
    change), so there is nothing in it to lose.
    """
    if len(header) < HEADER_BYTES:
        return None
    magic, version, page_size = struct.unpack(">III", header[:12])
    if magic not in MAGIC:
        return "does not start like one"
    if version != VERSION:
        return f"names a format version SQLite does not know ({version})"
    if page_size < 512 or page_size > 65536 or page_size & (page_size - 1):
        return f"names an impossible page size ({page_size})"
    if checksum(header[:24], MAGIC[magic]) != struct.unpack(">II", header[24:32]):
        return "has a header whose checksum is wrong"
    return None


def committed(log: bytes) -> Committed | None:
    """The committed pages of a log, read as SQLite's own recovery reads them; None for a log
    SQLite would reject (or one too short to hold a header)."""
    if len(log) < HEADER_BYTES or problem(log[:HEADER_BYTES]) is not None:
        return None
    page_size = struct.unpack(">I", log[8:12])[0]
    order = MAGIC[struct.unpack(">I", log[:4])[0]]
    salts = log[16:24]
    found = Committed(page_size)
    running = struct.unpack(">II", log[24:32])
    pending: dict[int, bytes] = {}
    frame = FRAME_HEADER_BYTES + page_size
    offset, count = HEADER_BYTES, 0
    while offset + frame <= len(log):
        head = log[offset : offset + FRAME_HEADER_BYTES]
        page = log[offset + FRAME_HEADER_BYTES : offset + frame]
        number, size = struct.unpack(">II", head[:8])
        if number == 0 or head[8:16] != salts:
            break
        running = checksum(head[:8] + page, order, running)
        if running != struct.unpack(">II", head[16:24]):
            break
        pending[number] = page
        count += 1
        if size:
            found.pages.update(pending)
            pending.clear()
            found.size, found.frames = size, count
        offset += frame
    return found


def rebuild(main: bytes, found: Committed | None) -> bytes | None:
    """The database as SQLite would read it from ``main`` and what its log committed (``found``, from
    :func:`committed`), as one file image that needs no log (marked as a rollback-journal
    database); None when it has no page 1.

    The main file's own pages are used where the log has none (and only when its page size agrees
    with the log's); what neither holds stays zeros, for the salvage to step over. A main file cut
    short is padded back to the size its header (or the last commit) names, never past the last page
    there is to read (a garbled header cannot ask for gigabytes).
    """
    base = main if main.startswith(SQLITE_MAGIC) and len(main) >= 100 and page_size_of(main) else b""
    if found is not None and found.size:
        page_size, count = found.page_size, found.size
    elif base:
        page_size = page_size_of(base)
        count = int.from_bytes(base[28:32], "big") or -(-len(base) // page_size)
    else:
        return None
    if base and page_size_of(base) != page_size:
        base = b""
    highest = max(found.pages, default=0) if found is not None else 0
    count = min(count, max(-(-len(base) // page_size), highest))
    image = bytearray(count * page_size)
    image[: min(len(base), len(image))] = base[: len(image)]
    for number, page in (found.pages if found is not None else {}).items():
        if number <= count:
            image[(number - 1) * page_size : number * page_size] = page
    if not image.startswith(SQLITE_MAGIC):
        return None
    image[18:20] = b"\x01\x01"  # rollback journal: the image has no log of its own
    image[28:32] = count.to_bytes(4, "big")
    image[92:96] = image[24:28]  # the size above is valid for this change counter
    return bytes(image)


def checksum(data: bytes, order: ByteOrder, seed: tuple[int, int] = (0, 0)) -> tuple[int, int]:
    """SQLite's log checksum of ``data`` (a multiple of 8 bytes), words read in ``order``, continuing
    from ``seed`` (the previous frame's checksum)."""
    words = struct.unpack(f"{_STRUCT_ORDER[order]}{len(data) // 4}I", data)
    s0, s1 = seed
    for i in range(0, len(words), 2):
        s0 = (s0 + words[i] + s1) & 0xFFFFFFFF
        s1 = (s1 + words[i + 1] + s0) & 0xFFFFFFFF
    return s0, s1


def page_size_of(main: bytes) -> int:
    """The page size a main file's header names; 0 when it names none SQLite allows."""
    value = int.from_bytes(main[16:18], "big")
    value = 65536 if value == 1 else value
    return value if 512 <= value <= 65536 and not value & (value - 1) else 0
