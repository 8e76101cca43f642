"""Hyper3D Rodin (API v2): who it is, what it can do, every constant of its wire.

Filled from Rodin's public API reference; its wire is :mod:`.client`.
"""

from __future__ import annotations

from ..capabilities import Capabilities
from ..info import ServiceInfo

INFO = ServiceInfo(
    id="RODIN",
    name="Hyper3D Rodin",
    api_origin="https://hyperhuman.deemos.com",
    key_env="KILN_RODIN_API_KEY",
    base_url_env="KILN_RODIN_BASE_URL",
    keys_page="https://hyper3d.ai/api-dashboard",
    docs_page="https://developer.hyper3d.ai",
    capabilities=Capabilities(),
    client_module="rodin.client",
)
