"""Running example scripts as a pipeline would: a child Python with the bpy module, isolated."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any


def run_child(args: list[str], *, cwd: Path, sandbox: Any = None, key: str = "", timeout: float = 120) -> Any:
    """Run ``python ARGS`` in its own Blender user folder, pointed at ``sandbox`` when given."""
    env = {**os.environ, "BLENDER_USER_RESOURCES": str(cwd / "blender-user")}
    for name in ("KILN_BASE_URL", "KILN_API_KEY"):
        env.pop(name, None)
    if sandbox is not None:
        env.update(KILN_BASE_URL=sandbox.base_url, KILN_API_KEY=key)
    return subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def kiln_task_ids(bpy: Any, blend: Path) -> list[str]:
    """Open a saved .blend and list the task ids on its objects (one a generated object)."""
    bpy.ops.wm.open_mainfile(filepath=str(blend))
    return [obj["kiln_task_id"] for obj in bpy.data.objects if "kiln_task_id" in obj]
