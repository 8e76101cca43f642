"""Kiln's OpenJD template, run by OpenJD's own reference runner (`openjd run`) against the sandbox.

Each Generate task runs the real farm script under the bpy module (the Blender stand-in only drops
Blender's command-line flags), installs the built zip, and talks to the sandbox over HTTP.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from concepts import CONCEPTS
from farm_tools import (
    FARM_SCRIPT,
    TEMPLATE,
    assets,
    openjd_run,
    service_env,
    summary_rows,
)

pytestmark = pytest.mark.slow

PROMPTS = ["a red chair", "a blue table", "an old brass lamp", "a stone well", "a wooden crate"]


def params(prompts: Path, output: Path, kiln_zip: Path, blender_exe: Path, count: int, **more: Any) -> dict:
    return {
        "PromptsFile": prompts,
        "PromptCount": count,
        "OutputDir": output,
        "KilnZip": kiln_zip,
        "FarmScript": FARM_SCRIPT,
        "BlenderExecutable": blender_exe,
        "ChunkSize": 2,
        **more,
    }


def test_the_template_passes_openjd_check(openjd: Path) -> None:
    done = subprocess.run([str(openjd), "check", str(TEMPLATE)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_five_prompts_in_chunks_of_two_then_a_rerun_sends_nothing(
    openjd: Path, kiln_zip: Path, blender_exe: Path, sandbox: Any, sandbox_key: str, tmp_path: Path
) -> None:
    prompts = tmp_path / "prompts.txt"
    prompts.write_text("# props for level 3\n" + "\n".join(PROMPTS) + "\n", encoding="utf-8")
    output = tmp_path / "out"
    env = service_env(sandbox.base_url, sandbox_key)
    job = params(prompts, output, kiln_zip, blender_exe, len(PROMPTS))

    run = openjd_run(openjd, job, env)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert run.stdout.count("Prompts(CHUNK[INT]) = ") == 3  # three Generate tasks: 1-2, 3-4, 5
    assert sandbox.submit_count == 5
    files = assets(output)
    names = [
        f"{line:04d}-{slug}"
        for line, slug in [
            (2, "a-red-chair"),
            (3, "a-blue-table"),
            (4, "an-old-brass-lamp"),
            (5, "a-stone-well"),
            (6, "a-wooden-crate"),
        ]
    ]
    assert sorted(files) == sorted([f"{n}.blend" for n in names] + [f"{n}.glb" for n in names])
    assert all(data[:4] == b"glTF" for name, data in files.items() if name.endswith(".glb"))
    rows = summary_rows(output)
    assert [row["line"] for row in rows] == [2, 3, 4, 5, 6]
    assert {row["state"] for row in rows} == {"done"}
    assert all(row["task_id"] in sandbox.tasks and row["triangles"] for row in rows)
    assert rows[0]["prompt"] == "a red chair" and rows[0]["files"] == [f"{names[0]}.blend", f"{names[0]}.glb"]
    assert len(list((output / "manifests").glob("*.json"))) == 3
    assert sandbox_key not in run.stdout + run.stderr
    assert not any(sandbox_key.encode() in p.read_bytes() for p in output.rglob("*") if p.is_file())

    again = openjd_run(openjd, job, env, "--step", "Generate")
    assert again.returncode == 0, again.stdout[-4000:]
    assert sandbox.submit_count == 5
    assert assets(output) == files


def test_a_task_killed_after_its_submits_resumes_and_sends_nothing(
    kiln_zip: Path, blender_exe: Path, sandbox_factory: Any, sandbox_key: str, tmp_path: Path
) -> None:
    sandbox = sandbox_factory(speed=0.001)  # nothing finishes on its own: the task is surely waiting
    prompts = tmp_path / "prompts.txt"
    prompts.write_text("\n".join(PROMPTS[:2]) + "\n", encoding="utf-8")
    output = tmp_path / "out"
    command = [str(blender_exe), "-b", "--factory-startup", "-P", str(FARM_SCRIPT), "--", "generate"]
    command += [
        "--prompts",
        str(prompts),
        "--output",
        str(output),
        "--kiln-zip",
        str(kiln_zip),
        "--items",
        "1-2",
    ]
    env = service_env(sandbox.base_url, sandbox_key, BLENDER_USER_RESOURCES=str(tmp_path / "user-1"))

    task = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ledger = output / "ledger"
    while len(recorded := task_ids(ledger)) < 2 and task.poll() is None:
        time.sleep(0.1)
    task.kill()  # SIGKILL: no cleanup runs, as when a farm worker dies
    task.wait()
    assert len(recorded) == 2 and sandbox.submit_count == 2
    assert assets(output) == {}
    for task_id in recorded:
        sandbox.complete_now(task_id)

    env["BLENDER_USER_RESOURCES"] = str(tmp_path / "user-2")  # another machine: nothing but OutputDir
    rerun = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert rerun.returncode == 0, rerun.stdout[-4000:] + rerun.stderr[-4000:]
    assert sandbox.submit_count == 2
    assert sorted(assets(output)) == [
        "0001-a-red-chair.blend",
        "0001-a-red-chair.glb",
        "0002-a-blue-table.blend",
        "0002-a-blue-table.glb",
    ]
    assert "following task" in rerun.stderr
    manifest = json.loads(next((output / "manifests").glob("*.json")).read_text(encoding="utf-8"))
    assert sorted(row["task_id"] for row in manifest["assets"]) == sorted(recorded)


def test_max_credits_below_the_estimate_sends_nothing(
    openjd: Path, kiln_zip: Path, blender_exe: Path, sandbox: Any, sandbox_key: str, tmp_path: Path
) -> None:
    shutil.copy(CONCEPTS / "chair.png", tmp_path / "chair.png")
    prompts = tmp_path / "images.csv"
    prompts.write_text("image,name\nchair.png,Chair A\nchair.png,Chair B\n", encoding="utf-8")
    output = tmp_path / "out"
    job = params(prompts, output, kiln_zip, blender_exe, 2, Resolution="1536", MaxCredits=5)

    run = openjd_run(openjd, job, service_env(sandbox.base_url, sandbox_key))
    assert run.returncode != 0
    assert "Nothing was sent: the whole job needs 8 credits, more than MaxCredits (5)" in run.stdout
    assert sandbox.submit_count == 0
    assert assets(output) == {} and not (output / "ledger").exists()


def test_an_image_line_too_small_is_refused_and_the_others_are_sent(
    openjd: Path, kiln_zip: Path, blender_exe: Path, sandbox: Any, sandbox_key: str, tmp_path: Path
) -> None:
    """Image lines go through Kiln's image check on the worker (its Pillow from Kiln's zip): the
    refused one is said in the task's log and sends nothing, the other is made."""
    from fixtures.concept_images import write_case

    shutil.copy(CONCEPTS / "chair.png", tmp_path / "chair.png")
    tiny = write_case(tmp_path, "tiny")
    prompts = tmp_path / "images.csv"
    prompts.write_text(f"image,name\n{tiny.name},Badge\nchair.png,Chair\n", encoding="utf-8")
    output = tmp_path / "out"
    job = params(prompts, output, kiln_zip, blender_exe, 2)

    run = openjd_run(openjd, job, service_env(sandbox.base_url, sandbox_key))
    assert run.returncode != 0  # a line not made fails its task, for the farm's operators to see
    assert "0002-badge: Badge is 64 by 64 pixels" in run.stdout and "nothing was sent" in run.stdout
    assert sandbox.submit_count == 1
    assert sorted(assets(output)) == ["0003-chair.blend", "0003-chair.glb"]


