"""The toy service (``toy_service``) that cannot be asked about a task by its id alone, registered
at run time where a test needs such a service (every shipped service can be):

    api.services.register_service("TOYNOID", "toy_service_no_by_id", package="")
"""

from __future__ import annotations

import dataclasses

from toy_service import INFO as _TOY

INFO = dataclasses.replace(
    _TOY,
    id="TOYNOID",
    name="Toy Without Ids",
    capabilities=dataclasses.replace(_TOY.capabilities, follows_by_id=False),
)
