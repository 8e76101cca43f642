"""Where a service's key and address come from, and how often a service on this machine is asked.

``credentials``: the environment (the names its ``ServiceInfo`` gives) over the preferences, then a
known service's documented API origin or a local server's usual address when neither names one; a
service that takes no key is given none. ``service_for_jobs``: where a job naming no service goes.
``poll_interval``: the environment's pace (``ENV_POLL_INTERVAL``) when every service Kiln may ask is
on this machine.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from ..checks.inputs import is_loopback_host
from ..services import info, is_registered, old_records_service

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
