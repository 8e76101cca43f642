"""Meshy (``openapi``): who it is, what it can do, every constant of its wire.

Filled from Meshy's public API reference; its wire is :mod:`.client`.
"""

from __future__ import annotations

from ..capabilities import Capabilities
from ..info import ServiceInfo

INFO = ServiceInfo(
    id="MESHY",
    name="Meshy",
    api_origin="https://api.meshy.ai",
    key_env="KILN_MESHY_API_KEY",
    base_url_env="KILN_MESHY_BASE_URL",
    keys_page="https://www.meshy.ai/settings/api",
    docs_page="https://docs.meshy.ai",
    capabilities=Capabilities(),
    client_module="meshy.client",
    key_prefix="msy_",
)
