"""`make demo`: Kiln end to end against the local sandbox — no key, no network.

Starts the sandbox and the stand-ins of Tripo, Meshy, Hyper3D Rodin, fal.ai, ComfyUI and
Hunyuan3D's server, each on a free loopback port, runs Blender headless (the bpy module) in its own
throw-away user folder with Kiln enabled from this working tree, generates one text prompt, one
concept image and a three-prompt batch on the interface document's service, one prompt through each
other cloud service (the concept image through fal.ai, which takes no prompt) and the concept image
through each studio server, and writes to demo-out/: kiln-demo.blend, a rendered kiln-demo.png and
summary.json. Prints a summary, stops the stand-ins, exits 0.
"""

from __future__ import annotations

import argparse
import importlib
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PROMPTS = ROOT / "examples" / "prompts.txt"
TEXT_PROMPT = "a red armchair"
DEMO_KEY = "sbx_live_kilndemo00000000"
#: The other services: their stand-in, the key it takes, where Kiln reads both, the prompt sent there.
OTHER_SERVICES = (
    ("TRIPO", "tripo", "tsk_live_kilndemo00000000", "KILN_TRIPO", "a brass lantern"),
    ("MESHY", "meshy", "msy_live_kilndemo00000000", "KILN_MESHY", "a wooden stool"),
    ("RODIN", "rodin", "rodin_live_kilndemo0000000", "KILN_RODIN", "a stone garden lamp"),
)
#: The services that take an image only: the concept image goes there.
IMAGE_SERVICES = (("FAL", "fal", "fal_live_kilndemo00000000", "KILN_FAL", ""),)
#: The studio's own servers (no key): their stand-in and where Kiln reads its address; the concept
#: image goes to each.
LOCAL_SERVICES = (("COMFYUI", "comfyui", "KILN_COMFYUI"), ("HUNYUAN3D", "hunyuan3d", "KILN_HUNYUAN3D"))
GAP = 0.5
WIDTH, HEIGHT = 960, 540
MARGIN = 1.1
VIEW_DIRECTION = (0.35, -1.0, 0.5)  # from the objects towards the camera: front right, above


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="examples/demo.py", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "demo-out", help="folder for the three files")
    parser.add_argument("--speed", type=float, default=1.0, help="sandbox time scale (1 = real timings)")
    return parser.parse_args()


def start_sandbox(
    speed: float, service: str = "interface", key: str = DEMO_KEY
) -> tuple[subprocess.Popen[str], str]:
    """`python -m sandbox` on a free port; returns the process and the base URL it printed."""
    command = [sys.executable, "-m", "sandbox", "--port", "0", "--key", key, "--speed", str(speed)]
    command += ["--service", service]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    first = process.stdout.readline().strip()
    if not first.startswith("Kiln sandbox listening on "):
        process.kill()
        raise SystemExit(f"demo: the sandbox did not start ({first or 'no output'})")
    return process, first.rsplit(" ", 1)[1]


def main() -> int:
    args = parse_args()
    work = Path(tempfile.mkdtemp(prefix="kiln-demo-"))
    # Before bpy is imported: this Blender must neither read nor change the user's own settings.
    os.environ["BLENDER_USER_RESOURCES"] = str(work / "blender")
    sandbox, base_url = start_sandbox(args.speed)
    print(f"Sandbox at {base_url} (speed {args.speed:g}x)", flush=True)
    os.environ["KILN_BASE_URL"], os.environ["KILN_API_KEY"] = base_url, DEMO_KEY
    stand_ins = [sandbox]
    try:
        for service, standin, key, variable, _prompt in OTHER_SERVICES + IMAGE_SERVICES:
            process, url = start_sandbox(args.speed, standin, key)
            stand_ins.append(process)
            print(f"{service.title()} stand-in at {url}", flush=True)
            os.environ[f"{variable}_BASE_URL"], os.environ[f"{variable}_API_KEY"] = url, key
        for service, standin, variable in LOCAL_SERVICES:
            process, url = start_sandbox(args.speed, standin)
            stand_ins.append(process)
            print(f"{service.title()} stand-in at {url}", flush=True)
            os.environ[f"{variable}_BASE_URL"] = url
        return run(args.out.resolve(), work)
    finally:
        for process in stand_ins:
            stop_sandbox(process)
        shutil.rmtree(work, ignore_errors=True)


