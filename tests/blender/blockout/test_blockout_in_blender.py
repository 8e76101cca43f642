"""Blockout to assets in real Blender against the sandbox: fits, placement, variants, skips."""

from __future__ import annotations

import math
from typing import Any

import pytest
from concepts import CONCEPTS

TOLERANCE = 1e-4


def add_cube(bpy: Any, name: str, *, scale: tuple[float, float, float] = (1, 1, 1), turn: float = 0.0) -> Any:
    bpy.ops.mesh.primitive_cube_add(size=2.0, location=(0, 0, 0))
    obj = bpy.context.active_object
    obj.name = name
    obj.scale = scale
    obj.rotation_euler = (0.0, 0.0, math.radians(turn))
    return obj


def scene(bpy: Any) -> dict[str, Any]:
    """Three placeholders: two marked through their ``kiln_prompt``, one with Mark as Placeholder."""
    cube = add_cube(bpy, "Crate", scale=(2.0, 1.0, 0.5), turn=30.0)
    cube.location = (3.0, -1.0, 0.5)
    cube["kiln_prompt"] = "a wooden crate"
    empty = bpy.data.objects.new("Lamp post", None)
    empty.empty_display_type = "CUBE"
    empty.empty_display_size = 0.7
    empty.location = (-2.0, 2.0, 1.0)
    empty["kiln_prompt"] = "a street lamp"
    bpy.context.scene.collection.objects.link(empty)
    barrel = add_cube(bpy, "Barrel.003")
    barrel.location = (0.0, 4.0, 1.0)
    select(bpy, [barrel])
    assert bpy.ops.kiln.mark_placeholder(prompt="a wooden barrel") == {"FINISHED"}
    assert barrel.name == "Barrel.003"  # a name the artist gave stays
    bpy.context.view_layer.update()
    return {"cube": cube, "empty": empty, "barrel": barrel}


def select(bpy: Any, objects: list[Any]) -> None:
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj in objects)
    bpy.context.view_layer.objects.active = objects[0]


def results_of(bpy: Any, name: str) -> list[Any]:
    return [obj for obj in bpy.data.objects if obj.get("kiln_placeholder") == name]


def shown(bpy: Any, name: str) -> list[Any]:
    return [obj for obj in results_of(bpy, name) if not obj.hide_get()]


def box_in_frame(bpy: Any, objects: list[Any], placeholder: Any) -> tuple[list[float], list[float]]:
    """The objects' vertices, in the placeholder's frame (location and rotation, no scale)."""
    from mathutils import Matrix

    location, rotation, _ = placeholder.matrix_world.decompose()
    frame = (Matrix.Translation(location) @ rotation.to_matrix().to_4x4()).inverted()
    meshes = [obj for obj in objects if obj.type == "MESH"]
    points = [frame @ obj.matrix_world @ vertex.co for obj in meshes for vertex in obj.data.vertices]
    return [min(p[i] for p in points) for i in range(3)], [max(p[i] for p in points) for i in range(3)]


def placeholder_extent(placeholder: Any) -> tuple[list[float], list[float]]:
    scale = placeholder.matrix_world.to_scale()
    half = [placeholder.empty_display_size] * 3 if placeholder.type == "EMPTY" else [1.0, 1.0, 1.0]
    high = [h * s for h, s in zip(half, scale, strict=True)]
    return [-h for h in high], high


