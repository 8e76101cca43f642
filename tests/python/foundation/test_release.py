"""A download an artist can find: each version tag builds the zip with Blender's extension tool and
publishes it with the static extension repository; README's Install links to it; the manifest says
what Blender's extensions platform shows (tags, website, permissions in words)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
WORKFLOW = ROOT / ".github" / "workflows" / "release.yml"


def test_a_version_tag_builds_the_zip_and_the_repository_and_publishes_both() -> None:
    text = WORKFLOW.read_text(encoding="utf-8")
    assert re.search(r"on:\n  push:\n    tags: \[\"v\*\"\]", text)
    assert "run: make build" in text and "make repo REPO_DIR=dist/repo" in text
    assert "gh release create" in text and "actions/deploy-pages" in text
    assert 'if [ "v$version" != "$TAG" ]' in text, "a tag that is not the manifest's version fails"


def test_readme_install_links_to_the_latest_release() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    install = readme[readme.index("**Install**") :][:600]
    assert "(../../releases/latest)" in install and "kiln-<version>.zip" in install


def test_the_manifest_is_ready_for_blenders_extensions_platform() -> None:
    manifest = tomllib.loads((ROOT / "blender_manifest.toml").read_text(encoding="utf-8"))
    assert manifest["website"].startswith("https://")
    assert {"3D View", "Import-Export"} <= set(manifest["tags"])
    permissions = manifest["permissions"]
    assert set(permissions) == {"network", "files", "clipboard"}
    for said in permissions.values():  # what Blender shows before installing: words, ≤ 64 characters
        assert 10 < len(said) <= 64 and not said.endswith(".")
