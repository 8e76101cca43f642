"""What one agent session may spend unless the artist says otherwise (Preferences ▸ Kiln ▸ Agents).

Apart from ``budget`` so that the preferences can show these defaults without loading the agents'
machinery when the add-on registers.
"""

from __future__ import annotations

DEFAULT_CREDITS = 20
DEFAULT_JOBS = 10
