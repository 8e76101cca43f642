"""A concept image's pixels as numpy arrays, on whatever this Python has: Pillow, else Blender's imbuf.

Blender's own Python ships numpy but not Pillow, so Kiln's zip carries Pillow as wheels (the
manifest's ``wheels``; a distribution's Blender may use the system's own): the image checks read
pixels through it, and where it could not be installed through ``imbuf``, Blender's image library
as a Python module: not ``bpy`` (no Blender data is touched, and it runs on a worker thread),
loaded only inside the functions below. imbuf has no pixel access, so
the picture is resized there and written as an uncompressed BMP, which numpy reads; writing a BMP
needs ``ImBuf.file_type`` (Blender 5 and newer). Where neither way exists, :func:`available` is
False and the checks say they could not look.

Prepared images are written as PNG by :func:`encode_png` (zlib and numpy: no library needed).
"""

from __future__ import annotations

import struct
import tempfile
import threading
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np


class Unreadable(Exception):
    """The file is not a picture either library can read."""


def _pillow() -> bool:
    try:
        import numpy  # noqa: F401
        from PIL import Image  # noqa: F401
    except ImportError:
        return False
    return True


def _imbuf() -> bool:
    try:
        import imbuf
        import numpy  # noqa: F401
    except ImportError:
        return False
    return hasattr(imbuf.types.ImBuf, "file_type")


def available() -> bool:
    """Whether this Python can read pixels at all."""
    return _pillow() or _imbuf()


def load(path: str | Path, max_side: int) -> tuple[np.ndarray, tuple[int, int]]:
    """The picture at most ``max_side`` pixels a side (RGB or RGBA, uint8, top row first) and its own
    size. Raises :class:`Unreadable`."""
    if _pillow():
        return _load_pillow(path, max_side)
    return _load_imbuf(path, max_side, None)


def region(path: str | Path, box: tuple[int, int, int, int], size: tuple[int, int]) -> np.ndarray:
    """The part ``box`` (left, top, right, bottom, inside the picture) resized to ``size``, RGBA."""
    if _pillow():
        import numpy as np
        from PIL import Image

        image = _decoded(path)
        if image is None:
            with Image.open(path) as opened:
                opened.load()
                image = opened
        part = image.crop(box).convert("RGBA")  # only the part is converted: cheap at 4K
        if part.size != size:
            part = part.resize(size, Image.Resampling.LANCZOS)
        return np.asarray(part, dtype=np.uint8)
    pixels, _ = _load_imbuf(path, 0, (box, size))
    return pixels if pixels.shape[2] == 4 else _with_alpha(pixels)


#: The last picture Pillow decoded whole on this thread, kept for :func:`region` (the preflight
#: looks, then prepares: one decoding, not two).
_last = threading.local()


def _decoded(path: str | Path) -> Any:
    kept = getattr(_last, "picture", None)
    if kept is None or kept[0] != _identity(path):
        return None
    return kept[1]


def _identity(path: str | Path) -> tuple[str, int, int]:
    stat = Path(path).stat()
    return (str(Path(path).resolve()), stat.st_mtime_ns, stat.st_size)