def stop_sandbox(process: subprocess.Popen[str]) -> None:
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def run(out: Path, work: Path) -> int:
    import bpy

    sys.path.insert(0, str(ROOT / "tests" / "support" / "blender_scripts"))
    sys.path.insert(0, str(ROOT))
    from harness import enable_kiln

    from fixtures.concept_images import write_concept

    image = write_concept(work / "concepts", "chair")

    addon = enable_kiln(work / "extensions")
    kiln = importlib.import_module(addon)
    bpy.ops.wm.read_homefile(use_empty=True)
    bpy.context.preferences.system.use_online_access = True
    started = time.monotonic()

    print(f"Text:  “{TEXT_PROMPT}”", flush=True)
    before = kiln_objects(bpy)
    bpy.ops.kiln.generate_from_text(prompt=TEXT_PROMPT)
    print(f"Image: {image.name} (drawn by fixtures/concept_images.py)", flush=True)
    before = line_up(kiln, before)
    bpy.ops.kiln.generate_from_image(filepath=str(image), resolution="1024")
    before = line_up(kiln, before)
    for service, _standin, _key, _variable, prompt in OTHER_SERVICES:
        print(f"{kiln.api.services.info(service).name}: “{prompt}”", flush=True)
        bpy.ops.kiln.generate_from_text(prompt=prompt, service=service)
        before = line_up(kiln, before)
    for service in [entry[0] for entry in IMAGE_SERVICES + LOCAL_SERVICES]:
        print(f"{kiln.api.services.info(service).name}: {image.name}", flush=True)
        bpy.ops.kiln.generate_from_image(filepath=str(image), service=service)
        before = line_up(kiln, before)
    print(f"Batch: {PROMPTS.relative_to(ROOT)}", flush=True)
    high = kiln.session.placement.world_bounds(kiln_objects(bpy))[1]
    bpy.context.scene.cursor.location = (high.x + GAP, high.y, 0.0)
    bpy.ops.kiln.generate_batch(filepath=str(PROMPTS))

    out.mkdir(parents=True, exist_ok=True)
    stage(bpy, kiln)
    bpy.ops.wm.save_as_mainfile(filepath=str(out / "kiln-demo.blend"))
    bpy.context.scene.render.filepath = str(out / "kiln-demo.png")
    bpy.ops.render.render(write_still=True)
    summary = kiln.api.features.batch.summarize(kiln.session.runtime.engine().jobs())
    kiln.api.features.batch.write_summary(out / "summary.json", summary)
    bpy.ops.preferences.addon_disable(module=addon)

    print("\n" + "\n".join(kiln.api.features.batch.summary_lines(summary)))
    print(f"\nDone in {time.monotonic() - started:.0f} s. In {out}:")
    for name in ("kiln-demo.blend", "kiln-demo.png", "summary.json"):
        print(f"  {name}")
    return 0 if summary["failed"] == 0 else 1


def kiln_objects(bpy: Any) -> list[Any]:
    return [obj for obj in bpy.data.objects if "kiln_task_id" in obj]


def line_up(kiln: ModuleType, before: list[Any]) -> list[Any]:
    """Move what the last job imported to the right of what was there, so nothing overlaps."""
    import bpy

    everything = kiln_objects(bpy)
    new = [obj for obj in everything if obj not in before]
    if before and new:
        world_bounds = kiln.session.placement.world_bounds
        shift = world_bounds(before)[1].x + GAP - world_bounds(new)[0].x
        for obj in new:
            if obj.parent is None:
                obj.location.x += shift
        bpy.context.view_layer.update()
    return everything


def stage(bpy: Any, kiln: ModuleType) -> None:
    """A camera framing every Kiln object, a sun, and Workbench (renders headless everywhere)."""
    scene = bpy.context.scene
    scene.render.resolution_x, scene.render.resolution_y = WIDTH, HEIGHT
    camera = bpy.data.objects.new("Demo Camera", bpy.data.cameras.new("Demo Camera"))
    scene.collection.objects.link(camera)
    frame(camera, kiln_objects(bpy), kiln.session.placement.world_bounds)
    scene.camera = camera
    sun = bpy.data.objects.new("Demo Sun", bpy.data.lights.new("Demo Sun", type="SUN"))
    sun.rotation_euler = (0.7, 0.2, 0.6)
    scene.collection.objects.link(sun)
    scene.world = bpy.data.worlds.new("Demo World")
    scene.world.color = (0.22, 0.23, 0.25)
    scene.render.engine = "BLENDER_WORKBENCH"
    scene.display.shading.light = "STUDIO"
    scene.display.shading.color_type = "TEXTURE"
    scene.render.image_settings.file_format = "PNG"


def frame(camera: Any, objects: list[Any], world_bounds: Any) -> None:
    """Aim the camera along VIEW_DIRECTION and back it off until every object's box is in view."""
    from mathutils import Vector

    low, high = world_bounds(objects)
    center = (low + high) / 2
    back = Vector(VIEW_DIRECTION).normalized()
    camera.rotation_euler = (-back).to_track_quat("-Z", "Y").to_euler()
    right = Vector((1.0, 0.0, 0.0))
    right.rotate(camera.rotation_euler)
    up = back.cross(right)
    tan_x = math.tan(camera.data.angle_x / 2)
    tan_y = tan_x * HEIGHT / WIDTH
    distance = 0.0
    for obj in objects:
        for corner in obj.bound_box:
            offset = obj.matrix_world @ Vector(corner) - center
            near = offset.dot(back)
            distance = max(
                distance, near + abs(offset.dot(right)) / tan_x, near + abs(offset.dot(up)) / tan_y
            )
    camera.location = center + back * distance * MARGIN


if __name__ == "__main__":
    sys.exit(main())