def test_contain_fits_three_placeholders_and_variants_cycle_and_keep(service: Any, blender: Any) -> None:
    objects = scene(blender)
    select(blender, list(objects.values()))
    assert blender.ops.kiln.generate_from_selection(fit="CONTAIN") == {"FINISHED"}

    prompts = [task.prompt for task in service.tasks.values()]
    assert sorted(prompts) == ["a street lamp", "a wooden barrel", "a wooden crate"]
    for placeholder in objects.values():
        results = results_of(blender, placeholder.name)
        assert results, placeholder.name
        assert all(obj.name.startswith(f"{placeholder.name} v1") for obj in results)
        assert all("kiln_task_id" in obj for obj in results)
        low, high = box_in_frame(blender, results, placeholder)
        p_low, p_high = placeholder_extent(placeholder)
        assert all(lo >= pl - TOLERANCE for lo, pl in zip(low, p_low, strict=True)), placeholder.name
        assert all(hi <= ph + TOLERANCE for hi, ph in zip(high, p_high, strict=True)), placeholder.name
        touching = [
            abs(hi - ph) < TOLERANCE and abs(lo - pl) < TOLERANCE
            for lo, hi, pl, ph in zip(low, high, p_low, p_high, strict=True)
        ]
        assert any(touching), placeholder.name
        assert low[2] == pytest.approx(p_low[2], abs=TOLERANCE)
        roots = [obj for obj in results if obj.parent is None]
        turn = placeholder.matrix_world.to_euler().z
        assert all(obj.matrix_world.to_euler().z == pytest.approx(turn, abs=1e-5) for obj in roots)
        assert placeholder.hide_get() and placeholder.hide_render

    barrel = objects["barrel"]
    select(blender, results_of(blender, barrel.name))
    assert blender.ops.kiln.generate_from_selection() == {"FINISHED"}
    assert {obj["kiln_variant"] for obj in results_of(blender, barrel.name)} == {1, 2}
    assert {obj["kiln_variant"] for obj in shown(blender, barrel.name)} == {2}

    blender.context.view_layer.objects.active = shown(blender, barrel.name)[0]
    assert blender.ops.kiln.variant_next() == {"FINISHED"}
    assert {obj["kiln_variant"] for obj in shown(blender, barrel.name)} == {1}
    assert blender.ops.kiln.variant_previous() == {"FINISHED"}
    assert {obj["kiln_variant"] for obj in shown(blender, barrel.name)} == {2}
    assert blender.ops.kiln.variant_previous() == {"FINISHED"}
    assert blender.ops.kiln.variant_keep() == {"FINISHED"}
    assert {obj["kiln_variant"] for obj in results_of(blender, barrel.name)} == {1}
    assert barrel.name in blender.data.objects


@pytest.mark.parametrize("fit", ["HEIGHT", "NONE"])
def test_height_and_none_fits_stand_on_the_placeholders_base(service: Any, blender: Any, fit: str) -> None:
    placeholder = add_cube(blender, "Tall thing", scale=(0.5, 0.5, 2.0), turn=45.0)
    placeholder.location = (1.0, 1.0, 2.0)
    placeholder["kiln_prompt"] = "a tall vase"
    blender.context.view_layer.update()
    select(blender, [placeholder])
    assert blender.ops.kiln.generate_from_selection(fit=fit) == {"FINISHED"}
    results = results_of(blender, placeholder.name)
    low, high = box_in_frame(blender, results, placeholder)
    assert low[2] == pytest.approx(-2.0, abs=TOLERANCE)
    if fit == "HEIGHT":
        assert high[2] - low[2] == pytest.approx(4.0, abs=TOLERANCE)
    else:
        roots = [obj for obj in results if obj.parent is None]
        assert all(obj.matrix_world.to_scale()[0] == pytest.approx(1.0) for obj in roots)


