"""The open registry of services: a service is registered by one call, and every list reads it.

After fsspec's ``register_implementation``: a service is registered by its id and the module that
holds its :class:`~.info.ServiceInfo` (``INFO``); the module is imported when the service is first
asked about, so registering costs nothing while Blender registers Kiln. None is favoured: the
Sidebar's menu, the preferences, the operators' ``service=`` choices, the agents' tool schemas, the
batch file's ``service`` column, the farm and the estimates all read :func:`service_ids` and
:func:`info`, in the order services were registered.

Data stored before Kiln spoke to several services (a job record, a key, the one Service Address)
names no service; it belongs to the one service registered with ``old_records=True``.
"""

from __future__ import annotations

import importlib
import threading
from typing import NamedTuple

from .info import ServiceInfo


class _Entry(NamedTuple):
    """Where a registered service's ``INFO`` is: its module, and the package a relative one is in."""

    module: str
    package: str


#: The preferences' service before the artist has chosen one: Kiln chooses no service for the artist.
#: A reserved id (no service is registered as it); it names no service anywhere else.
NOT_CHOSEN = "NOT_CHOSEN"

_entries: dict[str, _Entry] = {}
_loaded: dict[str, ServiceInfo] = {}
_old_records: list[str] = []
#: Moves with every registering and unregistering: lists made from the registry key on it.
_revision = 0
_lock = threading.Lock()


def register_service(
    service: str, module: str, *, package: str = __package__ or "", old_records: bool = False
) -> None:
    """Register ``service`` (its id, upper case, as scripts give it), whose ``INFO`` is in ``module``
    (absolute, or relative to ``package``: ``api.services`` by default), imported when first used.

    ``old_records``: data stored naming no service is this service's (one service only). Registering an
    id again replaces it in place (its position in every list is kept).
    """
    global _revision
    sid = service.strip().upper()
    if not sid or not sid.replace("_", "").isalnum():
        raise ValueError(f"A service id is letters, digits and '_': {service!r}")
    if sid == NOT_CHOSEN:
        raise ValueError(f"{NOT_CHOSEN} is reserved: it means no service is chosen yet")
    with _lock:
        _revision += 1
        _entries[sid] = _Entry(module, package)
        _loaded.pop(sid, None)
        if old_records:
            _old_records[:] = [sid]


def unregister_service(service: str) -> None:
    """Forget a service registered at run time (a test's toy, a studio's script)."""
    global _revision
    sid = service.strip().upper()
    with _lock:
        _revision += 1
        _entries.pop(sid, None)
        _loaded.pop(sid, None)
        if sid in _old_records:
            _old_records.clear()


def registry_revision() -> int:
    """A number that changes whenever a service is registered or unregistered."""
    return _revision


def service_ids() -> tuple[str, ...]:
    """Every registered service's id, in the order they were registered (how artists are offered them)."""
    with _lock:
        return tuple(_entries)


def old_records_service() -> str:
    """The service a stored record that names none means ("" while none is registered for them)."""
    with _lock:
        return _old_records[0] if _old_records else ""


def first_service() -> str:
    """The first registered service (the farm's where none is named; a fresh Kiln chooses none)."""
    with _lock:
        return next(iter(_entries), "")


def is_registered(value: object) -> bool:
    return str(value or "").strip().upper() in _entries


def service_id(value: object) -> str:
    """A stored or given service id as Kiln knows it; "" and unknown values: the old records' service."""
    text = str(value or "").strip().upper()
    with _lock:
        if text in _entries:
            return text
    return old_records_service() or first_service()


def info(service: str) -> ServiceInfo:
    """The service's :class:`ServiceInfo` (its module is imported once, on first use)."""
    sid = service_id(service)
    with _lock:
        found = _loaded.get(sid)
        entry = _entries.get(sid)
    if found is not None:
        return found
    if entry is None:
        raise KeyError(f"No service is registered as {service!r}")
    module = importlib.import_module(entry.module, entry.package)
    found = module.INFO
    if found.id != sid:
        raise ValueError(f"{entry.module} describes {found.id}, registered as {sid}")
    with _lock:
        if _entries.get(sid) == entry:
            _loaded[sid] = found
    return found


def all_services() -> tuple[ServiceInfo, ...]:
    """Every registered service's info, in the registry's order."""
    return tuple(info(sid) for sid in service_ids())
