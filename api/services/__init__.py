"""The services room: every 3D generation service Kiln speaks to, behind one interface.

One package per service, each holding every constant of that service: ``interface`` (the service
of Kiln's interface document), ``tripo``, ``meshy``, ``rodin``, ``fal`` (fal.ai), and the studio's
own servers ``comfyui`` and ``hunyuan3d`` (no key, no credits). A package's ``__init__`` is its
:class:`~.info.ServiceInfo` (light: read while the Sidebar draws); its ``client`` module is the
wire, loaded by a worker when first used (after fsspec's registry). Modules of the room, bottom
first: ``capabilities`` (what a service can do), ``advice`` (which advice a sentence gives on it),
``info`` (who it is), ``order`` (what is asked of it, and what it refuses), ``base`` (the interface
its clients implement).

Stands on :mod:`api.service` (transport, origin guard, caps, the retry policy, trust, redaction),
written once for all services. The job engine stands on this room.
"""

from __future__ import annotations

import importlib
import threading
from typing import TYPE_CHECKING, Any

from ..lazy import lazy_names
from .capabilities import OPTION_NAMES, Capabilities, Tier
from .info import ServiceInfo

if TYPE_CHECKING:
    from .base import GenerationService
    from .order import Order, given_views, refusal

#: The services in the order an artist is offered them; the first is what an old job list meant.
SERVICE_IDS = ("INTERFACE", "TRIPO", "MESHY", "RODIN", "FAL", "COMFYUI", "HUNYUAN3D")
DEFAULT_SERVICE = "INTERFACE"
_PACKAGES = {
    "INTERFACE": "interface",
    "TRIPO": "tripo",
    "MESHY": "meshy",
    "RODIN": "rodin",
    "FAL": "fal",
    "COMFYUI": "comfyui",
    "HUNYUAN3D": "hunyuan3d",
}
_loaded: dict[str, ServiceInfo] = {}
_lock = threading.Lock()


#: Loaded on first use: what is asked of a service is not needed to register the add-on.
_LAZY = {"Order": ".order", "given_views": ".order", "refusal": ".order"}


__getattr__ = lazy_names(__name__, _LAZY)


def service_id(value: object) -> str:
    """A stored or given service id as Kiln knows it ("" and unknown values: the default service)."""
    text = str(value or "").strip().upper()
    return text if text in _PACKAGES else DEFAULT_SERVICE


def info(service: str) -> ServiceInfo:
    """The service's :class:`ServiceInfo` (its package is imported once, on first use)."""
    sid = service_id(service)
    with _lock:
        found = _loaded.get(sid)
        if found is None:
            module = importlib.import_module(f".{_PACKAGES[sid]}", __name__)
            found = _loaded[sid] = module.INFO
    return found


def all_services() -> tuple[ServiceInfo, ...]:
    return tuple(info(sid) for sid in SERVICE_IDS)


def make_client(service: str, base_url: str, api_key: str, **options: Any) -> GenerationService:
    """A client of ``service`` at ``base_url`` (its origin, or the artist's address), on a worker thread."""
    found = info(service)
    module = importlib.import_module(f".{found.client_module}", __name__)
    client: GenerationService = module.Client(base_url, api_key, **options)
    return client


__all__ = [
    "DEFAULT_SERVICE",
    "OPTION_NAMES",
    "SERVICE_IDS",
    "Capabilities",
    "Order",
    "ServiceInfo",
    "Tier",
    "all_services",
    "given_views",
    "info",
    "make_client",
    "refusal",
    "service_id",
]
