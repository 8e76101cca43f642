"""Run in a fresh Blender (bpy module): install Kiln's built zip and run its image check there.

Pillow is read only from what the zip brought (Blender's extension wheel folder): a copy in this
venv, if any, is hidden, so this Blender has what an artist's has. With ``--system DIR`` a Pillow
in DIR stands first on the path, as a distribution's ``python3-pil`` does in its Blender: that one
must be used, and the check work with it. Prints ``KILN-IMAGES-OK`` and the measures, or exits
non-zero with a sentence on the first thing that is wrong.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import tempfile
from pathlib import Path
from typing import Any

import bpy

MODULE = "bl_ext.user_default.kiln"
ROOT = Path(__file__).resolve().parents[3]
LOCAL = Path(bpy.utils.user_resource("EXTENSIONS", path=".local"))
SYSTEM = Path(sys.argv[sys.argv.index("--system") + 1]) if "--system" in sys.argv else None
#: Where ``PIL`` may come from, in the path's own order; the first is where it must come from.
ALLOWED = (SYSTEM or LOCAL,) + ((LOCAL,) if SYSTEM else ())


class OnlyTheZipsPillow(importlib.abc.MetaPathFinder):
    """``PIL`` found only under Blender's extension wheel folder (``extensions/.local``), or the
    stand-in of the system's."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name != "PIL":
            return None
        paths = [entry for entry in sys.path if any(Path(entry).is_relative_to(a) for a in ALLOWED)]
        return importlib.machinery.PathFinder.find_spec(name, paths) or importlib.machinery.ModuleSpec(
            name, None
        )


def fail(why: str) -> None:
    raise SystemExit(why)


def main() -> None:
    sys.meta_path.insert(0, OnlyTheZipsPillow())
    if SYSTEM is not None:
        sys.path.insert(0, str(SYSTEM))  # where a distribution's Python has its own modules
    zip_path = sys.argv[sys.argv.index("--") + 1]
    bpy.ops.extensions.package_install_files(filepath=zip_path, repo="user_default", enable_on_install=True)
    if MODULE not in bpy.context.preferences.addons:
        fail(f"{MODULE} is not enabled after install")
    try:
        import PIL
    except ImportError:
        fail(f"Kiln's zip brought no Pillow for Python {sys.version_info[0]}.{sys.version_info[1]}")
    if not Path(PIL.__file__).is_relative_to(ALLOWED[0]):
        fail(f"Pillow came from {PIL.__file__}, not from {ALLOWED[0]}")
    sys.path.insert(0, str(ROOT))
    from PIL import Image

    from fixtures.concept_images import write_case, write_concept

    preflight = importlib.import_module(f"{MODULE}.api.checks.image_preflight")
    fidelity = importlib.import_module(f"{MODULE}.api.checks.fidelity")
    service = preflight.ServiceImage(min_side=128)
    cases = Path(tempfile.mkdtemp(prefix="kiln-zip-cases-"))
    for case, code in (("tiny", "too_small"), ("single_colour", "single_colour")):
        found = preflight.check_image(write_case(cases, case), service)
        if found.refusal is None or found.refusal.code != code:
            fail(f"{case}: not refused as {code}: {found}")
    found = preflight.check_image(write_case(cases, "off_centre"), service, prepare_into=cases)
    again = preflight.check_image(found.prepared_path, service)
    left, top, right, bottom = again.subject_box
    if not (found.measured and max(right - left, bottom - top) / again.width > 0.75 and again.findings == ()):
        fail(f"the off-centre subject was not centred and filling: {again}")
    found = preflight.check_image(write_case(cases, "alpha"), service, prepare_into=cases)
    with Image.open(found.prepared_path) as sent:
        if sent.mode != "RGBA" or sent.getpixel((0, 0))[3] != 0:
            fail(f"the transparent background did not stay transparent: {sent.mode}")
    from sandbox import images, meshes  # the stand-in's relief of a concept, as a service makes it

    chair = write_concept(cases, "chair")
    relief, other = cases / "relief.glb", cases / "other.glb"
    with Image.open(chair) as opened:
        relief.write_bytes(images.image_mesh(opened, 1024).export(file_type="glb"))
    other.write_bytes(meshes.text_mesh("a sword", 1024).export(file_type="glb"))
    high, low = fidelity.measure(relief, chair).value, fidelity.measure(other, chair).value
    if high is None or low is None or not (high >= fidelity.GOOD and low < fidelity.FAIR):
        fail(f"fidelity does not tell a match from a wrong mesh: {high} and {low}")
    where = ALLOWED[0].name
    print(f"KILN-IMAGES-OK Pillow {PIL.__version__} from {where}, fidelity {high:.2f} and {low:.2f}")


main()
