"""Jobs started in an unsaved file belong to it across an update of Kiln (the add-on's modules
are loaded anew), and never to the next new file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from checkout import BLENDER_SCRIPTS

SCRIPT = BLENDER_SCRIPTS / "reload_origin.py"


def test_the_unsaved_file_keeps_its_identity_when_kiln_is_loaded_anew(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--", str(tmp_path / "repo")],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "BLENDER_USER_RESOURCES": str(tmp_path / "user")},
        check=False,
    )
    line = next((ln for ln in done.stdout.splitlines() if ln.startswith("ORIGINS ")), None)
    assert line, done.stdout + done.stderr
    origins = json.loads(line.removeprefix("ORIGINS "))
    assert origins["reloaded"] == origins["before"]
    assert origins["new_file"] != origins["before"]
