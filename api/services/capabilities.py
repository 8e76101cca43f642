"""What a service can do, as one value every caller reads (the panel, credits, agents, the farm).

Callers ask a service's :class:`Capabilities` instead of testing its name: which inputs it takes,
its quality tiers (or resolutions) and their default, the prices it publishes, its options, and
whether it has idempotency, cancel, a balance or webhooks (after Apache Libcloud's ``features``).
A service's capabilities are known by its id and a tier by its own, never compared as values (see ``info``).
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from ..words.kinds import Label

JobInput = Literal["text", "image"]

#: The options a job may carry, one name each across services (what each is called on the wire is
#: its service's business): PBR materials, quad topology, a polygon budget, texture on or off, a style.
OPTION_NAMES = ("pbr", "quad", "polygons", "texture", "style")


@dataclass(frozen=True, eq=False, repr=False)
class Tier:
    """One quality choice a service offers for a kind of job: a resolution, a model tier.

    ``id`` is what Kiln stores with the job (the service module maps it to its wire); ``credits`` is
    the published price of one job at this tier, as published (Rodin prices in halves: 0.5), None
    where the service does not publish one;
    ``retires`` the day (ISO, ``YYYY-MM-DD``) its service retires or retired it, where published:
    from that day it is not offered and a job asking for it is refused before anything is sent.
    """

    id: str
    label: Label
    credits: float | None = None
    retires: str = ""

    def retired(self, today: datetime.date | None = None) -> bool:
        """Whether the service no longer takes this tier (its published retirement day has come)."""
        if not self.retires:
            return False
        return datetime.date.fromisoformat(self.retires) <= (today or datetime.date.today())


@dataclass(frozen=True, eq=False, repr=False)
class Capabilities:
    """What one service takes and offers. An empty tier list means the service takes no such job."""

    text_tiers: tuple[Tier, ...] = ()
    image_tiers: tuple[Tier, ...] = ()
    text_default: str = ""
    image_default: str = ""
    #: An image may be given by its web address (the service fetches it) as well as uploaded.
    image_url: bool = False
    #: Images of one object a single job takes (front first); 1: one image only.
    max_views: int = 1
    #: Which of :data:`OPTION_NAMES` the service takes.
    options: frozenset[str] = frozenset()
    #: Which of them an image job takes, where fewer than ``options`` (None: the same).
    image_options: frozenset[str] | None = None
    #: The polygon budget's allowed range, where the service takes one.
    polygons: tuple[int, int] | None = None
    styles: tuple[Tier, ...] = ()
    #: Credits an option adds to a job's price when it is on, where published (e.g. textures).
    option_credits: Mapping[str, float] = field(default_factory=dict)
    image_formats: frozenset[str] = frozenset({"png", "jpeg", "webp"})
    #: The smallest and largest side of an image the service takes, in pixels (0: not documented).
    image_min_side: int = 0
    image_max_side: int = 0
    #: An uploaded PNG keeps its transparency on the service (else Kiln flattens it on a plain colour).
    image_alpha: bool = True
    idempotency: bool = False
    cancel: bool = False
    #: A task can be followed given its id alone (Add Job by ID); False where following one needs what
    #: only its submit answered (Rodin's subscription key).
    follows_by_id: bool = True
    balance: bool = False
    webhooks: bool = False
    #: A job the service itself fails costs nothing there (its own documentation says so).
    refunds_failed: bool = False
    #: The service can re-texture a mesh it is sent (``Order.kind == "retexture"``), a mesh file of at
    #: most ``retexture_max_bytes`` (0: no documented limit), for ``retexture_credits`` (None: unpublished).
    retexture: bool = False
    retexture_max_bytes: int = 0
    retexture_credits: float | None = None
    #: Which of :data:`OPTION_NAMES` a re-texture takes.
    retexture_options: frozenset[str] = frozenset()
    #: Credits the texture adds to a job (on by default, so tier prices include it): a job sent with
    #: texture off costs this much less, where the service publishes it.
    texture_credits: float = 0
    #: A text job may name the image model that first draws the prompt (``JobRequest.provider`` and
    #: ``quality``: the model's provider and its quality, passed to the service as they are).
    text_image_model: bool = False
    #: The tier the catalogue's advice "use resolution 1024" names, where the service has it (its tiers
    #: are mesh resolutions): a smaller mesh for fewer credits; "" where it has none.
    smaller_resolution: str = ""

    def takes(self, kind: str) -> bool:
        """Whether the service takes a job of this kind ("text", "image" or "retexture")."""
        return self.retexture if kind == "retexture" else bool(self.tiers(kind))

    def tiers(self, kind: str) -> tuple[Tier, ...]:
        """The tiers offered for a job of this kind today (a retired one is never offered)."""
        return tuple(tier for tier in self.known_tiers(kind) if not tier.retired())

    def known_tiers(self, kind: str) -> tuple[Tier, ...]:
        """Every tier the service has had for this kind, retired ones included (to refuse them by name)."""
        return self.text_tiers if kind == "text" else self.image_tiers if kind == "image" else ()

    def default_tier(self, kind: str) -> str:
        return self.text_default if kind == "text" else self.image_default if kind == "image" else ""

    def tier(self, kind: str, tier_id: str) -> Tier | None:
        """The tier ``tier_id`` of a job of this kind ("" : the default), or None if there is none."""
        wanted = tier_id or self.default_tier(kind)
        return next((tier for tier in self.tiers(kind) if tier.id == wanted), None)

    def price(
        self, kind: str, tier_id: str = "", options: Mapping[str, object] | None = None
    ) -> float | None:
        """Credits one job costs, or None where the service does not publish it (never taken as free).

        An option's published credits are added when it is on; texture off takes ``texture_credits`` off.
        """
        chosen = options or {}
        if kind == "retexture":
            return self.retexture_credits if self.retexture else None
        tier = self.tier(kind, tier_id)
        if tier is None or tier.credits is None:
            return None
        extra = sum(cost for name, cost in self.option_credits.items() if chosen.get(name))
        if "texture" in chosen and not chosen["texture"]:
            extra -= self.texture_credits
        return max(0, tier.credits + extra)

    def options_for(self, image: bool) -> frozenset[str]:
        """The options a text job (``image`` false) or an image job takes."""
        return self.image_options if image and self.image_options is not None else self.options
