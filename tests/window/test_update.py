"""Kiln from the studio's repository in Debian's Blender program: installed with `blender --command
extension`, updated through Blender's own extension update while jobs run, then rolled back.

Version N is the working tree as 9.0.0; N+1 (9.0.1) adds a schema step to the job store (schema 2,
a new table) and writes library entries of a newer format. Both are published with `make repo`'s
code (``tools/repo.py``) into one folder the program reads through a ``file://`` URL.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
import sys
import time
from collections.abc import Callable
from pathlib import Path

from program import FIRST_START_PREFERENCES, REPO, Display, Program, Window

from sandbox.server import Sandbox

sys.path.insert(0, str(REPO / "tests" / "system" / "studio"))
from studio_tools import kiln_source, publish

MODULE = "bl_ext.studio.kiln"
PREFS = f"bpy.context.preferences.addons[{MODULE!r}].preferences"
IN_VIEW3D = "with in_view3d('WINDOW'):\n    "
ACTIVE = "('submitting', 'queued', 'running', 'downloading')"
SLOW = 0.02  # a text job takes minutes unless the test finishes it
PROMPTS = ["a brass telescope", "a mossy stone lantern", "a red fire hydrant"]
#: N+1's schema step, put into its store_file.py after WAL mode is set.
STORE_ANCHOR = (
    '            db.execute("PRAGMA synchronous=FULL")  # a recorded task id survives a power cut too\n'
)
STORE_STEP = """\
            if version == 1:  # the update test's schema step: 1 -> 2 adds a table
                db.execute("BEGIN IMMEDIATE")
                if db.execute("PRAGMA user_version").fetchone()[0] == 1:
                    db.execute("CREATE TABLE tags (job TEXT NOT NULL, tag TEXT NOT NULL)")
                    db.execute("PRAGMA user_version = 2")
                db.execute("COMMIT")
"""
UPDATE = """\
bpy.ops.extensions.repo_sync_all()
bpy.ops.extensions.package_upgrade_all()
result = True
"""


def with_schema_step(source: Path) -> None:
    store = source / "api" / "jobs" / "store_file.py"
    text = store.read_text(encoding="utf-8")
    assert STORE_ANCHOR in text and "SCHEMA_VERSION = 1\n" in text, (
        "store_file.py changed: update the test's step"
    )
    text = text.replace("SCHEMA_VERSION = 1\n", "SCHEMA_VERSION = 2\n").replace(
        STORE_ANCHOR, STORE_ANCHOR + STORE_STEP
    )
    store.write_text(text, encoding="utf-8")
    index = source / "api" / "features" / "library_index.py"
    text = index.read_text(encoding="utf-8")
    assert "ENTRY_FORMAT = 1\n" in text
    index.write_text(text.replace("ENTRY_FORMAT = 1\n", "ENTRY_FORMAT = 2\n"), encoding="utf-8")


def installed_version(user: Path) -> str:
    manifest = (user / "extensions" / "studio" / "kiln" / "blender_manifest.toml").read_text(encoding="utf-8")
    found = re.search(r'(?m)^version = "(.*)"$', manifest)
    return found.group(1) if found else ""


def store_of(user: Path) -> Path:
    return user / "extensions" / ".user" / "studio" / "kiln" / "jobs.sqlite3"


def schema(path: Path) -> int:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return int(db.execute("PRAGMA user_version").fetchone()[0])
    finally:
        db.close()


def dump(path: Path) -> list[str]:
    """The store's content, less the running processes' heartbeat rows (N+1 removes its own on exit)."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return [line for line in db.iterdump() if not line.startswith('INSERT INTO "owners"')]
    finally:
        db.close()


