"""Where things are, for every test: the repository root (the add-on package) and the Blender scripts."""

from __future__ import annotations

from functools import cache
from pathlib import Path

#: The repository root, which is also the add-on package.
ROOT = Path(__file__).resolve().parents[2]
#: Scripts a child Blender (this venv's bpy module) runs: ``python <script> …``.
BLENDER_SCRIPTS = ROOT / "tests" / "support" / "blender_scripts"

#: Top-level folders the built zip leaves out (``blender_manifest.toml``'s ``paths_exclude_pattern``).
DEV_ONLY = frozenset(
    {"tests", "sandbox", "bench", "examples", "fixtures", "tools", "farm", "docs", "requirements"}
)


def python_files(root: Path, skip: frozenset[str] = frozenset()) -> list[Path]:
    """Every ``*.py`` under ``root``, sorted, never walking a hidden folder or a top-level one in
    ``skip``: a checkout's virtual environments (``.venv``) hold far more files than Kiln."""
    found = []
    for top in sorted(root.iterdir()):
        if top.name.startswith(".") or top.name in skip:
            continue
        if top.is_dir():
            found += (
                p
                for p in top.rglob("*.py")
                if not any(part.startswith(".") for part in p.parts[len(root.parts) :])
            )
        elif top.suffix == ".py":
            found.append(top)
    return sorted(found)


@cache
def shipped_python() -> tuple[Path, ...]:
    """Every Python file of Kiln's own the built zip carries (its vendored modules left out)."""
    return tuple(
        p for p in python_files(ROOT, DEV_ONLY) if p.relative_to(ROOT).parts[:2] != ("api", "vendor")
    )
