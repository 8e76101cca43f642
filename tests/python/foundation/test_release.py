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


def test_readme_and_getting_started_link_to_the_latest_release_and_name_the_update_address() -> None:
    """Both pages link to the manifest's project page's latest release by its whole address (a
    relative link breaks wherever the page is read off GitHub), and name the extension repository's
    address as the workflow publishes it (GitHub Pages: https://<owner>.github.io/<name>/index.json)."""
    website = tomllib.loads((ROOT / "blender_manifest.toml").read_text(encoding="utf-8"))["website"]
    owner, name = website.removeprefix("https://github.com/").split("/")
    published = f"https://{owner}.github.io/{name}/index.json"
    assert 'repo_url="https://${owner}.github.io/${name}/index.json"' in WORKFLOW.read_text(encoding="utf-8")
    for page in ("README.md", "docs/getting-started.md"):
        text = (ROOT / page).read_text(encoding="utf-8")
        assert f"{website}/releases/latest" in text and "kiln-<version>-<platform>.zip" in text, page
        assert "../releases/latest" not in text, page
        assert published in text and "Add Remote Repository" in text, page


def test_no_page_names_a_version_other_than_the_manifests() -> None:
    """A tag or version named in README is the manifest's, or the neutral v<version>."""
    version = tomllib.loads((ROOT / "blender_manifest.toml").read_text(encoding="utf-8"))["version"]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert {v for v in re.findall(r"\bv(\d+\.\d+\.\d+)\b", readme)} <= {version}


def test_the_manifest_is_ready_for_blenders_extensions_platform() -> None:
    manifest = tomllib.loads((ROOT / "blender_manifest.toml").read_text(encoding="utf-8"))
    assert manifest["website"].startswith("https://")
    assert {"3D View", "Import-Export"} <= set(manifest["tags"])
    permissions = manifest["permissions"]
    assert set(permissions) == {"network", "files", "clipboard"}
    for said in permissions.values():  # what Blender shows before installing: words, ≤ 64 characters
        assert 10 < len(said) <= 64 and not said.endswith(".")