def files_of(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def jobs(window: Window) -> list[dict[str, str]]:
    return list(window.call("result = kiln_jobs()"))


def test_update_while_jobs_run_lands_each_once_then_a_rollback_changes_nothing(
    program: Program, display: Display, sandbox_factory: Callable[..., Sandbox], sandbox_key: str
) -> None:
    sandbox = sandbox_factory(speed=SLOW)
    work = program.workdir("update")
    repo_dir, library, user = work / "repo", work / "library", work / "user"
    library.mkdir()
    user.mkdir()
    version_n = kiln_source(work, "9.0.0")
    version_next = kiln_source(work, "9.0.1", with_schema_step)
    publish(repo_dir, version_n)
    url = f"file://{program.inside(repo_dir)}/index.json"

    # Install N from the repository on the command line, as a worker image or an admin would.
    # Blender's "sync" checks every repository, so it needs online access even for a file:// one.
    extension = ["--online-mode", "--command", "extension"]
    program.blender([*extension, "repo-add", "studio", "--url", url, "--clear-all"], user)
    program.blender([*extension, "install", "kiln", "--sync", "--enable"], user)
    listed = program.blender([*extension, "list"], user).stdout
    assert re.search(r"kiln \[installed\]", listed), listed
    assert installed_version(user) == "9.0.0"
    program.blender(["-b", "--python-expr", FIRST_START_PREFERENCES], user)

    window = Window(program, display, user, {"KILN_AGENT_MODULE": MODULE}).start()
    try:
        # The artist's service (the custom one), key, service URL and library folder, in Kiln's
        # preferences.
        window.call(
            f"p = {PREFS}\np.service = 'INTERFACE'\n"
            f"p.api_key = {sandbox_key!r}\np.base_url = {sandbox.base_url!r}\n"
            f"p.library_dir = {program.inside(library)!r}\nbpy.ops.wm.save_userpref()\n"
            "sys.modules[MODULE + '.preferences'].finish_key_saves()"
        )
        # A saved scene: its jobs import into it on their own. (In an unsaved file they wait with an
        # Import button after an update: the unsaved file's token does not outlive Kiln's module.)
        scene = work / "scene.blend"
        window.call(f"bpy.ops.wm.save_as_mainfile(filepath={program.inside(scene)!r})")
        for prompt in PROMPTS:
            window.call(IN_VIEW3D + f"bpy.ops.kiln.generate_from_text(prompt={prompt!r})")
        started = window.wait_for(
            f"len([j for j in kiln_jobs() if j['task_id'] and j['state'] in {ACTIVE}]) == {len(PROMPTS)} "
            "and kiln_jobs()"
        )
        task_ids = {job["id"]: job["task_id"] for job in started}
        assert sandbox.submit_count == len(PROMPTS)

        # Publish N+1, and update through Blender's own extension update while the jobs run.
        publish(repo_dir, version_next)
        window.call(UPDATE, timeout=120)
        assert installed_version(user) == "9.0.1"
        window.wait_for(f"{MODULE!r} in bpy.context.preferences.addons and kiln_jobs()", timeout=60)
        assert schema(store_of(user)) == 2, "N+1 did not take its schema step"
        for task_id in task_ids.values():
            sandbox.complete_now(task_id)
        landed = window.wait_for(f"len(kiln_objects()) >= {len(PROMPTS)} and kiln_objects()", timeout=120)
        time.sleep(3.0)  # more heartbeats: a second landing would show now
        landed = window.call("result = kiln_objects()")
        meshes = [obj for obj in landed if obj["type"] == "MESH"]
        assert sorted(obj["task_id"] for obj in meshes) == sorted(task_ids.values()), landed
        assert sandbox.submit_count == len(PROMPTS), "something was sent twice"
        assert {job["id"]: job["state"] for job in jobs(window)} == {j: "imported" for j in task_ids}
        kept = window.call(
            f"p = {PREFS}\nresult = [p.service, p.api_key == {sandbox_key!r}, p.base_url, p.library_dir]"
        )
        assert kept == ["INTERFACE", True, sandbox.base_url, program.inside(library)], (
            "the update lost a preference"
        )
        entry_files = list((library / "kiln_index").glob("*.json"))
        assert len(entry_files) == len(PROMPTS) and all('"format": 2' in p.read_text() for p in entry_files)

        # Roll back: the studio publishes N again; Blender's update installs it over N+1.
        store_before, library_before = dump(store_of(user)), files_of(library)
        publish(repo_dir, version_n)
        window.call(UPDATE, timeout=120)
        assert installed_version(user) == "9.0.0"
        window.wait_for(f"{MODULE!r} in bpy.context.preferences.addons and kiln_jobs()", timeout=60)
        bytes_after_rollback = hashlib.sha256(store_of(user).read_bytes()).hexdigest()
        problems = window.call("result = sys.modules[MODULE + '.session.runtime'].engine().store_problems()")
        assert len(problems) == 1 and "newer version of Kiln" in problems[0], problems
        assert {job["id"]: job["state"] for job in jobs(window)} == {j: "imported" for j in task_ids}
        refused = window.call(
            "try:\n"
            "    with in_view3d('WINDOW'):\n"
            "        bpy.ops.kiln.generate_from_text(prompt='a new prompt under N')\n"
            "    result = 'sent'\n"
            "except RuntimeError as exc:\n"
            "    result = str(exc)\n"
        )
        assert "newer version of Kiln" in refused, refused
        reuse = window.call(
            "lib = sys.modules[MODULE + '.session.library']\n"
            f"req = sys.modules[MODULE + '.api.jobs'].JobRequest(kind='text', prompt={PROMPTS[0]!r})\n"
            "result = [lib.lookup(req) is None, [str(p) for p in lib.index().problems]]"
        )
        assert reuse[0] is True and len(reuse[1]) == 1 and "newer version of Kiln" in reuse[1][0], reuse
        time.sleep(2.0)  # heartbeats of the older Kiln: none may write
        assert (
            window.call("result = len(sys.modules[MODULE + '.session.runtime'].engine().store_problems())")
            == 1
        )
        assert window.quit() == 0
    finally:
        window.kill()
    assert sandbox.submit_count == len(PROMPTS)
    assert dump(store_of(user)) == store_before, "the older Kiln changed the newer job list"
    assert hashlib.sha256(store_of(user).read_bytes()).hexdigest() == bytes_after_rollback
    assert schema(store_of(user)) == 2
    assert files_of(library) == library_before, "the older Kiln changed the newer library"


def test_make_repo_output_installs_from_a_file_url_and_list_shows_its_version(program: Program) -> None:
    work = program.workdir("repo")
    repo_dir, user = work / "repo", work / "user"
    user.mkdir()
    sys.path.insert(0, str(REPO / "tools"))
    import repo

    index_json = repo.publish(repo_dir)  # what `make repo REPO_DIR=…` does
    version = repo.listed_versions(index_json)["kiln"]
    extension = ["--online-mode", "--command", "extension"]
    url = f"file://{program.inside(index_json)}"
    program.blender([*extension, "repo-add", "studio", "--url", url, "--clear-all"], user)
    program.blender([*extension, "install", "kiln", "--sync", "--enable"], user)
    assert "kiln [installed]" in program.blender([*extension, "list"], user).stdout
    assert installed_version(user) == version

    publish(repo_dir, kiln_source(work, "99.0.0"))
    listed = program.blender([*extension, "list", "--sync"], user).stdout
    assert f"kiln [outdated: {version} -> 99.0.0]" in listed, listed
