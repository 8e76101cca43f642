"""Run in a fresh Blender (bpy module): enable Kiln while its Python "lacks" some modules, then with them.

A test stand-in for a Blender from a Linux distribution (Debian's ``blender`` package uses the
system's Python, which may have neither numpy nor requests): a meta-path finder makes the named
modules impossible to import, as they are there. bpy itself is imported first, as that Blender
starts without them too. Prints one ``KILN-RESULT {json}`` line for the parent test.

Usage: python enable_without_modules.py -- REPO_DIR numpy,requests
"""

from __future__ import annotations

import importlib.abc
import json
import sys
from pathlib import Path
from types import SimpleNamespace

import bpy

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from blender_scripts.harness import ADDON_MODULE, enable_kiln
from recording_layout import Recorder


class HideModules(importlib.abc.MetaPathFinder):
    """Makes the named top-level modules (and everything below them) impossible to import."""

    def __init__(self, names: set[str]) -> None:
        self.names = names

    def find_spec(self, name: str, path: object, target: object = None) -> None:
        if name.partition(".")[0] in self.names:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)


def kiln_types() -> list[str]:
    """Kiln's registered classes: its operators, panels, lists and the preferences."""
    names = sorted(name for name in dir(bpy.types) if name.startswith("KILN_"))
    addon = bpy.context.preferences.addons.get(ADDON_MODULE)
    if addon is not None and addon.preferences is not None and type(addon.preferences).is_registered:
        names.append(type(addon.preferences).__name__)
    return names


class WithLayout:
    """The real preferences, drawn into a recorder (``layout`` of the real one is read-only)."""

    def __init__(self, real: object, layout: Recorder) -> None:
        self._real, self.layout = real, layout

    def __getattr__(self, name: str) -> object:
        return getattr(self._real, name)


def preferences_drawn() -> dict[str, object]:
    """What Kiln's preferences draw: their text, and the properties drawn as fields."""
    prefs = bpy.context.preferences.addons[ADDON_MODULE].preferences
    layout = Recorder()
    context = SimpleNamespace(region=None, preferences=bpy.context.preferences)
    type(prefs).draw(WithLayout(prefs, layout), context)
    return {"preferences": layout.text(), "fields": layout.props()}


def main() -> None:
    repo_dir, hidden = sys.argv[sys.argv.index("--") + 1 :]
    names = set(hidden.split(","))
    # Loaded modules are set aside, not dropped: numpy's core cannot be loaded twice in a process.
    set_aside = {m: sys.modules.pop(m) for m in list(sys.modules) if m.partition(".")[0] in names}
    finder = HideModules(names)
    sys.meta_path.insert(0, finder)

    enable_kiln(Path(repo_dir))
    without = {
        "enabled": ADDON_MODULE in bpy.context.preferences.addons,
        "types": kiln_types(),
        **preferences_drawn(),
    }

    sys.meta_path.remove(finder)
    sys.modules.update(set_aside)
    bpy.ops.preferences.addon_disable(module=ADDON_MODULE)
    after_disable = kiln_types()
    bpy.ops.preferences.addon_enable(module=ADDON_MODULE)
    with_them = {"types": kiln_types(), **preferences_drawn()}
    sys.modules[f"{ADDON_MODULE}.session.runtime"].shutdown()
    bpy.ops.preferences.addon_disable(module=ADDON_MODULE)
    result = {"without": without, "after_disable": after_disable, "with": with_them}
    print("KILN-RESULT " + json.dumps(result), flush=True)


main()
