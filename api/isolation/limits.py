"""How far a helper Blender may go: the limits every job's settings carry.

Apart from ``helper`` so that the job model can name them without loading the helper's machinery
(threads, processes, the watchdog) when the add-on registers.
"""

from __future__ import annotations

from dataclasses import dataclass


def default_ceiling() -> int:
    """Half the machine's memory, at least 2 GB: the artist's Blender keeps the other half."""
    from .memory import GIB, physical_bytes  # ctypes, loaded when a helper first starts

    return max(2 * GIB, physical_bytes() // 2)


@dataclass(frozen=True)
class HelperLimits:
    """The helper's limits. ``memory_bytes`` 0 means :func:`default_ceiling`."""

    memory_bytes: int = 0
    seconds_per_mesh: float = 300.0
    idle_seconds: float = 300.0
    start_seconds: float = 60.0

    @property
    def ceiling(self) -> int:
        return self.memory_bytes or default_ceiling()
