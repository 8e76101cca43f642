"""The balance a service last said, asked again off the main thread once a job of it settles, so the
Sidebar's "… credits left" follows what was spent (Test Connection asks it too; the figures are
``api.features.credits``')."""

from __future__ import annotations

import functools

import bpy

from .. import preferences
from ..api.features.credits import ask_balance
from ..api.services import info
from ..drawing import tag_redraw
from ..main_thread import follow
from .blocking import blocks

#: Services being asked now (one ask each at a time).
_asking: set[str] = set()


def ask_again(context: bpy.types.Context, service: str) -> None:
    """Ask ``service`` its balance on a worker, where it tells one and Kiln may go online. Never in
    background mode: a script's run is not slowed by a call per job."""
    if blocks() or service in _asking or not bpy.app.online_access or not info(service).capabilities.balance:
        return
    chosen = preferences.credentials(context, service)
    if not (chosen.api_key and chosen.base_url):
        return
    _asking.add(service)
    work = functools.partial(ask_balance, chosen.base_url, chosen.api_key, service)
    follow("balance", work, lambda _none: _asked(service))


def _asked(service: str) -> None:
    _asking.discard(service)
    tag_redraw()
