"""The services room: every 3D generation service Kiln speaks to, behind one interface.

One package per service, each holding every constant of that service: ``interface`` (the custom
service: Kiln's interface document, at the artist's address), ``tripo``, ``meshy``, ``rodin``,
``fal`` (fal.ai), and the studio's own servers ``comfyui`` and ``hunyuan3d`` (no key, no credits). A
package's ``__init__`` is its :class:`~.info.ServiceInfo` (light: read while the Sidebar draws); its
``client`` module is the wire, loaded by a worker when first used. A service is known by one
registering line below (:func:`~.registry.register_service`, after fsspec's registry); every list
reads the registry. Modules of the room, bottom first: ``capabilities`` (what a service can do),
``advice`` (which advice a sentence gives on it), ``info`` (who it is),
``registry`` (which services there are), ``order`` (what is asked of it, and
what it refuses), ``base`` (the interface its clients implement).

Stands on :mod:`api.http` (transport, origin guard, caps, the retry policy, trust, redaction),
written once for all services. The job engine stands on this room.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ..lazy import lazy_names
from .capabilities import OPTION_NAMES, Capabilities, Tier
from .info import ServiceInfo
from .registry import (
    NOT_CHOSEN,
    all_services,
    first_service,
    info,
    is_registered,
    old_records_service,
    register_service,
    registry_revision,
    service_id,
    service_ids,
    unregister_service,
)

if TYPE_CHECKING:
    from .base import GenerationService
    from .order import Order, given_views, refusal

#: Loaded on first use: what is asked of a service is not needed to register the add-on.
_LAZY = {"Order": ".order", "given_views": ".order", "refusal": ".order"}


__getattr__ = lazy_names(__name__, _LAZY)

# The services Kiln ships, one registering line each, in the order an artist is offered them.
register_service("INTERFACE", ".interface", old_records=True)
register_service("TRIPO", ".tripo")
register_service("MESHY", ".meshy")
register_service("RODIN", ".rodin")
register_service("FAL", ".fal")
register_service("COMFYUI", ".comfyui")
register_service("HUNYUAN3D", ".hunyuan3d")


def make_client(service: str, base_url: str, api_key: str, **options: Any) -> GenerationService:
    """A client of ``service`` at ``base_url`` (its origin, or the artist's address), on a worker thread."""
    found = info(service)
    module = importlib.import_module(f".{found.client_module}", __name__)
    client: GenerationService = module.Client(base_url, api_key, **options)
    return client


__all__ = [
    "NOT_CHOSEN",
    "OPTION_NAMES",
    "Capabilities",
    "Order",
    "ServiceInfo",
    "Tier",
    "all_services",
    "first_service",
    "given_views",
    "info",
    "is_registered",
    "make_client",
    "old_records_service",
    "refusal",
    "register_service",
    "registry_revision",
    "service_id",
    "service_ids",
    "unregister_service",
]