def _load_pillow(path: str | Path, max_side: int) -> tuple[np.ndarray, tuple[int, int]]:
    import numpy as np
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as opened:
            opened.draft("RGB", (max_side, max_side))  # JPEG: decoded at a fraction of its size
            size = opened.size
            alpha = opened.mode in ("RGBA", "LA", "PA") or (
                opened.mode == "P" and "transparency" in opened.info
            )
            opened.load()
            image = (
                opened
                if opened.mode == ("RGBA" if alpha else "RGB")
                else opened.convert("RGBA" if alpha else "RGB")
            )
    except (OSError, UnidentifiedImageError, ValueError, Image.DecompressionBombError) as exc:
        raise Unreadable(str(exc)) from None
    _last.picture = (_identity(path), image)
    factor = max(1, max(image.size) // (2 * max_side))
    small = image.reduce(factor) if factor > 1 else image
    scale = max_side / max(small.size)
    if scale < 1:
        fitted = (max(1, round(small.size[0] * scale)), max(1, round(small.size[1] * scale)))
        small = small.resize(fitted, Image.Resampling.BILINEAR)
    return np.asarray(small, dtype=np.uint8), size


def _load_imbuf(
    path: str | Path, max_side: int, part: tuple[tuple[int, int, int, int], tuple[int, int]] | None
) -> tuple[np.ndarray, tuple[int, int]]:
    """Through Blender's imbuf: load, crop and resize there, read back as a BMP."""
    import imbuf

    try:
        buffer = imbuf.load(str(path))
    except (OSError, ValueError) as exc:
        raise Unreadable(str(exc)) from None
    try:
        width, height = buffer.size
        if part is not None:
            (left, top, right, bottom), wanted = part
            # imbuf's rows run bottom up: its crop box is measured from the bottom left.
            buffer.crop((left, height - bottom), (right - 1, height - top - 1))
        else:
            scale = min(1.0, max_side / max(width, height))
            wanted = (max(1, round(width * scale)), max(1, round(height * scale)))
        if tuple(buffer.size) != wanted:
            buffer.resize(wanted, method="BILINEAR")
        buffer.file_type = "BMP"  # type: ignore[attr-defined]  # Blender 5 and newer (checked first)
        with tempfile.TemporaryDirectory(prefix="kiln-pixels-") as folder:
            written = Path(folder) / "pixels.bmp"
            imbuf.write(buffer, filepath=str(written))
            return read_bmp(written.read_bytes()), (width, height)
    finally:
        buffer.free()


def read_bmp(data: bytes) -> np.ndarray:
    """An uncompressed 24- or 32-bit BMP as RGB or RGBA rows, top row first."""
    import numpy as np

    if data[:2] != b"BM" or len(data) < 54:
        raise Unreadable("not a BMP")
    offset = struct.unpack_from("<I", data, 10)[0]
    width, height = struct.unpack_from("<ii", data, 18)
    bits, compression = struct.unpack_from("<HI", data, 28)
    if bits not in (24, 32) or compression not in (0, 3) or width <= 0 or height == 0:
        raise Unreadable(f"a BMP of {bits} bits, compression {compression}")
    channels = bits // 8
    stride = (width * channels + 3) // 4 * 4
    rows = abs(height)
    raw = np.frombuffer(data, dtype=np.uint8, count=stride * rows, offset=offset).reshape(rows, stride)
    pixels = raw[:, : width * channels].reshape(rows, width, channels)
    if height > 0:  # stored bottom up
        pixels = pixels[::-1]
    order = [2, 1, 0, 3] if channels == 4 else [2, 1, 0]
    out = np.ascontiguousarray(pixels[..., order])
    if channels == 4 and int(np.min(out[..., 3])) == 255:
        return np.ascontiguousarray(out[..., :3])  # opaque: an alpha channel with nothing in it
    return out


def packed_rgba(path: str | Path, max_side: int) -> tuple[tuple[int, int], np.ndarray]:
    """The picture at most ``max_side`` pixels a side, as its size and RGBA bytes packed one int32 a
    pixel, the bottom row first: what Blender's preview pixels (``ImagePreview.image_pixels``) take.
    Raises :class:`Unreadable`."""
    import numpy as np

    pixels, _ = load(path, max_side)
    if pixels.shape[2] == 3:
        pixels = _with_alpha(pixels)
    height, width = pixels.shape[:2]
    return (width, height), np.ascontiguousarray(pixels[::-1]).view(np.int32).ravel()


def _with_alpha(pixels: np.ndarray) -> np.ndarray:
    import numpy as np

    opaque = np.full((*pixels.shape[:2], 1), 255, dtype=np.uint8)
    return np.concatenate([pixels, opaque], axis=2)


def encode_png(pixels: np.ndarray) -> bytes:
    """RGB or RGBA rows (uint8) as a PNG: every row unfiltered, zlib-compressed."""
    import numpy as np

    height, width, channels = pixels.shape
    colour = {3: 2, 4: 6}[channels]
    rows = np.concatenate([np.zeros((height, 1), dtype=np.uint8), pixels.reshape(height, -1)], axis=1)

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body))
            + kind
            + body
            + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
        )

    header = struct.pack(">IIBBBBB", width, height, 8, colour, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows.tobytes(), 6))
        + chunk(b"IEND", b"")
    )
