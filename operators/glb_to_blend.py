"""Helper process script: GLB in, .blend out, so the artist's Blender only has to append.

Run by ``api.convert`` in a separate Blender (``blender -b --factory-startup --python`` this
``-- in.glb out.blend``, or the bpy module's Python with this file). Blender's own glTF importer
does the work, so nothing is lost compared with importing in place; images are packed so the
.blend carries its textures. Never imported by the add-on: it only runs as ``__main__``.
"""

from __future__ import annotations

import sys

import bpy


def convert(glb: str, blend: str) -> None:
    """Import ``glb`` into an empty file and save it, textures packed, as ``blend``."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.import_scene.gltf(filepath=glb)
    bpy.ops.file.pack_all()
    bpy.ops.wm.save_as_mainfile(filepath=blend, compress=False)


def main(argv: list[str]) -> int:
    args = argv[argv.index("--") + 1 :] if "--" in argv else []
    if len(args) != 2:
        sys.stderr.write("usage: glb_to_blend.py -- IN.glb OUT.blend\n")
        return 2
    convert(*args)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
