"""What this session remembers about its jobs until they land: one owner, emptied when Kiln is disabled.

Between a click and a job's import, code on the Blender side remembers a few things the job engine
does not keep (they are about this Blender's scene, not the job): the import options and blockout
fit an operator was called with, the batch grid slot a result takes, the batches the UI follows to
write their summary. All of it lives in ``current``; ``session.unregister`` clears it, so nothing
of a disabled Kiln is left behind, and a Kiln enabled again starts clean (its jobs stay on disk).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .batch_grid import GridSlots

if TYPE_CHECKING:
    from ..api.features.blockout import Fit
    from .placement import ImportOptions, Placement


@dataclass(frozen=True)
class FollowedBatch:
    """A batch sent from the UI, waiting for its last job to settle."""

    source: str
    job_ids: list[str]
    summary_path: str


@dataclass
class SessionState:
    """What this session remembers about its jobs, by job id."""

    #: How an operator asked for its jobs to be placed (by job id), over the preferences.
    placements: dict[str, Placement] = field(default_factory=dict)
    #: Which batch grid each batch job's result goes into.
    grid_slots: GridSlots = field(default_factory=GridSlots)
    #: Batches sent from the UI whose summary is written when their last job settles.
    followed: list[FollowedBatch] = field(default_factory=list)

    def clear(self) -> None:
        self.placements.clear()
        self.grid_slots.clear()
        self.followed.clear()

    def is_empty(self) -> bool:
        return not (self.placements or len(self.grid_slots) or self.followed)


#: The one owner.
current = SessionState()


def forget() -> None:
    """On unregister: a Kiln enabled again starts clean (its jobs stay on disk)."""
    current.clear()


def choose_options(job_id: str, options: ImportOptions, fit: Fit = "CONTAIN") -> None:
    """The import options (and blockout fit) a generate operator was called with, for one job."""
    from .placement import Placement  # loaded with the first job sent, not when Kiln registers

    current.placements[job_id] = Placement(options, fit)
