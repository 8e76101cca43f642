"""The review sheet of a batch: one PNG with every result's picture, framed alike, and under each its
name, triangles and verdict; written with numpy and zlib (no imaging library in Blender's Python).

Captions use a built-in 3 x 5 pixel font scaled up (upper case, digits, a little punctuation),
enough for a name and two numbers; the HTML page beside the sheet has the full text.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ...words import catalogue as words
from ...words import english
from . import verdict

TILE = 192
COLUMNS = 8
CAPTION_LINES = 3
GLYPH_SCALE = 2
LINE_HEIGHT = 6 * GLYPH_SCALE
PAD = 6
BACKGROUND = (40, 40, 40)
TEXT = (230, 230, 230)
VERDICT_COLOURS = {
    verdict.READY: (70, 170, 80),
    verdict.CHECK: (220, 170, 40),
    verdict.PROBLEMS: (210, 60, 50),
    "failed": (120, 120, 120),
}

# Each glyph: five rows of three pixels, "#" on.
_FONT: dict[str, tuple[str, ...]] = {
    "A": (".#.", "#.#", "###", "#.#", "#.#"),
    "B": ("##.", "#.#", "##.", "#.#", "##."),
    "C": (".##", "#..", "#..", "#..", ".##"),
    "D": ("##.", "#.#", "#.#", "#.#", "##."),
    "E": ("###", "#..", "##.", "#..", "###"),
    "F": ("###", "#..", "##.", "#..", "#.."),
    "G": (".##", "#..", "#.#", "#.#", ".##"),
    "H": ("#.#", "#.#", "###", "#.#", "#.#"),
    "I": ("###", ".#.", ".#.", ".#.", "###"),
    "J": ("..#", "..#", "..#", "#.#", ".#."),
    "K": ("#.#", "#.#", "##.", "#.#", "#.#"),
    "L": ("#..", "#..", "#..", "#..", "###"),
    "M": ("#.#", "###", "###", "#.#", "#.#"),
    "N": ("##.", "#.#", "#.#", "#.#", "#.#"),
    "O": (".#.", "#.#", "#.#", "#.#", ".#."),
    "P": ("##.", "#.#", "##.", "#..", "#.."),
    "Q": (".#.", "#.#", "#.#", "##.", ".##"),
    "R": ("##.", "#.#", "##.", "#.#", "#.#"),
    "S": (".##", "#..", ".#.", "..#", "##."),
    "T": ("###", ".#.", ".#.", ".#.", ".#."),
    "U": ("#.#", "#.#", "#.#", "#.#", "###"),
    "V": ("#.#", "#.#", "#.#", "#.#", ".#."),
    "W": ("#.#", "#.#", "###", "###", "#.#"),
    "X": ("#.#", "#.#", ".#.", "#.#", "#.#"),
    "Y": ("#.#", "#.#", ".#.", ".#.", ".#."),
    "Z": ("###", "..#", ".#.", "#..", "###"),
    "0": ("###", "#.#", "#.#", "#.#", "###"),
    "1": (".#.", "##.", ".#.", ".#.", "###"),
    "2": ("###", "..#", "###", "#..", "###"),
    "3": ("###", "..#", "###", "..#", "###"),
    "4": ("#.#", "#.#", "###", "..#", "..#"),
    "5": ("###", "#..", "###", "..#", "###"),
    "6": ("###", "#..", "###", "#.#", "###"),
    "7": ("###", "..#", "..#", "..#", "..#"),
    "8": ("###", "#.#", "###", "#.#", "###"),
    "9": ("###", "#.#", "###", "..#", "###"),
    " ": ("...", "...", "...", "...", "..."),
    ".": ("...", "...", "...", "...", ".#."),
    ",": ("...", "...", "...", ".#.", "#.."),
    "-": ("...", "...", "###", "...", "..."),
    ":": ("...", ".#.", "...", ".#.", "..."),
    "/": ("..#", "..#", ".#.", "#..", "#.."),
    "?": ("###", "..#", ".#.", "...", ".#."),
}


def _glyph(char: str) -> NDArray[np.bool_]:
    rows = _FONT.get(char, _FONT["?"])
    return np.array([[c == "#" for c in row] for row in rows])


@dataclass(frozen=True)
class Tile:
    """One result on the sheet: its picture (rows, columns, RGB; None: failed or no picture) and caption."""

    picture: NDArray[np.uint8] | None
    name: str
    triangles: int | None
    verdict: str  # ready / check / problems, or "failed"


def _fit(picture: NDArray[np.uint8], size: int) -> NDArray[np.uint8]:
    """Scale a picture to fit a ``size`` square (nearest texel), centred on the background."""
    height, width = picture.shape[:2]
    scale = size / max(height, width)
    rows = np.minimum((np.arange(max(1, int(height * scale))) / scale).astype(int), height - 1)
    cols = np.minimum((np.arange(max(1, int(width * scale))) / scale).astype(int), width - 1)
    scaled = picture[rows][:, cols, :3]
    out = np.empty((size, size, 3), dtype=np.uint8)
    out[:] = BACKGROUND
    top, left = (size - scaled.shape[0]) // 2, (size - scaled.shape[1]) // 2
    out[top : top + scaled.shape[0], left : left + scaled.shape[1]] = scaled
    return out


def _write(canvas: NDArray[np.uint8], text: str, top: int, left: int, width: int) -> None:
    """Draw ``text`` (upper-cased, cut to fit ``width`` pixels) at (top, left)."""
    advance = 4 * GLYPH_SCALE
    for i, char in enumerate(text.upper()[: max(0, width // advance)]):
        glyph = np.kron(_glyph(char), np.ones((GLYPH_SCALE, GLYPH_SCALE), dtype=bool))
        x = left + i * advance
        region = canvas[top : top + glyph.shape[0], x : x + glyph.shape[1]]
        region[glyph[: region.shape[0], : region.shape[1]]] = TEXT


def contact_sheet(tiles: Sequence[Tile], tile: int = TILE, columns: int = COLUMNS) -> NDArray[np.uint8]:
    """Every tile in a grid, each with a verdict-coloured frame and its caption under it."""
    columns = max(1, min(columns, len(tiles)))
    rows = max(1, -(-len(tiles) // columns))
    cell_w, cell_h = tile + 2 * PAD, tile + 2 * PAD + CAPTION_LINES * LINE_HEIGHT
    canvas = np.empty((rows * cell_h, columns * cell_w, 3), dtype=np.uint8)
    canvas[:] = BACKGROUND
    for index, item in enumerate(tiles):
        top, left = (index // columns) * cell_h, (index % columns) * cell_w
        colour = VERDICT_COLOURS.get(item.verdict, VERDICT_COLOURS["failed"])
        canvas[top + PAD - 3 : top + PAD + tile + 3, left + PAD - 3 : left + PAD + tile + 3] = colour
        picture = _fit(item.picture, tile) if item.picture is not None else None
        body = canvas[top + PAD : top + PAD + tile, left + PAD : left + PAD + tile]
        body[:] = picture if picture is not None else BACKGROUND
        text_top = top + 2 * PAD + tile
        triangles = english(words.QUALITY_TRIANGLES, n=item.triangles) if item.triangles is not None else ""
        shown = (
            english(verdict.VERDICT_WORDS[item.verdict])
            if item.verdict in verdict.VERDICT_WORDS
            else item.verdict
        )
        for line, text in enumerate((item.name, triangles, shown)):
            _write(canvas, text, text_top + line * LINE_HEIGHT, left + PAD, tile)
    return canvas


def encode_png(rgb: NDArray[np.uint8]) -> bytes:
    """An 8-bit RGB PNG of ``rgb`` (rows, columns, 3)."""
    height, width = rgb.shape[:2]
    raw = np.concatenate([np.zeros((height, 1), dtype=np.uint8), rgb.reshape(height, width * 3)], axis=1)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw.tobytes(), 6))
        + chunk(b"IEND", b"")
    )