def test_objects_that_are_no_placeholder_are_skipped_and_named(
    service: Any, blender: Any, kiln_module: Any, tmp_path: Any
) -> None:
    unmarked = add_cube(blender, "Chair")  # a name alone asks for nothing: a click never pays for one
    missing = add_cube(blender, "Poster")
    missing["kiln_image"] = str(tmp_path / "no-such.png")
    select(blender, [unmarked, missing])
    with pytest.raises(
        RuntimeError,
        match=r"(?s)No selected object is a placeholder, so nothing was sent\..*"
        r"“Poster” was skipped: The image file .*no-such\.png does not exist\..*"
        r"“Chair” is not marked as a placeholder: select it and press Mark as Placeholder\.",
    ):
        blender.ops.kiln.generate_from_selection()
    assert service.submit_attempts == 0

    chair = add_cube(blender, "Chair.002")
    chair["kiln_prompt"] = "a wooden chair"
    still_default = add_cube(blender, "Cube.001")  # marked by hand, yet nobody named it
    still_default["kiln_prompt"] = "a box"
    camera = blender.data.objects.new("Shot", blender.data.cameras.new("Shot"))
    camera["kiln_prompt"] = "a camera"
    planned = kiln_module("session.blockout").plan([unmarked, chair, missing, still_default, camera], None)
    assert [request.prompt for request in planned.requests] == ["a wooden chair"]
    assert [request.placeholder for request in planned.requests] == ["Chair.002"]
    assert [(entry.name, entry.values["name"]) for entry in planned.skipped] == [
        ("BLOCKOUT_NOT_MARKED", "Chair"),
        ("BLOCKOUT_SKIPPED", "Poster"),
        ("BLOCKOUT_DEFAULT_NAME", "Cube.001"),
        ("BLOCKOUT_NOT_A_SHAPE", "Shot"),
    ]


def test_the_default_startup_file_sends_nothing_until_a_placeholder_is_marked(
    service: Any, blender: Any, kiln_module: Any
) -> None:
    from blockout_layout import draw

    panel = kiln_module("panels.generate").KILN_PT_blockout
    blender.ops.wm.read_homefile(use_factory_startup=True)
    assert sorted(obj.name for obj in blender.data.objects) == ["Camera", "Cube", "Light"]
    blender.ops.object.select_all(action="SELECT")
    layout = draw(panel, blender.context)
    assert not layout.buttons()["kiln.generate_from_selection"]  # no job offered
    assert "3 selected objects are not placeholders and are left out." in layout.text()
    with pytest.raises(
        RuntimeError,
        match=r"(?s)No selected object is a placeholder, so nothing was sent\..*"
        r"“Cube” still has the name Blender gave it",
    ):
        blender.ops.kiln.generate_from_selection()
    assert service.submit_attempts == 0

    # Marking the whole selection marks the Cube alone, and names it after what it asks for.
    assert blender.ops.kiln.mark_placeholder(prompt="a wooden crate") == {"FINISHED"}
    assert [obj.name for obj in blender.data.objects if "kiln_prompt" in obj] == ["a wooden crate"]
    assert draw(panel, blender.context).buttons()["kiln.generate_from_selection"]
    assert blender.ops.kiln.generate_from_selection() == {"FINISHED"}
    assert [task.prompt for task in service.tasks.values()] == ["a wooden crate"]
    assert results_of(blender, "a wooden crate")


def test_an_image_placeholder_sends_an_image_job(service: Any, blender: Any) -> None:
    from concepts import CONCEPTS

    placeholder = add_cube(blender, "Seat")
    placeholder["kiln_image"] = str(CONCEPTS / "chair.png")
    select(blender, [placeholder])
    assert blender.ops.kiln.generate_from_selection(resolution="1024") == {"FINISHED"}
    (task,) = service.tasks.values()
    assert task.kind == "image" and task.resolution == 1024
    assert results_of(blender, "Seat")[0]["kiln_image"] == str(CONCEPTS / "chair.png")


def test_import_options_origin_scale_and_smooth(service: Any, blender: Any) -> None:
    placeholder = add_cube(blender, "Stool", scale=(1.0, 1.0, 1.0))
    placeholder["kiln_prompt"] = "a wooden stool"
    select(blender, [placeholder])
    assert blender.ops.kiln.generate_from_selection(
        origin_at_base=True, apply_scale=True, smooth_by_angle=True
    ) == {"FINISHED"}
    meshes = [obj for obj in results_of(blender, "Stool") if obj.type == "MESH" and not obj.children]
    assert meshes
    for obj in meshes:
        assert tuple(obj.matrix_world.to_scale()) == pytest.approx((1.0, 1.0, 1.0))
        low = min(v.co.z for v in obj.data.vertices)
        assert low == pytest.approx(0.0, abs=TOLERANCE)
        assert all(poly.use_smooth for poly in obj.data.polygons)


