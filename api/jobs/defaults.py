"""The engine's defaults for how jobs run, which the preferences offer as theirs.

A module of their own so that ``options`` reads them while Kiln registers without loading the job
model: a script's ``ServiceConfig`` and an artist's fresh preferences mean the same figures.
"""

from __future__ import annotations

#: Seconds between polls of a task (a service asks for 2–3 s).
POLL_INTERVAL = 2.5
#: Jobs sent or running at once.
MAX_IN_FLIGHT = 4
#: Seconds a job may take before it has timed out.
TIMEOUT_SECONDS = 30 * 60.0
#: Above this many triangles a mesh goes through the helper Blender even when the artist imports in place.
LARGE_IMPORT_TRIANGLES = 200_000
