"""Blockout in the window: a placeholder whose prompt is already in the Kiln library gets a new
variant from Generate from Selection (one new submit), not the library's copy."""

from __future__ import annotations

from collections.abc import Callable

from program import Window

from sandbox.server import Sandbox

IN_VIEW3D = "with in_view3d('WINDOW'):\n    "
SELECT_PLACEHOLDER = (
    "for obj in bpy.context.view_layer.objects: obj.select_set(obj.name == 'Barrel placeholder')\n"
    "bpy.context.view_layer.objects.active = bpy.data.objects['Barrel placeholder']\n"
)
#: Once filled, the placeholder is hidden: the artist selects its result to ask for another.
SELECT_RESULT = (
    "roots = [o for o in bpy.context.view_layer.objects if o.get('kiln_placeholder') and o.parent is None]\n"
    "for obj in bpy.context.view_layer.objects: obj.select_set(obj in roots)\n"
    "bpy.context.view_layer.objects.active = roots[0]\n"
)
#: The helper writes the library's copy after the import, so the test waits for it.
IN_LIBRARY = (
    "library_copy(kiln_module('session.blockout')"
    ".quick_request(bpy.data.objects['Barrel placeholder'], None))"
)


def test_generating_again_for_a_placeholder_with_a_result_sends_a_new_variant(
    open_window: Callable[..., Window], sandbox_factory: Callable[..., Sandbox], sandbox_key: str
) -> None:
    sandbox = sandbox_factory(speed=5.0)
    window = open_window(env={"KILN_BASE_URL": sandbox.base_url, "KILN_API_KEY": sandbox_key})
    window.call(
        IN_VIEW3D + "bpy.ops.mesh.primitive_cube_add(size=1.0)\n"
        "placeholder = bpy.context.active_object\n"
        "placeholder.name = 'Barrel placeholder'\n"
        "placeholder['kiln_prompt'] = 'Barrel'\n"
    )
    window.call(SELECT_PLACEHOLDER + IN_VIEW3D + "bpy.ops.kiln.generate_from_selection()")
    window.wait_for("[j for j in kiln_jobs() if j['state'] == 'imported']", timeout=90)
    first = window.wait_for("[o['name'] for o in kiln_objects()]", timeout=30)
    assert sandbox.submit_count == 1
    window.wait_for(IN_LIBRARY, timeout=60)  # the first result is in the library

    window.call(SELECT_RESULT + IN_VIEW3D + "bpy.ops.kiln.generate_from_selection()")
    window.wait_for("len([j for j in kiln_jobs() if j['state'] == 'imported']) == 2", timeout=90)
    assert sandbox.submit_count == 2, "the second variant was not sent"
    assert len(window.call("result = kiln_objects()")) > len(first)
