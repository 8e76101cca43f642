"""Where a service's key and address come from, and how often a service on this machine is asked.

``credentials``: the environment (the names its ``ServiceInfo`` gives) over the preferences, then a
known service's documented API origin or a local server's usual address when neither names one; a
service that takes no key is given none. ``service_for_jobs``: where a job naming no service goes.
``poll_interval``: the environment's pace (``ENV_POLL_INTERVAL``) when every service Kiln may ask is
on this machine. ``snapshot``: the workers' settings made from all of these (``variables``: the
environment's part), made again only when what they are made from changed.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from ..checks.inputs import is_loopback_host
from ..services import info, is_registered, old_records_service

if TYPE_CHECKING:
    from ..jobs import ServiceConfig
    from ..services import ServiceInfo

#: Seconds between polls of a service on this machine (the sandbox finishes a task in a tenth of a
#: second); a service elsewhere is always polled at the preferences' pace, 2–3 s, as it asks.
ENV_POLL_INTERVAL = "KILN_POLL_INTERVAL"


@dataclass(frozen=True, eq=False, repr=False)
class Credentials:
    """The key and the address a service's jobs use, and whether each came from the environment
    (``key_env`` and ``url_env`` name the variables, for the preferences' sentences).

    Read field by field, never compared as a value nor printed whole (it holds the key): no
    generated ``__eq__`` or ``__repr__``, which ``dataclass`` compiles from source while Kiln registers."""

    api_key: str
    base_url: str
    key_from_environment: bool = False
    url_from_environment: bool = False
    service: str = ""
    key_env: str = ""
    url_env: str = ""


def credentials(
    preferred_key: str,
    preferred_url: str,
    environ: Mapping[str, str] = os.environ,
    service: str = "",
) -> Credentials:
    """Where a service's key and address come from: the environment over the preferences, and a known
    service's documented API origin (or a local server's usual address) where neither gives one (an
    origin from the environment replaces it, the documented paths unchanged: ``check_web_url`` keeps
    it HTTPS, loopback excepted). A service that takes no key is given none."""
    found = info(service)
    env_key = environ.get(found.key_env, "").strip()
    env_url = environ.get(found.base_url_env, "").strip()
    return Credentials(
        api_key=(env_key or preferred_key.strip()) if found.needs_key else "",
        base_url=env_url or preferred_url.strip() or found.api_origin or found.default_address,
        key_from_environment=bool(env_key),
        url_from_environment=bool(env_url),
        service=found.id,
        key_env=found.key_env,
        url_env=found.base_url_env,
    )


def variables(
    services: tuple[str, ...], environ: Mapping[str, str] = os.environ
) -> tuple[tuple[str, str], ...]:
    """The environment's variables :func:`credentials` and :func:`poll_interval` read for ``services``,
    with their values ("" where unset): all of the environment a service config is made from."""
    names = [ENV_POLL_INTERVAL]
    for sid in services:
        found = info(sid)
        names += [name for name in (found.key_env, found.base_url_env) if name]
    return tuple((name, environ.get(name, "")) for name in names)


@functools.lru_cache(maxsize=1)
def snapshot(
    unnamed_service: str,
    kept: tuple[tuple[ServiceInfo, str, str], ...],
    environ_values: tuple[tuple[str, str], ...],
    jobs: tuple[float, int, float],
    imports: tuple[bool, int, tuple[str, ...]],
    online: bool,
) -> ServiceConfig:
    """The workers' settings (``preferences.service_config`` reads what they are made from, on the main
    thread), made from these and nothing else: each service's info, key and given address, the
    environment's :func:`variables`, the jobs' and imports' preferences, online access. The same
    arguments again give the same snapshot without making it (a watcher beat, nothing changed)."""
    from ..jobs import Account, ServiceConfig  # loaded by the first job, not at registration

    environ = dict(environ_values)
    every = [credentials(key, address, environ, service=found.id) for found, key, address in kept]
    unnamed = next(found for found in every if found.service == unnamed_service)
    set_up = (
        found.base_url
        for found, (service, *_) in zip(every, kept, strict=True)
        if found.api_key or not service.needs_key
    )
    chosen_poll, max_in_flight, timeout_seconds = jobs
    import_in_place, large_import_triangles, helper_command = imports
    return ServiceConfig(
        base_url=unnamed.base_url,
        api_key=unnamed.api_key,
        accounts=tuple(Account(found.service, found.base_url, found.api_key) for found in every),
        poll_interval=poll_interval(chosen_poll, unnamed.base_url, environ, *set_up),
        max_in_flight=max_in_flight,
        timeout_seconds=timeout_seconds,
        import_in_place=import_in_place,
        large_import_triangles=large_import_triangles,
        helper_command=helper_command,
        online=online,
    )


def service_for_jobs(chosen: str, environ: Mapping[str, str] = os.environ) -> str:
    """Where a job that names no service goes: the service the artist chose; while none is chosen, the
    old records' service when its environment variables give its key or address (a pipeline's, such
    as ``KILN_BASE_URL``, which worked before a service was chosen), else "" (Kiln asks which)."""
    if is_registered(chosen):
        return str(chosen).strip().upper()
    sid = old_records_service()
    if not sid:
        return ""
    found = info(sid)
    named = (environ.get(name, "").strip() for name in (found.key_env, found.base_url_env) if name)
    return sid if any(named) else ""


def poll_interval(
    preferred: float, base_url: str, environ: Mapping[str, str] = os.environ, *others: str
) -> float:
    """Seconds between polls: the environment's when every service Kiln may ask is on this machine
    (``base_url`` and the ``others`` set up), else the preferences'."""
    try:
        asked = float(environ.get(ENV_POLL_INTERVAL, "").strip() or "nan")
    except ValueError:
        return preferred
    urls = [url for url in (base_url, *others) if url]
    local = bool(urls) and all(is_loopback_host(urlsplit(url).hostname) for url in urls)
    return asked if local and math.isfinite(asked) and asked > 0 else preferred
