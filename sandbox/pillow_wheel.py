"""The dev tools read and draw pictures with the Pillow Kiln's zip carries, never one of their own.

The venvs that run Kiln in Blender hold what an artist's Blender holds (no Pillow), so the sandbox,
the test pictures and the bench put this Python's wheel from ``wheels/`` (``tools/fetch_wheels.py``,
pinned in ``requirements/wheels.txt``) on the path, unpacked once into ``.wheels-site/``: the same
wheel, placed the same way (appended), as Blender's extension system does with Kiln's zip.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WHEELS = ROOT / "wheels"
UNPACKED = ROOT / ".wheels-site"


def wheel_for_this_python() -> Path | None:
    """The wheel in ``wheels/`` this interpreter can load (fetched first when there are none)."""
    from packaging.tags import sys_tags
    from packaging.utils import parse_wheel_filename

    if not any(WHEELS.glob("*.whl")):
        subprocess.run([sys.executable, str(ROOT / "tools" / "fetch_wheels.py")], check=True)
    supported = list(sys_tags())
    ranked = []
    for wheel in WHEELS.glob("*.whl"):
        tags = parse_wheel_filename(wheel.name)[3]
        ranks = [supported.index(tag) for tag in tags if tag in supported]
        if ranks:
            ranked.append((min(ranks), wheel))
    return min(ranked)[1] if ranked else None


def on_path() -> None:
    """Make ``import PIL`` load Kiln's wheel, unless this Python has a Pillow of its own (a
    distribution's Python, as Blender would use it there)."""
    if importlib.util.find_spec("PIL") is not None:
        return
    wheel = wheel_for_this_python()
    if wheel is None:
        return  # no wheel for this Python: the image checks say they could not look, as in Blender
    site = UNPACKED / wheel.stem
    if not site.is_dir():
        UNPACKED.mkdir(exist_ok=True)
        partial = Path(tempfile.mkdtemp(prefix=f".{wheel.stem}-", dir=UNPACKED))
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(partial)
        try:
            partial.replace(site)  # whole or not at all: test runs side by side unpack at once
        except OSError:
            shutil.rmtree(partial, ignore_errors=True)  # another run was first
    if str(site) not in sys.path:
        sys.path.append(str(site))
