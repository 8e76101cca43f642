"""A concept image looked at before a credit is spent, and prepared the way the services want it.

The services say what they need (one subject, a plain background, the subject filling most of the
frame, more than a minimum side) and their own pipelines crop to the subject, re-centre it with a
margin and put it on a plain background before they reconstruct (Hunyuan3D's and Stable Fast 3D's
public preprocessing). Kiln does the same before it sends, so a poor image is said before it costs
credits, and the service gets the image it works best with.

The subject is found without any model: from the alpha channel when the image has one, else from
the colour around the border (:mod:`.subject`). The analysis runs on a copy at most
``ANALYSIS_SIDE`` pixels on a side, so a 4K image costs the same as a small one once decoded.

Plain Python with numpy, reading pixels through Pillow or Blender's imbuf (:mod:`.decoding`), run on
a worker thread (or inline in background mode). A Python with neither gets ``Preflight.measured``
False: the image is sent as it is, and the artist is told the check could not look.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..words import Entry
from ..words import catalogue as words
from . import decoding
from . import subject as found_subject

if TYPE_CHECKING:
    import numpy as np

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
    """Whether this Python can look at pixels (numpy, and Pillow or Blender's imbuf)."""
    return decoding.available()


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
    shown = name or Path(path).name
    try:
        small, (width, height) = decoding.load(path, ANALYSIS_SIDE)
    except decoding.Unreadable:
        return Preflight(findings=(Finding("not_a_picture", words.IMAGE_NOT_A_PICTURE, {"name": shown}),))
    if service.min_side and min(width, height) < service.min_side:
        values = {"name": shown, "width": width, "height": height, "side": service.min_side}
        too_small = Finding("too_small", words.IMAGE_TOO_SMALL, values)
        return Preflight(findings=(too_small,), width=width, height=height)
    found = found_subject.find(small)
    box = found.box_in(width / small.shape[1], width, height)
    findings = tuple(
        Finding(code, _SAID.get(code) or _REFUSED[code], {"name": shown}) for code in found.codes
    )
    result = Preflight(
        findings=findings, width=width, height=height, subject_box=box, fill=found.fill, alpha=found.alpha
    )
    if result.refusal is not None or prepare_into is None:
        return result
    return prepared(result, path, service, found, prepare_into)


def prepared(
    result: Preflight, path: str | Path, service: ServiceImage, found: found_subject.Subject, folder: Path
) -> Preflight:
    """The image cropped to its subject with a margin, centred on a plain square, at most the
    service's side; written to ``folder`` as PNG (JPEG where the service takes no PNG)."""
    import numpy as np

    if result.subject_box is None:  # no subject to crop to (a busy background): sent as it is
        return result
    keep_alpha = result.alpha and service.alpha and "png" in service.formats
    left, top, right, bottom = result.subject_box
    side = max(1, round(max(right - left, bottom - top) * (1 + 2 * MARGIN)))
    x0, y0 = round((left + right - side) / 2), round((top + bottom - side) / 2)
    inside = (max(0, x0), max(0, y0), min(result.width, x0 + side), min(result.height, y0 + side))
    target = _target_side(side, service)
    scale = target / side
    at = (round((inside[0] - x0) * scale), round((inside[1] - y0) * scale))
    size = (
        max(1, min(target - at[0], round((inside[2] - inside[0]) * scale))),
        max(1, min(target - at[1], round((inside[3] - inside[1]) * scale))),
    )
    part = decoding.region(path, inside, size)
    background = np.array([*found.background, 0 if keep_alpha else 255], dtype=np.uint8)
    canvas = np.empty((target, target, 4), dtype=np.uint8)
    canvas[:] = background
    if result.alpha and not keep_alpha:  # blended onto the plain background
        weight = part[..., 3:4].astype(np.float32) / 255.0
        blended = part[..., :3] * weight + background[:3].astype(np.float32) * (1 - weight)
        part = np.concatenate([np.rint(blended).astype(np.uint8), np.full_like(part[..., 3:4], 255)], axis=2)
    canvas[at[1] : at[1] + size[1], at[0] : at[0] + size[0]] = part
    pixels = canvas
    saved = _save(pixels if keep_alpha else np.ascontiguousarray(pixels[..., :3]), service, folder)
    if saved is None:
        return result
    return replace(result, prepared_path=str(saved), prepared_side=target)


def _target_side(side: int, service: ServiceImage) -> int:
    """At most the service's largest side (or Kiln's default), at least its smallest."""
    top = service.max_side or DEFAULT_MAX_SIDE
    return max(min(side, top), service.min_side or 0, 1)


def _save(pixels: np.ndarray, service: ServiceImage, folder: Path) -> Path | None:
    """PNG where the service takes it; else JPEG through Pillow (None where there is no Pillow)."""
    folder.mkdir(parents=True, exist_ok=True)
    if "png" in service.formats:
        path = folder / f"prepared-{uuid.uuid4().hex}.png"
        path.write_bytes(decoding.encode_png(pixels))
        return path
    try:
        from PIL import Image
    except ImportError:
        return None
    path = folder / f"prepared-{uuid.uuid4().hex}.jpg"
    Image.fromarray(pixels[..., :3]).save(path, "JPEG", quality=95)
    return path
