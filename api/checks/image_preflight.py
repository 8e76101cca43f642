"""A concept image looked at before a credit is spent, and prepared the way the services want it.

The services say what they need (one subject, a plain background, the subject filling most of the
frame, more than a minimum side) and their own pipelines crop to the subject, re-centre it with a
margin and put it on a plain background before they reconstruct (Hunyuan3D's and Stable Fast 3D's
public preprocessing). Kiln does the same before it sends, so a poor image is said before it costs
credits, and the service gets the image it works best with.

The subject is found without any model: from the alpha channel when the image has one, else from
the colour around the border (:mod:`.subject`). The analysis runs on a copy at most
``ANALYSIS_SIDE`` pixels on a side, so a 4K image costs the same as a small one once decoded.

Plain Python with numpy and Pillow, run on a worker thread (or inline in background mode). A Blender
whose Python lacks either gets :data:`Preflight.measured` False: the image is sent as it is, and
the artist is told the check could not look.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..words import Entry
from ..words import catalogue as words
from . import subject as found_subject

if TYPE_CHECKING:
    import numpy as np
    from PIL.Image import Image

#: The analysis copy's longest side: enough for every check, and cheap at any size.
ANALYSIS_SIDE = 512
#: Room left around the subject in a prepared image, as a share of the subject's longest side each way.
MARGIN = 0.1
#: A prepared image's side when the service publishes no limit (its pipelines work at 512 to 1024).
DEFAULT_MAX_SIDE = 2048
#: Findings that refuse (nothing is sent) and those that are said (and asked, or refused when STRICT).
REFUSALS = frozenset({"not_a_picture", "single_colour", "too_small", "url_unreadable"})
_SAID: dict[str, Entry] = {
    "cut_off": words.IMAGE_CUT_OFF,
    "subject_small": words.IMAGE_SUBJECT_SMALL,
    "several_subjects": words.IMAGE_SEVERAL_SUBJECTS,
    "busy_background": words.IMAGE_BUSY_BACKGROUND,
    "blurred": words.IMAGE_BLURRED,
}
_REFUSED: dict[str, Entry] = {
    "not_a_picture": words.IMAGE_NOT_A_PICTURE,
    "single_colour": words.IMAGE_SINGLE_COLOUR,
    "too_small": words.IMAGE_TOO_SMALL,
    "url_unreadable": words.IMAGE_URL_UNREADABLE,
}


def finding_entry(code: str) -> Entry | None:
    """The sentence of a finding by its code (the codes stored with a job), None for an unknown one."""
    return _SAID.get(code) or _REFUSED.get(code)


@dataclass(frozen=True)
class ServiceImage:
    """What a service takes, copied from its ``Capabilities`` (so this room needs no service)."""

    min_side: int = 0
    max_side: int = 0
    alpha: bool = True
    formats: frozenset[str] = frozenset({"png", "jpeg", "webp"})


@dataclass(frozen=True)
class Finding:
    """One thing the check found: its code (stable, for scripts and agents), the sentence, its values."""

    code: str
    entry: Entry
    values: dict[str, Any] = field(default_factory=dict)

    @property
    def refuses(self) -> bool:
        return self.code in REFUSALS


@dataclass(frozen=True)
class Preflight:
    """What the check found and what was prepared; ``prepared_path`` "" when the image goes as it is."""

    findings: tuple[Finding, ...] = ()
    measured: bool = True
    width: int = 0
    height: int = 0
    #: The subject's box in the original image (left, top, right, bottom), None where none was found.
    subject_box: tuple[int, int, int, int] | None = None
    #: The share of the frame the subject's box covers (0–1).
    fill: float = 0.0
    alpha: bool = False
    prepared_path: str = ""
    prepared_side: int = 0

    @property
    def refusal(self) -> Finding | None:
        return next((f for f in self.findings if f.refuses), None)

    @property
    def said(self) -> tuple[Finding, ...]:
        """The findings that do not refuse: said, asked in the UI, refused under STRICT."""
        return tuple(f for f in self.findings if not f.refuses)

    def summary(self) -> dict[str, Any]:
        """Plain values for scripts, agents and the job's details."""
        return {
            "measured": self.measured,
            "findings": [f.code for f in self.findings],
            "width": self.width,
            "height": self.height,
            "subject_box": list(self.subject_box) if self.subject_box else None,
            "fill": round(self.fill, 3),
            "alpha": self.alpha,
            "prepared": bool(self.prepared_path),
            "prepared_side": self.prepared_side,
        }


def available() -> bool:
    """Whether this Python can look at pixels (numpy and Pillow)."""
    try:
        import numpy  # noqa: F401
        from PIL import Image  # noqa: F401
    except ImportError:
        return False
    return True


