"""A recording stand-in for ``UILayout``, and small waits the UI tests share.

Panels are drawn for real (their own ``draw()`` with real scene data and real engine jobs from
the sandbox); only the layout is a stand-in, because Blender only hands out real layouts while
it draws a window, which never happens in background mode.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

ADDON_MODULE = "bl_ext.kiln_dev.kiln"


class OperatorProps(SimpleNamespace):
    """What ``layout.operator()`` returns: the properties the button will be pressed with."""


@dataclass
class Call:
    kind: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    layout: Recorder
    props: OperatorProps = field(default_factory=OperatorProps)

    @property
    def enabled(self) -> bool:
        return self.layout.effective("enabled", all)

    @property
    def alert(self) -> bool:
        return self.layout.effective("alert", any)

    @property
    def text(self) -> str:
        return str(self.kwargs.get("text", ""))


class Recorder:
    """Records label/prop/operator/progress/template_* calls; row/column/box/split return children."""

    def __init__(self, parent: Recorder | None = None, calls: list[Call] | None = None) -> None:
        self.parent = parent
        self.calls: list[Call] = calls if calls is not None else []
        self.enabled = True
        self.alert = False
        self.active = True
        self.scale_x = self.scale_y = 1.0
        self.use_property_split = False
        self.use_property_decorate = True

    def effective(self, name: str, combine: Callable[[list[bool]], bool]) -> bool:
        values, node = [], self
        while node is not None:
            values.append(bool(getattr(node, name)))
            node = node.parent
        return combine(values)

    def _child(self, *_args: Any, **_kwargs: Any) -> Recorder:
        return Recorder(self, self.calls)

    row = column = box = split = grid_flow = column_flow = _child

    def panel(self, idname: str, **kwargs: Any) -> tuple[Recorder, Recorder]:
        """A collapsible section (``layout.panel``): its header and its body, drawn open here."""
        self._record("panel", idname, **kwargs)
        return Recorder(self, self.calls), Recorder(self, self.calls)

    def _record(self, kind: str, *args: Any, **kwargs: Any) -> Call:
        call = Call(kind, args, kwargs, self)
        self.calls.append(call)
        return call

    def label(self, **kwargs: Any) -> None:
        self._record("label", **kwargs)

    def prop(self, data: Any, prop: str, **kwargs: Any) -> None:
        self._record("prop", data, prop, **kwargs)

    def operator(self, idname: str, **kwargs: Any) -> OperatorProps:
        return self._record("operator", idname, **kwargs).props

    def operator_menu_enum(self, idname: str, property: str, **kwargs: Any) -> None:
        """A menu of an operator's choices: recorded as the operator, with the property it offers."""
        self._record("operator", idname, menu_of=property, **kwargs)

    def progress(self, **kwargs: Any) -> None:
        self._record("progress", **kwargs)

    def template_ID(self, data: Any, prop: str, **kwargs: Any) -> None:
        self._record("template_ID", data, prop, **kwargs)

    def template_list(self, *args: Any, **kwargs: Any) -> None:
        self._record("template_list", *args, **kwargs)

    def template_icon(self, **kwargs: Any) -> None:
        self._record("template_icon", **kwargs)

    def icon(self, data: Any) -> int:
        """Blender returns the icon id of ``data``'s preview; a stand-in id shows it was asked for."""
        self._record("icon", data)
        return 7000 + len(self.calls)

    def separator(self, **_kwargs: Any) -> None:
        pass

    # ---- what the artist sees
    def of(self, kind: str) -> list[Call]:
        return [c for c in self.calls if c.kind == kind]

    def labels(self) -> list[str]:
        return [c.text for c in self.of("label")]

    def text(self) -> str:
        """All label text joined, so sentences wrapped over several labels read whole again."""
        return " ".join(t for t in self.labels() if t)

    def operators(self, idname: str) -> list[Call]:
        return [c for c in self.of("operator") if c.args[0] == idname]

    def operator_ids(self) -> list[str]:
        return [c.args[0] for c in self.of("operator")]

    def props(self) -> list[str]:
        return [c.args[1] for c in self.of("prop")]


def draw(panel: type, context: Any) -> Recorder:
    """Run a panel's real ``draw()`` into a recorder."""
    layout = Recorder()
    panel.draw(SimpleNamespace(layout=layout), context)
    return layout


def draw_preferences(preferences: Any) -> Recorder:
    """Run the real ``KilnPreferences.draw()`` (``preferences``: Kiln's module) into a recorder."""
    layout = Recorder()
    preferences.KilnPreferences.draw(_WithLayout(preferences.get(), layout), SimpleNamespace(region=None))
    return layout


class _WithLayout:
    """The real preferences, drawn into a recorder (``layout`` of the real one is read-only)."""

    def __init__(self, real: Any, layout: Recorder) -> None:
        self._real, self.layout = real, layout

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


def wait_for(predicate: Callable[[], Any], timeout: float = 30.0, what: str = "condition") -> Any:
    """Test-side polling (the add-on itself never waits like this on the main thread)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def main_thread_of(jobs_panel: Any) -> Any:
    """The add-on's ``main_thread`` module, beside the panel given."""
    return sys.modules[jobs_panel.__name__.replace("panels.jobs", "main_thread")]


def sync_asked(jobs_panel: Any) -> bool:
    """Whether the Jobs panel asked for its rows to be made again (on the main thread, soon)."""
    return bool(main_thread_of(jobs_panel).is_waiting(jobs_panel._sync_later))


def run_pending_sync(bpy: Any, jobs_panel: Any) -> None:
    """Do what the resync the Jobs panel asked for would do (timers never fire in background mode)."""
    assert sync_asked(jobs_panel), "the panel did not ask for a resync"
    main_thread_of(jobs_panel).cancel(jobs_panel._sync_later)
    jobs_panel._sync_later()


def finish_followed(main_thread: Any, timeout: float = 30.0) -> None:
    """Hand each work the main thread follows its outcome, as the work's timer would once it ended
    (no timer fires in background mode), then take the timer out."""
    import bpy

    deadline = time.monotonic() + timeout
    while main_thread._followed:
        assert time.monotonic() < deadline, "a followed work did not end"
        for look in list(main_thread._followed):
            if look() is None and bpy.app.timers.is_registered(look):
                bpy.app.timers.unregister(look)
        time.sleep(0.01)
