"""Several real Blender processes on one user folder, against one sandbox: each job sent, kept,
downloaded and imported exactly once, by the Blender that owns it."""

from __future__ import annotations

import collections
import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from checkout import BLENDER_SCRIPTS, ROOT

SCRIPTS = BLENDER_SCRIPTS
JOBS_EACH = 5


def child_env(user: Path, base_url: str, key: str) -> dict[str, str]:
    return {**os.environ, "BLENDER_USER_RESOURCES": str(user), "KILN_BASE_URL": base_url, "KILN_API_KEY": key}


def mounted_repo(tmp_path: Path) -> Path:
    """One extension repository linking the working tree, shared by every child (made before any starts)."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "kiln").symlink_to(ROOT, target_is_directory=True)
    return repo


def start(
    name: str, jobs: int, out: Path, repo: Path, env: dict[str, str], linger: float = 0
) -> subprocess.Popen[str]:
    argv = [sys.executable, str(SCRIPTS / "share_child.py"), "--", str(repo), name, str(jobs), str(out)]
    if linger:
        argv.append(str(linger))
    return subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def report_of(process: subprocess.Popen[str], timeout: float = 240) -> dict[str, Any]:
    output, _ = process.communicate(timeout=timeout)
    lines = [line for line in output.splitlines() if line.startswith("REPORT ")]
    assert process.returncode == 0 and lines, output[-4000:]
    return json.loads(lines[-1][len("REPORT ") :])


def prompts_in(blend: Path) -> list[str]:
    """What a fresh Blender finds in the saved file (not what the saving process believed)."""
    done = subprocess.run(
        [sys.executable, str(SCRIPTS / "read_blend.py"), "--", str(blend)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    line = next((line for line in done.stdout.splitlines() if line.startswith("PROMPTS ")), None)
    assert line is not None, done.stdout[-2000:] + done.stderr[-2000:]
    return json.loads(line[len("PROMPTS ") :])


def store_records(user: Path) -> list[dict[str, Any]]:
    (path,) = user.rglob("jobs.sqlite3")
    with sqlite3.connect(path) as db:
        return [json.loads(data) for (data,) in db.execute("SELECT data FROM jobs")]


@pytest.mark.slow
@pytest.mark.parametrize("blenders", [2, 3])
def test_blenders_sharing_a_folder_send_download_and_import_each_job_once(
    sandbox_factory: Any, sandbox_key: str, tmp_path: Path, blenders: int
) -> None:
    sandbox = sandbox_factory(speed=5.0)
    user, repo = tmp_path / "user", mounted_repo(tmp_path)
    env = child_env(user, sandbox.base_url, sandbox_key)
    names = [f"b{n}" for n in range(blenders)]
    children = {name: start(name, JOBS_EACH, tmp_path / f"{name}.blend", repo, env) for name in names}
    reports = {name: report_of(child) for name, child in children.items()}

    total = blenders * JOBS_EACH
    sends = [r for r in sandbox.requests if r.method == "POST"]
    assert len(sends) == total == sandbox.submit_count
    records = store_records(user)
    assert len(records) == total
    assert all(record["state"] == "imported" for record in records), [
        (r["request"]["prompt"], r["state"], r["error"]) for r in records
    ]
    meshes = [r.path for r in sandbox.requests if r.method == "GET" and r.path.endswith(".glb")]
    assert len(meshes) == total
    assert max(collections.Counter(meshes).values()) == 1, "a mesh was downloaded twice"
    for name in names:
        own = sorted(f"{name}-{i}" for i in range(JOBS_EACH))
        assert reports[name]["prompts"] == own
        assert len(reports[name]["mine"]) == JOBS_EACH
        assert len(reports[name]["states"]) >= JOBS_EACH  # it lists the others' jobs too
        assert prompts_in(tmp_path / f"{name}.blend") == own


@pytest.mark.slow
def test_a_blender_started_while_another_waits_leaves_its_job_alone(
    sandbox_factory: Any, sandbox_key: str, tmp_path: Path
) -> None:
    slow = sandbox_factory(speed=0.5)  # the first Blender's task takes about ten seconds
    elsewhere = sandbox_factory()  # the late Blender's service: any request it made would land here
    user, repo = tmp_path / "user", mounted_repo(tmp_path)
    first = start("first", 1, tmp_path / "first.blend", repo, child_env(user, slow.base_url, sandbox_key))
    deadline = time.monotonic() + 120
    while slow.submit_count < 1:
        assert first.poll() is None and time.monotonic() < deadline, "the first Blender sent nothing"
        time.sleep(0.1)

    late = start(
        "late", 0, tmp_path / "late.blend", repo, child_env(user, elsewhere.base_url, sandbox_key), 4.0
    )
    late_report = report_of(late)
    first_report = report_of(first)

    assert elsewhere.requests == [], "the late Blender polled or downloaded the other's job"
    (job_id,) = first_report["mine"]
    assert "runs in a background Blender" in late_report["elsewhere"][job_id]
    assert late_report["prompts"] == [] and prompts_in(tmp_path / "late.blend") == []
    assert first_report["prompts"] == ["first-0"]
    assert slow.submit_count == 1
