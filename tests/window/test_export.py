"""One export end to end in the Blender program: a result with an LOD and a hull is exported for
Unreal and for Godot by the real helper program (``bpy.ops.kiln.export_job`` in the 3D View's
context, as the Jobs panel's Export… calls it), and the files import again in the window with the
engine's names, Blender's own FBX and glTF importers reading them."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path

from program import Program, Window

from sandbox.server import Sandbox

IN_VIEW3D = "with in_view3d('WINDOW'):\n    "
#: The names the FBX and GLB exports carry back (the engine's convention, ``api.features.quality.naming``).
EXPECTED = {
    "UNREAL": ("SM_GreyRock.fbx", {"SM_GreyRock", "SM_GreyRock_LOD1", "UCX_SM_GreyRock_00"}),
    "GODOT": ("GreyRock.glb", {"GreyRock", "GreyRock_LOD1", "GreyRock-convcolonly"}),
}
IMPORTERS = {".fbx": "bpy.ops.import_scene.fbx", ".glb": "bpy.ops.import_scene.gltf"}


def imported_names(window: Window, path: str) -> set[str]:
    """Mesh names after importing ``path`` into a scene of its own in the window."""
    importer = IMPORTERS[Path(path).suffix]
    names = window.call(
        "scene = bpy.data.scenes.new('reimport')\n"
        "bpy.context.window.scene = scene\n" + IN_VIEW3D + f"{importer}(filepath={path!r})\n"
        "result = [o.name for o in scene.objects if o.type == 'MESH']\n"
        "bpy.context.window.scene = bpy.data.scenes['Scene']\n"
        "bpy.data.scenes.remove(scene)\n",
        timeout=120,
    )
    # The result itself is still in the file under the same names: Blender numbers the new ones.
    return {re.sub(r"\.\d{3}$", "", name) for name in names}


def test_a_result_exports_for_unreal_and_godot_in_the_helper_and_imports_again(
    open_window: Callable[..., Window],
    sandbox_factory: Callable[..., Sandbox],
    sandbox_key: str,
    program: Program,
) -> None:
    sandbox = sandbox_factory()
    window = open_window(env={"KILN_BASE_URL": sandbox.base_url, "KILN_API_KEY": sandbox_key})
    window.call(
        IN_VIEW3D + "bpy.ops.kiln.generate_from_text(prompt='a grey rock', lods='0.5', collision='HULL')"
    )
    job = window.wait_for("[j for j in kiln_jobs() if j['state'] == 'imported']", timeout=120)[0]
    in_scene = {o["name"] for o in window.call("result = kiln_objects()")}
    assert {"GreyRock", "GreyRock_LOD1", "GreyRock_Collision"} <= in_scene, in_scene

    for engine, (file_name, names) in EXPECTED.items():
        folder = program.workdir(f"export-{engine.lower()}")
        window.call(
            IN_VIEW3D + f"bpy.ops.kiln.export_job(job_id={job['id']!r}, engine={engine!r}, "
            f"directory={program.inside(folder)!r})"
        )
        said = f"Kiln: Exported {file_name}"  # the status bar's sentence, in Blender's console too
        deadline = time.monotonic() + 180
        while said not in window.log():
            assert time.monotonic() < deadline, f"no {said!r}:\n{window.log()[-3000:]}"
            time.sleep(0.5)
        assert imported_names(window, program.inside(folder / file_name)) == names, engine
    assert sandbox.submit_count == 1
    assert "Traceback" not in window.log()