def check_image(
    path: str | Path,
    service: ServiceImage,
    *,
    name: str = "",
    prepare_into: Path | None = None,
) -> Preflight:
    """Look at the image at ``path``; with ``prepare_into``, write the prepared image there.

    Never raises for a bad picture (that is a refusal finding); an unreadable file is one too.
    """
    if not available():
        return Preflight(measured=False)
    from PIL import Image, UnidentifiedImageError

    shown = name or Path(path).name
    try:
        with Image.open(path) as opened:
            opened.draft("RGB", (ANALYSIS_SIDE, ANALYSIS_SIDE))  # JPEG: decoded at a fraction of its size
            width, height = opened.size
            mode = "RGBA" if _has_alpha(opened) else "RGB"
            opened.load()
            image = opened if opened.mode == mode else opened.convert(mode)
    except (OSError, UnidentifiedImageError, ValueError, Image.DecompressionBombError):
        return Preflight(findings=(Finding("not_a_picture", words.IMAGE_NOT_A_PICTURE, {"name": shown}),))
    return _look(image, (width, height), service, shown, prepare_into)


def _has_alpha(image: Image) -> bool:
    return image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info)


def _look(
    image: Image,
    size: tuple[int, int],
    service: ServiceImage,
    shown: str,
    prepare_into: Path | None,
) -> Preflight:
    """The checks on the decoded image, then the preparation when nothing refuses."""
    width, height = size
    if service.min_side and min(width, height) < service.min_side:
        values = {"name": shown, "width": width, "height": height, "side": service.min_side}
        return Preflight(
            findings=(Finding("too_small", words.IMAGE_TOO_SMALL, values),), width=width, height=height
        )
    small = _analysis_copy(image)
    found = found_subject.find(_pixels(small))
    scale = image.size[0] / small.size[0]
    box = found.box_in(scale, *image.size)
    findings = tuple(
        Finding(code, _SAID.get(code) or _REFUSED[code], {"name": shown}) for code in found.codes
    )
    result = Preflight(
        findings=findings,
        width=width,
        height=height,
        subject_box=box,
        fill=found.fill,
        alpha=found.alpha,
    )
    if result.refusal is not None or prepare_into is None:
        return result
    return prepared(result, image, service, found, prepare_into)


def _analysis_copy(image: Image) -> Image:
    """At most ``ANALYSIS_SIDE`` a side: whole-pixel box averaging first (fast), then a resize."""
    from PIL import Image as PILImage

    factor = max(1, max(image.size) // (2 * ANALYSIS_SIDE))
    small = image.reduce(factor) if factor > 1 else image
    scale = ANALYSIS_SIDE / max(small.size)
    if scale >= 1:
        return small
    size = (max(1, round(small.size[0] * scale)), max(1, round(small.size[1] * scale)))
    return small.resize(size, PILImage.Resampling.BILINEAR)


def _pixels(image: Image) -> np.ndarray:
    import numpy as np

    return np.asarray(image, dtype=np.uint8)


def prepared(
    result: Preflight, image: Image, service: ServiceImage, found: found_subject.Subject, folder: Path
) -> Preflight:
    """The image cropped to its subject with a margin, centred on a plain square, at most the
    service's side; written to ``folder`` as PNG (JPEG where the service takes no PNG)."""
    from dataclasses import replace

    from PIL import Image

    if result.subject_box is None:  # no subject to crop to (a busy background): sent as it is
        return result
    keep_alpha = result.alpha and service.alpha and "png" in service.formats
    left, top, right, bottom = result.subject_box
    side = max(1, round(max(right - left, bottom - top) * (1 + 2 * MARGIN)))
    x0, y0 = round((left + right - side) / 2), round((top + bottom - side) / 2)
    inside = (max(0, x0), max(0, y0), min(image.size[0], x0 + side), min(image.size[1], y0 + side))
    background = (*found.background, 0 if keep_alpha else 255)
    canvas = Image.new("RGBA", (side, side), background)
    layer = image.crop(inside).convert("RGBA")  # only the square's part is converted: cheap at 4K
    # A transparent canvas takes the pixels as they are; an opaque one blends a transparent image onto it.
    canvas.paste(layer, (inside[0] - x0, inside[1] - y0), layer if result.alpha and not keep_alpha else None)
    target = _target_side(side, service)
    if target != side:
        canvas = canvas.resize((target, target), Image.Resampling.LANCZOS)
    return replace(
        result, prepared_path=str(_save(canvas, keep_alpha, service, folder)), prepared_side=target
    )


def _target_side(side: int, service: ServiceImage) -> int:
    """At most the service's largest side (or Kiln's default), at least its smallest."""
    top = service.max_side or DEFAULT_MAX_SIDE
    return max(min(side, top), service.min_side or 0, 1)


def _save(canvas: Image, keep_alpha: bool, service: ServiceImage, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    if "png" in service.formats:
        path = folder / f"prepared-{uuid.uuid4().hex}.png"
        (canvas if keep_alpha else canvas.convert("RGB")).save(path, "PNG")
    else:
        path = folder / f"prepared-{uuid.uuid4().hex}.jpg"
        canvas.convert("RGB").save(path, "JPEG", quality=95)
    return path
