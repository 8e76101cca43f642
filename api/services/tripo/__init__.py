"""Tripo (API v2, ``openapi``): who it is, what it can do, every constant of its wire.

Filled from Tripo's public API reference; its wire is :mod:`.client`.
"""

from __future__ import annotations

from ..capabilities import Capabilities
from ..info import ServiceInfo

INFO = ServiceInfo(
    id="TRIPO",
    name="Tripo",
    api_origin="https://api.tripo3d.ai",
    key_env="KILN_TRIPO_API_KEY",
    base_url_env="KILN_TRIPO_BASE_URL",
    keys_page="https://platform.tripo3d.ai/api-keys",
    docs_page="https://platform.tripo3d.ai/docs",
    capabilities=Capabilities(),
    client_module="tripo.client",
    key_prefix="tsk_",
)
