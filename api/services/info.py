"""Who a service is: its name, where its API lives, where its keys are made, what it can do.

One :class:`ServiceInfo` per service, in that service's own package (``api/services/<name>/``),
beside every other constant of that service. It imports nothing heavy, so the Sidebar can read it
while it draws; the service's wire (``client.py`` in the same package) is loaded on a worker.

A service, its capabilities and its tiers are constants known by their id, never compared as
values nor printed whole: their classes get no ``__eq__``/``__hash__`` or ``__repr__`` from
``dataclass``, which compiles each one from source as Kiln registers (every service's tiers are
Blender settings of their own, so every package is loaded then).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..words import catalogue as words
from ..words.kinds import Label
from .capabilities import Capabilities


@dataclass(frozen=True, eq=False, repr=False)
class ServiceInfo:
    """A 3D generation service Kiln speaks to."""

    #: The enum id scripts, agents and the farm use (``service='<ID>'``) and jobs are stored with.
    id: str
    #: The service's own name, as artists know it (a brand: never translated).
    name: str
    #: The documented API origin (scheme and host); "" where the artist gives the address.
    api_origin: str
    #: Environment variables for the key and for an origin that replaces ``api_origin``.
    key_env: str
    base_url_env: str
    #: Where an artist makes a key, and where the service documents its API and prices.
    keys_page: str
    docs_page: str
    capabilities: Capabilities
    #: The module (relative to ``api.services``) whose ``Client`` speaks the wire, loaded when first used.
    client_module: str
    #: How a key of this service begins, for a hint when a key of another service is pasted ("" : no shape).
    key_prefix: str = ""
    #: The service asks for a key (False: a server of the studio's own that takes none, such as
    #: ComfyUI; the setup box then asks for none, and no key or Authorization header is ever sent).
    needs_key: bool = True
    #: Where the service usually answers when the artist has not given an address (a local server's
    #: documented port, e.g. ``http://127.0.0.1:8188``); "" where there is no such default.
    default_address: str = ""
    #: The service runs on the artist's or studio's own machine: it costs no credits, and the Sidebar
    #: says where a job runs.
    local: bool = False
    #: A sentence of the catalogue shown beside the service's choice ("" : none), such as a model
    #: licence's limits.
    notice: str = ""
    #: The words the service menu says, where the name alone does not say what the service is (the
    #: custom service's, translated); None: its name, and a tooltip made from what it needs.
    label: Label | None = None
    #: The service bills in dollars, not credits of its own (fal.ai): said where a service is offered.
    paid_in_dollars: bool = False
    #: What the chooser's button says where "Use {name}" does not read right in every language (a
    #: translated name some languages decline or give an article: a catalogue sentence); "": "Use" and
    #: the name.
    use_words: str = ""

    def choice_words(self) -> tuple[str, str, dict[str, Any]]:
        """The service's name and tooltip in the service menu (catalogue entries and their values)."""
        if self.label is not None:
            return self.label.name, self.label.tip, {}
        if self.local:
            tooltip = words.SERVICE_TIP_LOCAL
        elif not self.needs_key:
            tooltip = words.SERVICE_TIP_ADDRESS
        else:
            tooltip = words.SERVICE_TIP_KEY
        return self.name, tooltip, {"service": self.name}

    def chooser_words(self) -> tuple[str, str]:
        """What the button that chooses this service says: a catalogue sentence, and the name to put in
        it as ``{service}`` (a brand, or a catalogue entry), "" where the sentence names the service."""
        if self.use_words:
            return self.use_words, ""
        return words.USE_SERVICE, self.choice_words()[0]

    def cost_line(self) -> str:
        """One line (a catalogue sentence) on what choosing this service costs and needs, for an artist
        who has not chosen one yet."""
        if self.local:
            return words.SERVICE_COSTS_LOCAL
        if not self.needs_key:
            return words.SERVICE_COSTS_ADDRESS
        if self.needs_address:
            return words.SERVICE_COSTS_KEY_ADDRESS
        return words.SERVICE_COSTS_KEY_DOLLARS if self.paid_in_dollars else words.SERVICE_COSTS_KEY_CREDITS

    @property
    def needs_address(self) -> bool:
        """A service with no documented origin is reached at an address the artist gives (or its default)."""
        return not self.api_origin
