"""A toy service for the open registry's test, registered at run time by one call:

    api.services.register_service("TOY", "toy_service", package="")

It is the custom service's wire and stand-in (``sandbox.app``) under an id, a name and variables of
its own (``KILN_TOY_BASE_URL``, ``KILN_TOY_API_KEY``), made from the enabled add-on's own info, so no
shipped file knows of it.
"""

from __future__ import annotations

import dataclasses
import sys

_CUSTOM = next(
    module
    for name, module in list(sys.modules.items())
    if name.startswith("bl_ext.") and name.endswith(".api.services.interface")
)

INFO = dataclasses.replace(
    _CUSTOM.INFO,
    id="TOY",
    name="Toy",
    key_env="KILN_TOY_API_KEY",
    base_url_env="KILN_TOY_BASE_URL",
    label=None,
)
