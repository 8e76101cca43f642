"""What a result should become besides imported: the fix-ups and game outputs an operator asked for.

Chosen on the main thread (operator arguments over preferences), carried in the job's request as
JSON text (``JobRequest.game``) so a resumed job still knows them, and sent to the helper Blender
with the mesh. Every option is off by default: then the helper only measures (the report).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from ...errors import InputError
from ...words import catalogue as words

ENGINES = ("NONE", "UNREAL", "UNITY", "GODOT")
#: What ``kiln.export_job`` may write: an engine's files, or a plain GLB for the web.
EXPORT_TARGETS = ("UNREAL", "UNITY", "GODOT", "GLB")
COLLISIONS = ("NONE", "HULL")
#: LOD ratios are shares of LOD0's triangles: at most this many levels, each below the one before.
MAX_LODS = 6


@dataclass(frozen=True)
class GameOptions:
    """Fix-ups and outputs for one result; the defaults change nothing."""

    fix_merge: bool = False
    fix_normals: bool = False
    #: Parts with less than this share (0–1) of the triangles are deleted; 0: none.
    fix_loose: float = 0.0
    #: Triangle budget for LOD0 (Decimate, collapse); 0: none.
    triangles: int = 0
    lods: tuple[float, ...] = ()
    collision: str = "NONE"
    engine: str = "NONE"
    #: Export the result here (with ``engine``'s conventions, or a GLB when engine is NONE); "": no export.
    export_dir: str = ""
    #: Render a picture for a batch's review sheet (the same view for every result).
    review: bool = False

    def __post_init__(self) -> None:
        if self.engine not in ENGINES and self.engine != "GLB":
            raise InputError(words.ENGINE_UNKNOWN, engine=self.engine, engines=", ".join(ENGINES))
        if self.collision not in COLLISIONS:
            raise InputError(words.COLLISION_UNKNOWN, collision=self.collision)
        if not 0.0 <= self.fix_loose < 1.0:
            raise InputError(words.LOOSE_SHARE_OUT_OF_RANGE)
        if self.triangles < 0:
            raise InputError(words.TRIANGLE_BUDGET_NEGATIVE)

    @property
    def changes_anything(self) -> bool:
        return self != GameOptions()

    @property
    def builds_outputs(self) -> bool:
        """LODs, a hull, engine names or an export: the result is made into one named mesh first."""
        return bool(self.lods or self.collision != "NONE" or self.engine != "NONE" or self.export_dir)

    def to_text(self) -> str:
        """JSON for ``JobRequest.game``; "" when nothing is asked (so old and plain requests match)."""
        if not self.changes_anything:
            return ""
        data = asdict(self)
        data["lods"] = list(self.lods)
        return json.dumps(data, separators=(",", ":"), sort_keys=True)

    @classmethod
    def from_text(cls, text: str) -> GameOptions:
        """Read ``JobRequest.game``; "" or text this version cannot use is the defaults."""
        if not text:
            return cls()
        try:
            data: dict[str, Any] = json.loads(text)
            known = {f.name for f in fields(cls)}
            values = {k: v for k, v in data.items() if k in known}
            values["lods"] = tuple(float(r) for r in values.get("lods", ()))
            return cls(**values)
        except (ValueError, TypeError, InputError):
            return cls()


def parse_lods(text: str) -> tuple[float, ...]:
    """``"0.5, 0.25"`` → (0.5, 0.25): shares of LOD0's triangles, each in (0, 1) and falling.

    Percentages are accepted too (``"50%,25%"``). Raises InputError with a sentence.
    """
    ratios: list[float] = []
    for item in filter(None, (part.strip() for part in text.replace(";", ",").split(","))):
        try:
            ratio = float(item[:-1]) / 100.0 if item.endswith("%") else float(item)
        except ValueError:
            raise InputError(words.LOD_RATIO_NOT_A_NUMBER, value=item) from None
        if not 0.0 < ratio < 1.0:
            raise InputError(words.LOD_RATIO_OUT_OF_RANGE, value=item)
        if ratios and ratio >= ratios[-1]:
            raise InputError(words.LOD_RATIOS_NOT_FALLING, value=item, previous=ratios[-1])
        ratios.append(ratio)
    if len(ratios) > MAX_LODS:
        raise InputError(words.TOO_MANY_LODS, n=MAX_LODS)
    return tuple(ratios)


@dataclass(frozen=True)
class RowOptions:
    """A batch CSV line's own ``triangles``, ``lods`` and ``export`` (an engine name); None: the batch's."""

    triangles: int | None = None
    lods: tuple[float, ...] | None = None
    export: str | None = None

    def apply(self, base: GameOptions, export_dir: str) -> GameOptions:
        """The batch's options with this line's over them; an ``export`` line without a folder uses
        ``export_dir``."""
        options = base
        if self.triangles is not None:
            options = replace(options, triangles=self.triangles)
        if self.lods is not None:
            options = replace(options, lods=self.lods)
        if self.export is not None:
            engine = "NONE" if self.export == "GLB" else self.export
            options = replace(options, engine=engine, export_dir=options.export_dir or export_dir)
        return options


def parse_row(values: dict[str, str]) -> RowOptions:
    """Read a CSV line's ``triangles``, ``lods`` and ``export`` cells (blank: the batch's); raises
    InputError with a sentence."""
    triangles = values.get("triangles", "").strip().replace(",", "").replace("_", "")
    if triangles and not triangles.isdigit():
        raise InputError(words.TRIANGLE_BUDGET_NOT_WHOLE, value=values["triangles"])
    export = values.get("export", "").strip().upper()
    if export and export not in EXPORT_TARGETS:
        raise InputError(
            words.EXPORT_TARGET_UNKNOWN, value=values["export"], targets=", ".join(EXPORT_TARGETS)
        )
    lods = values.get("lods", "").strip()
    return RowOptions(
        triangles=int(triangles) if triangles else None,
        lods=parse_lods(lods) if lods else None,
        export=export or None,
    )
