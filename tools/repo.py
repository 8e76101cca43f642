"""`make repo`: a static extension repository (the zips, ``index.json``, ``index.html``) for a studio.

Blender's own ``server-generate`` writes the listing, so what Blender reads is what Blender's tool
wrote. Any static file host serves the folder: a shared folder (``file://`` URL) or a web server.
Publishing a version replaces the older Kiln zips in the folder (Blender offers the newest listed
version; other extensions a studio keeps there stay untouched).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bpy_paths import extension_tool
from build import ROOT, build_platforms

EXTENSION_ID = "kiln"


def publish(repo_dir: Path, source_dir: Path = ROOT) -> Path:
    """Build Kiln from ``source_dir`` into ``repo_dir`` and write the listing; returns ``index.json``."""
    repo_dir.mkdir(parents=True, exist_ok=True)
    zips = set(build_platforms(repo_dir, source_dir).values())  # one per platform: Blender picks its own
    for older in repo_dir.glob(f"{EXTENSION_ID}-*.zip"):
        if older not in zips:
            older.unlink()
    tool = str(extension_tool())
    subprocess.run(
        [sys.executable, tool, "server-generate", "--repo-dir", str(repo_dir), "--html"], check=True
    )
    return repo_dir / "index.json"


def listed_versions(index_json: Path) -> dict[str, str]:
    """Extension id -> version, as the listing says."""
    data = json.loads(index_json.read_text(encoding="utf-8"))
    return {item["id"]: item["version"] for item in data["data"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--repo-dir", type=Path, default=ROOT / "dist" / "repo", help="the folder to publish into"
    )
    args = parser.parse_args()
    index_json = publish(args.repo_dir.resolve())
    version = listed_versions(index_json)[EXTENSION_ID]
    print(f"Published Kiln {version} in {args.repo_dir}; its URL: {index_json.as_uri()}")


if __name__ == "__main__":
    main()