def test_target_height_at_the_cursor(service: Any, blender: Any, kiln_module: Any) -> None:
    kiln_module("preferences").get().target_height = 2.5
    try:
        assert blender.ops.kiln.generate_from_text(prompt="a lamp") == {"FINISHED"}
    finally:
        kiln_module("preferences").get().target_height = 0.0
    objects = [obj for obj in blender.data.objects if "kiln_task_id" in obj]
    placement = kiln_module("session.placement")
    low, high = placement.world_bounds(objects)
    assert high.z - low.z == pytest.approx(2.5, abs=TOLERANCE)


def test_the_blockout_panel_counts_jobs_prices_them_and_shows_variants(
    service: Any, blender: Any, kiln_module: Any
) -> None:
    from blockout_layout import draw
    from concepts import CONCEPTS
    from guards import main_thread_must_not_wait

    panel = kiln_module("panels.generate").KILN_PT_blockout
    assert panel.bl_parent_id == "KILN_PT_generate"
    assert "press Mark as Placeholder" in draw(panel, blender.context).text()

    crate = add_cube(blender, "Crate.001")
    crate["kiln_prompt"] = "a wooden crate"
    poster = add_cube(blender, "Poster")
    poster["kiln_image"] = str(CONCEPTS / "chair.png")
    nameless = add_cube(blender, "12")
    select(blender, [crate, poster, nameless])
    with main_thread_must_not_wait() as offences:
        layout = draw(panel, blender.context)
    assert offences == []
    assert "2 placeholders: 4 credits and 1 text job of unknown price" in layout.text()
    assert "“12” is not marked as a placeholder: select it and press Mark as Placeholder." in layout.text()
    assert layout.buttons()["kiln.generate_from_selection"] and layout.buttons()["kiln.mark_placeholder"]
    assert "kiln.variant_next" not in layout.buttons()
    select(blender, [crate, nameless, add_cube(blender, "Cube")])
    assert "2 selected objects are not placeholders and are left out." in draw(panel, blender.context).text()

    select(blender, [crate])
    assert blender.ops.kiln.generate_from_selection() == {"FINISHED"}
    select(blender, results_of(blender, "Crate.001"))
    layout = draw(panel, blender.context)
    assert "“Crate.001”: variant 1 of 1" in layout.text()
    assert {"kiln.variant_previous", "kiln.variant_next", "kiln.variant_keep"} <= set(layout.buttons())

    select(blender, [nameless])
    assert not draw(panel, blender.context).buttons()["kiln.generate_from_selection"]


def test_a_credit_cap_refuses_the_whole_selection_before_anything_is_sent(service: Any, blender: Any) -> None:
    objects = list(scene(blender).values())
    for obj in objects:  # three image jobs at 1536: 12 credits
        obj["kiln_image"] = str(CONCEPTS / "chair.png")
    select(blender, objects)
    with pytest.raises(RuntimeError, match=r"would cost 12 credits, more than the 10 credits allowed"):
        blender.ops.kiln.generate_from_selection(max_credits=10)
    assert service.submit_count == 0
    assert not [obj for obj in blender.data.objects if obj.get("kiln_placeholder")]
    assert all(not obj.hide_get() for obj in objects)


def test_an_identical_earlier_result_fills_a_placeholder_from_the_library(service: Any, blender: Any) -> None:
    select(blender, [scene(blender)["barrel"]])
    assert blender.ops.kiln.generate_from_selection() == {"FINISHED"}
    sent = service.submit_count
    blender.ops.wm.read_homefile(use_empty=True)
    barrel = scene(blender)["barrel"]
    select(blender, [barrel])
    assert blender.ops.kiln.generate_from_selection(reuse="ALWAYS") == {"FINISHED"}
    assert service.submit_count == sent  # nothing sent: the library's copy
    results = results_of(blender, "Barrel.003")
    assert results and all(obj.get("kiln_reused") for obj in results)
    low, _high = box_in_frame(blender, results, barrel)
    assert abs(low[2] + 1.0) < TOLERANCE  # standing on the placeholder's base (a cube of half-size 1)
    assert barrel.hide_get()