def task_ids(ledger: Path) -> list[str]:
    found = []
    for path in ledger.glob("*.json") if ledger.is_dir() else []:
        try:
            task_id = json.loads(path.read_text(encoding="utf-8")).get("task_id")
        except ValueError:
            continue
        if task_id:
            found.append(task_id)
    return found


def test_a_send_cut_off_before_its_answer_is_never_sent_again(
    kiln_zip: Path, blender_exe: Path, sandbox: Any, sandbox_key: str, tmp_path: Path
) -> None:
    prompts = tmp_path / "prompts.txt"
    prompts.write_text("a red chair\n", encoding="utf-8")
    output = tmp_path / "out"
    (output / "ledger").mkdir(parents=True)
    (output / "ledger" / "0001-a-red-chair.json").write_text('{"line": 1, "task_id": ""}', encoding="utf-8")
    command = [str(blender_exe), "-b", "--factory-startup", "-P", str(FARM_SCRIPT), "--", "generate"]
    command += ["--prompts", str(prompts), "--output", str(output), "--kiln-zip", str(kiln_zip)]
    env = service_env(sandbox.base_url, sandbox_key, BLENDER_USER_RESOURCES=str(tmp_path / "user"))

    run = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 1
    assert sandbox.submit_count == 0
    (row,) = json.loads(next((output / "manifests").glob("*.json")).read_text(encoding="utf-8"))["assets"]
    assert row["state"] == "outcome unknown"
    assert "delete ledger/0001-a-red-chair.json" in row["error"]
