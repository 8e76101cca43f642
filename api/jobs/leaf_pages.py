"""Rows read straight out of SQLite's table pages, for when the database around them is gone.

A store emptied or deleted after years of use has its first page (the schema: where each table
starts) in the main file, which is gone; the write-ahead log holds only the pages the last changes
touched, such as the page with the job Blender had just recorded. SQLite cannot open pages without
their schema, but each table leaf page carries whole rows
(https://www.sqlite.org/fileformat2.html#b_tree_pages): a header, an array of cell offsets, and per
cell the payload size, the rowid and the record (a header of column types, then the values). Here
those rows are read back, every value checked against the page's bounds; what the rows mean is the
caller's business (``recovery``).
"""

from __future__ import annotations

import struct
from collections.abc import Iterator, Mapping

Value = int | float | str | bytes | None

TABLE_LEAF = 0x0D
#: The first page starts with the 100-byte database header; its b-tree header follows it.
FIRST_PAGE_HEADER = 100


def rows(pages: Mapping[int, bytes], page_size: int) -> Iterator[list[Value]]:
    """The records of every table leaf page in ``pages`` (page number → bytes); a record whose
    payload runs on into overflow pages is read through them when ``pages`` has them all."""
    for number, page in pages.items():
        start = FIRST_PAGE_HEADER if number == 1 else 0
        if len(page) != page_size or page[start] != TABLE_LEAF:
            continue
        cells = int.from_bytes(page[start + 3 : start + 5], "big")
        for i in range(min(cells, page_size // 4)):
            at = start + 8 + 2 * i
            try:
                payload = _payload(page, int.from_bytes(page[at : at + 2], "big"), pages, page_size)
                if payload is not None:
                    yield _record(payload)
            except (IndexError, ValueError, UnicodeDecodeError, struct.error):
                continue


def _payload(page: bytes, offset: int, pages: Mapping[int, bytes], page_size: int) -> bytes | None:
    if not 8 <= offset < len(page):
        return None
    size, at = _varint(page, offset)
    _rowid, at = _varint(page, at)
    usable = page_size
    most = usable - 35
    if size <= most:
        local = size
    else:
        least = (usable - 12) * 32 // 255 - 23
        local = least + (size - least) % (usable - 4)
        local = local if local <= most else least
    if at + local > len(page) or size > len(pages) * page_size:
        return None
    data = bytearray(page[at : at + local])
    if local == size:
        return bytes(data)
    next_page = int.from_bytes(page[at + local : at + local + 4], "big")
    seen: set[int] = set()
    while len(data) < size:
        overflow = pages.get(next_page)
        if overflow is None or next_page in seen or len(overflow) != page_size:
            return None
        seen.add(next_page)
        data += overflow[4 : 4 + min(usable - 4, size - len(data))]
        next_page = int.from_bytes(overflow[:4], "big")
    return bytes(data)


def _record(payload: bytes) -> list[Value]:
    """A record's values (https://www.sqlite.org/fileformat2.html#record_format)."""
    header_size, at = _varint(payload, 0)
    if not 0 < header_size <= len(payload):
        raise ValueError("a record header outside its payload")
    types = []
    while at < header_size:
        kind, at = _varint(payload, at)
        types.append(kind)
    values: list[Value] = []
    body = header_size
    for kind in types:
        value, body = _value(payload, body, kind)
        values.append(value)
    if body != len(payload):
        raise ValueError("a record that does not fill its payload")
    return values


_INTEGER_BYTES = {1: 1, 2: 2, 3: 3, 4: 4, 5: 6, 6: 8}


def _value(payload: bytes, at: int, kind: int) -> tuple[Value, int]:
    if kind == 0:
        return None, at
    if kind in _INTEGER_BYTES:
        end = at + _INTEGER_BYTES[kind]
        if end > len(payload):
            raise ValueError("an integer past the payload")
        return int.from_bytes(payload[at:end], "big", signed=True), end
    if kind == 7:
        return struct.unpack(">d", payload[at : at + 8])[0], at + 8
    if kind in (8, 9):
        return kind - 8, at
    if kind >= 12:
        end = at + (kind - 12) // 2
        if end > len(payload):
            raise ValueError("a value past the payload")
        chunk = payload[at:end]
        return (chunk.decode("utf-8") if kind % 2 else bytes(chunk)), end
    raise ValueError(f"a column type SQLite does not write ({kind})")


def _varint(data: bytes, at: int) -> tuple[int, int]:
    """SQLite's variable-length integer at ``at``: its value and the offset after it."""
    value = 0
    for i in range(8):
        byte = data[at + i]
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, at + i + 1
    return (value << 8) | data[at + 8], at + 9