def test_import_options_are_arguments_of_the_text_and_image_operators_too(service: Any, blender: Any) -> None:
    assert blender.ops.kiln.generate_from_text(
        prompt="a stool", origin_at_base=True, smooth_by_angle=True, target_height=2.0
    ) == {"FINISHED"}
    assert blender.ops.kiln.generate_from_image(
        filepath=str(CONCEPTS / "chair.png"), resolution="1024", origin_at_base=True
    ) == {"FINISHED"}
    stool = [o for o in blender.data.objects if o.get("kiln_prompt") == "a stool" and o.type == "MESH"]
    chair = [o for o in blender.data.objects if o.get("kiln_image") and o.type == "MESH"]
    assert stool and chair
    for obj in stool + chair:
        assert min(v.co.z for v in obj.data.vertices) == pytest.approx(0.0, abs=TOLERANCE)
    assert all(poly.use_smooth for obj in stool for poly in obj.data.polygons)
    tops = [max((obj.matrix_world @ v.co).z for v in obj.data.vertices) for obj in stool]
    bottoms = [min((obj.matrix_world @ v.co).z for v in obj.data.vertices) for obj in stool]
    assert max(tops) - min(bottoms) == pytest.approx(2.0, abs=1e-3)


@pytest.mark.parametrize("select_result", [False, True], ids=["placeholder", "its result"])
def test_generating_again_for_a_placeholder_with_a_result_sends_a_new_variant_despite_the_library(
    service: Any, blender: Any, select_result: bool
) -> None:
    barrel = scene(blender)["barrel"]
    select(blender, [barrel])
    assert blender.ops.kiln.generate_from_selection() == {"FINISHED"}
    sent = service.submit_count
    if not select_result:
        barrel.hide_set(False)  # a hidden object cannot be selected: the artist shows it first (Alt+H)
    select(blender, results_of(blender, barrel.name) if select_result else [barrel])
    # Background mode: reuse ASK means "use the library's copy", and the prompt is in the library now.
    assert blender.ops.kiln.generate_from_selection() == {"FINISHED"}
    assert service.submit_count == sent + 1  # a new request: a variant is the point
    results = results_of(blender, barrel.name)
    assert {obj["kiln_variant"] for obj in results} == {1, 2}
    assert not any(obj.get("kiln_reused") for obj in results)
    task_ids = {obj["kiln_task_id"] for obj in results if obj.get("kiln_task_id")}
    assert len(task_ids) == 2


def test_the_panel_and_the_credit_prompt_say_a_placeholder_with_a_result_gets_a_new_variant(
    service: Any, blender: Any, kiln_module: Any
) -> None:
    from blockout_layout import draw

    blockout = kiln_module("session.blockout")
    panel = kiln_module("panels.generate").KILN_PT_blockout
    objects = scene(blender)
    select(blender, [objects["barrel"]])
    assert "already" not in draw(panel, blender.context).text()
    assert blender.ops.kiln.generate_from_selection() == {"FINISHED"}
    select(blender, [*results_of(blender, "Barrel.003"), objects["cube"]])
    sentence = "1 of them already has a result: it gets a new variant, sent again."
    assert sentence in draw(panel, blender.context).text()
    requests = [blockout.quick_request(obj, None) for obj in blockout.placeholders(blender.context)]
    assert len(requests) == 2
    # What the credit prompt adds to its question: the same count in the same words.
    assert blockout.with_results(requests) == 1
    assert (
        kiln_module("language").report(kiln_module("api.words.catalogue").BLOCKOUT_NEW_VARIANTS, n=1)
        == sentence
    )
