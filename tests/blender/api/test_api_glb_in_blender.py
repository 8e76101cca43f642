"""The glTF extensions Kiln's checks accept are ones this Blender's own importer reads."""

from __future__ import annotations

import re
from pathlib import Path

from api.checks.gltf_checks import SUPPORTED_EXTENSIONS


def test_supported_extensions_are_what_this_blenders_importer_reads() -> None:
    """api.checks.gltf_checks lists only names the bundled importer manages (run on both Blenders)."""
    import bpy

    scripts = Path(bpy.utils.system_resource("SCRIPTS"))
    source = (scripts / "addons_core/io_scene_gltf2/io/imp/gltf2_io_gltf.py").read_text(encoding="utf-8")
    managed_list = re.search(r"self\.extensions_managed = \[(.*?)\]", source, re.S)
    assert managed_list is not None
    managed = set(re.findall(r"'([A-Za-z0-9_]+)'", managed_list.group(1)))
    assert not SUPPORTED_EXTENSIONS - managed, SUPPORTED_EXTENSIONS - managed
