"""The quality report's findings as a result carries them (the ``kiln_quality`` JSON): plain data,
without numpy, so the artist's Blender reads a report back without loading what measured it
(``report`` measures, in the helper Blender).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from ...words import Message, as_message, english_message, message
from ...words import catalogue as words
from . import verdict


@dataclass
class QualityReport:
    """The ``kiln_quality`` custom property (as JSON): the names are a contract (docs/game-ready.md)."""

    triangles: int = 0
    vertices: int = 0
    split_vertices: int = 0
    objects: int = 0
    materials: int = 0
    textures: list[str] = field(default_factory=list)
    dimensions: list[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])
    parts: int = 0
    small_parts: int = 0
    non_manifold_edges: int = 0
    boundary_edges: int = 0
    zero_area_faces: int = 0
    inverted_faces: int = 0
    #: Triangles of closed parts turned inside out as a whole (consistent winding, facing in).
    inside_out_faces: int = 0
    uv_overlap: float = 0.0
    has_uvs: bool = True
    verdict: str = verdict.READY
    reasons: list[str] = field(default_factory=list)
    #: What the fix-ups changed, each a stored ``Message`` ("Fix-ups merged 1,204 vertices."; a report
    #: written before holds English texts); empty when none ran.
    fixes: list[Any] = field(default_factory=list)
    #: Fields not measured (or not for every object), each with the sentence saying why; such a
    #: field holds what could be counted. Reports written before this key read as all measured.
    not_measured: dict[str, str] = field(default_factory=dict)
    #: Fields that are estimates, each with the sentence saying how they were made.
    estimated: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> QualityReport:
        """Raises ValueError for text that is not a report (a hand-edited property, say)."""
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("not a quality report")
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        for key in ("not_measured", "estimated"):
            said = known.get(key, {})
            if not isinstance(said, dict) or not all(isinstance(v, str) for v in said.values()):
                raise ValueError("not a quality report")
        return cls(**known)

    def fix_messages(self) -> list[Message]:
        """What the fix-ups changed, to say (an older report's English kept as it is)."""
        return [Message.from_json(fix) or as_message(str(fix)) for fix in self.fixes]

    def summary(self) -> str:
        """One short line for a panel or a table: "ready · 12,034 tris · 1 part"."""
        return english_message(self.summary_message())

    def summary_message(self) -> Message:
        """The short line to say (its verdict and counts are messages of their own, said first)."""
        verdict_word = verdict.VERDICT_WORDS.get(self.verdict)
        return message(
            words.QUALITY_LINE,
            verdict=message(verdict_word) if verdict_word else self.verdict,
            triangles=message(words.QUALITY_TRIANGLES, n=self.triangles),
            parts=message(words.QUALITY_PARTS, n=self.parts),
        )
