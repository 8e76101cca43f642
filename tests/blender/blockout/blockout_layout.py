"""A recording stand-in for ``UILayout`` (Blender hands out real layouts only while drawing a window)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any


class Recorder:
    """Records labels and buttons; rows, columns and boxes share one list of calls."""

    def __init__(self, calls: list[Any] | None = None, parent: Any = None):
        self.calls = calls if calls is not None else []
        self.parent = parent
        self.enabled = True
        self.scale_y = 1.0

    def _child(self, *_args: Any, **_kwargs: Any) -> Recorder:
        return Recorder(self.calls, self)

    row = column = box = _child

    def label(self, **kwargs: Any) -> None:
        self.calls.append(("label", kwargs.get("text", ""), kwargs, self))

    def operator(self, idname: str, **kwargs: Any) -> SimpleNamespace:
        self.calls.append(("operator", idname, kwargs, self))
        return SimpleNamespace()

    def operator_menu_enum(self, idname: str, prop: str, **kwargs: Any) -> None:
        self.calls.append(("operator_menu_enum", idname, {"property": prop, **kwargs}, self))

    def text(self) -> str:
        return " ".join(str(arg) for kind, arg, _, _ in self.calls if kind == "label" and arg)

    def buttons(self) -> dict[str, bool]:
        """Each operator button and whether it can be pressed."""
        found = {}
        for kind, idname, _, node in self.calls:
            if kind == "operator":
                enabled = True
                while node is not None:
                    enabled = enabled and node.enabled
                    node = node.parent
                found[idname] = enabled
        return found


def draw(panel: type, context: Any) -> Recorder:
    layout = Recorder()
    panel.draw(SimpleNamespace(layout=layout), context)
    return layout
