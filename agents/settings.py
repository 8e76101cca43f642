"""What agent server this Blender should run, decided in one place: the environment, the serve
operator, or the preferences' Agents section.

* ``KILN_AGENT_PORT`` and ``KILN_AGENT_TOKEN`` (read once, as Kiln is enabled): when both are set,
  the server runs on that port with that token, Allow Agents on or off (a studio's launcher or a
  farm sets them, as it sets the key).
* The serve operator (``bpy.ops.kiln.serve_agents``, background mode) asks for a server while it
  serves, with the port and token it was given or else those above.
* Otherwise Allow Agents decides, with the preferences' port and Kiln's own token.

The budget and the allowed folders always come from the preferences.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from pathlib import Path

import bpy

from .. import preferences
from ..api.agents import BudgetLimits
from ..api.agents.environment import agent_settings_from
from ..api.errors import InputError
from . import access

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Wanted:
    """The server this Blender should run."""

    port: int
    token: str = field(repr=False)
    budget: BudgetLimits
    folders: tuple[Path, ...]
    from_environment: bool = False

    def same_door(self, other: Wanted) -> bool:
        """Reached the same way: a change of port or token needs a new server, the rest does not."""
        return (self.port, self.token) == (other.port, other.token)


@dataclass(frozen=True)
class Asked:
    """What the serve operator asked for: ``port`` -1 and ``token`` "" leave the choice to the rest."""

    port: int = -1
    token: str = field(default="", repr=False)


class EnvironmentUnusable(InputError):
    """``KILN_AGENT_PORT`` / ``KILN_AGENT_TOKEN`` are set but cannot be used (the sentence is logged)."""


_environment: tuple[int, str] | InputError | None = None
_read = False


def read_environment() -> None:
    """Read the two variables once per enabling of Kiln, when first asked (the watcher's first beat)."""
    global _environment, _read
    try:
        _environment = agent_settings_from(os.environ)
    except InputError as exc:
        log.warning("%s", exc.user_message)
        _environment = exc
    _read = True


def forget_environment() -> None:
    """Read the variables again when Kiln is next enabled."""
    global _read
    _read = False


def environment() -> tuple[int, str] | None:
    """(port, token) from the environment, or None; raises EnvironmentUnusable."""
    if not _read:
        read_environment()
    if isinstance(_environment, InputError):
        raise EnvironmentUnusable(_environment.user_message)
    return _environment


def wanted(context: bpy.types.Context, asked: Asked | None = None) -> Wanted | None:
    """The server to run now, or None for none; raises EnvironmentUnusable."""
    prefs = preferences.get(context)
    chosen = environment()
    if asked is None and chosen is None and not prefs.allow_agents:
        return None
    port, token = chosen if chosen is not None else (prefs.agent_port, "")
    if asked is not None:
        port = asked.port if asked.port >= 0 else port
        token = asked.token or token
    return Wanted(
        port=port,
        token=token or access.token(),
        budget=BudgetLimits(credits=prefs.agent_credits, jobs=prefs.agent_jobs),
        folders=preferences.agent_folders(context),
        from_environment=chosen is not None,
    )
