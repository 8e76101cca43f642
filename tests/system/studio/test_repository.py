"""`make repo` output is a repository Blender's own extension command installs and updates from.

Driven with the commands of ``blender --command extension`` (run in the bpy module through the
same handler): ``repo-add ID --url file://…/index.json --clear-all``, ``install kiln --sync
--enable``, ``list [--sync]``, ``update --sync``. (The bpy module reads no saved preferences, so each Blender
here starts with ``repo-add``; the repository's folder keeps what was installed.)
"""

from __future__ import annotations

from pathlib import Path

import pytest
from studio_tools import extension_command, installed_version, kiln_source, publish, repo

REPO_ID = "studio"
PLATFORMS = ("windows-x64", "windows-arm64", "macos-arm64", "macos-x64", "linux-x64", "linux-arm64")


def kiln_line(listing: str) -> str:
    return next((line.strip() for line in listing.splitlines() if line.strip().startswith("kiln ")), "")


@pytest.fixture
def repository(tmp_path: Path) -> tuple[Path, str]:
    repo_dir = tmp_path / "repo"
    return repo_dir, publish(repo_dir, kiln_source(tmp_path, "7.0.0"))


def test_make_repo_writes_a_listing_and_a_page(tmp_path: Path) -> None:
    index_json = repo.publish(tmp_path / "repo")
    names = sorted(p.name for p in index_json.parent.iterdir())
    version = repo.listed_versions(index_json)["kiln"]
    zips = [f"kiln-{version}-{name.replace('-', '_')}.zip" for name in PLATFORMS]  # one per platform
    assert names == sorted(["index.html", "index.json", *zips])
    page = (tmp_path / "repo" / "index.html").read_text(encoding="utf-8")
    assert all(name in page for name in zips)


def test_installs_from_a_file_url_and_lists_the_repository_version(
    repository: tuple[Path, str], tmp_path: Path
) -> None:
    _, url = repository
    user = tmp_path / "artist"
    done = extension_command(
        user,
        ["repo-add", REPO_ID, "--name", "Studio", "--url", url, "--clear-all"],
        ["install", "kiln", "--sync", "--enable"],
        ["list"],
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert kiln_line(done.stdout).startswith("kiln [installed]"), done.stdout
    assert installed_version(user, REPO_ID) == "7.0.0"
    assert f"bl_ext.{REPO_ID}.kiln" in done.stdout.splitlines()[-1]


def test_a_published_update_is_offered_and_installed(repository: tuple[Path, str], tmp_path: Path) -> None:
    repo_dir, url = repository
    user = tmp_path / "worker"
    add = ["repo-add", REPO_ID, "--url", url, "--clear-all"]
    first = extension_command(user, add, ["install", "kiln", "--sync", "--enable"])
    assert first.returncode == 0, first.stdout + first.stderr
    publish(repo_dir, kiln_source(tmp_path, "7.0.1"))
    assert {p.name.split("-")[1] for p in repo_dir.glob("*.zip")} == {"7.0.1"}

    listed = extension_command(user, add, ["list", "--sync"])
    assert kiln_line(listed.stdout).startswith("kiln [outdated: 7.0.0 -> 7.0.1]"), listed.stdout
    updated = extension_command(user, add, ["update", "--sync"], ["list"])
    assert updated.returncode == 0, updated.stdout + updated.stderr
    assert installed_version(user, REPO_ID) == "7.0.1"
    assert kiln_line(updated.stdout).startswith("kiln [installed]"), updated.stdout
