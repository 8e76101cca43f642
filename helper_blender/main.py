"""The helper Blender's one entry point: it puts the add-on on the path, then serves.

``api.isolation`` starts a helper as ``blender -b --factory-startup --python`` this file
``-- --memory-limit BYTES`` (for the bpy module, that module's Python runs this file). A file run
that way is no module of any package, and the rest of this room imports ``api`` the add-on's way
(relative imports), so the add-on's folder is put on ``sys.path`` and the add-on imported by the
name of its folder, exactly once, here. Importing the add-on registers nothing (its ``register``
does that, and nobody calls it in a helper).
"""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path
from types import ModuleType

#: The add-on's folder: ``..`` taken out, links kept (a linked folder keeps the name it is mounted under).
ADDON = Path(os.path.abspath(__file__)).parents[1]  # noqa: PTH100


def request_loop() -> ModuleType:
    """The helper's request loop, imported as a module of the add-on's package."""
    if str(ADDON.parent) not in sys.path:
        sys.path.insert(0, str(ADDON.parent))
    return importlib.import_module(f"{ADDON.name}.helper_blender.request_loop")


if __name__ == "__main__":
    sys.exit(request_loop().main(sys.argv))
