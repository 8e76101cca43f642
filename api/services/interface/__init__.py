"""The service of Kiln's interface document (``service-interface.md``): who it is, what it can do.

Its address is the artist's (from the service's dashboard): the document names no host. Its wire
is ``client`` (:mod:`.client`).
"""

from __future__ import annotations

from ...words import catalogue as words
from ..capabilities import Capabilities, Tier
from ..info import ServiceInfo

TEXT_TO_3D_PATH = "/v1/3d/text-to-3d"
IMAGE_TO_3D_PATH = "/v1/3d/image-to-3d"
TASKS_PATH = "/v1/3d/tasks/"

#: The document's image resolutions and prices (its "Limits"); text's are not shown, so a text
#: job is of unknown price unless the artist sets their own figure.
IMAGE_RESOLUTIONS = (1024, 1536)
IMAGE_COSTS = {1024: 2, 1536: 4}
IMAGE_DEFAULT_RESOLUTION = 1536
#: The tier of a text job that sends no resolution: the service chooses (its default is not shown).
SERVICE_DEFAULT = "AUTO"

INFO = ServiceInfo(
    id="INTERFACE",
    name="Custom Service",
    api_origin="",
    key_env="KILN_API_KEY",
    base_url_env="KILN_BASE_URL",
    keys_page="",
    docs_page="",
    capabilities=Capabilities(
        text_tiers=(
            Tier(SERVICE_DEFAULT, words.OPTION_RESOLUTION_AUTO),
            Tier("1024", words.OPTION_RESOLUTION_1024),
            Tier("1536", words.OPTION_RESOLUTION_1536),
        ),
        image_tiers=(
            Tier("1024", words.OPTION_RESOLUTION_1024, IMAGE_COSTS[1024]),
            Tier("1536", words.OPTION_RESOLUTION_1536, IMAGE_COSTS[1536]),
        ),
        text_default=SERVICE_DEFAULT,
        image_default=str(IMAGE_DEFAULT_RESOLUTION),
        image_url=True,
        image_formats=frozenset({"png", "jpeg", "webp"}),
        image_min_side=128,
        idempotency=True,
        webhooks=True,
        text_image_model=True,  # "image_model": {"provider", "quality"} of a text job
        smaller_resolution=str(min(IMAGE_RESOLUTIONS)),  # the advice's "use resolution 1024"
    ),
    client_module="interface.client",
    label=words.OPTION_SERVICE_INTERFACE,
    use_words=words.USE_CUSTOM_SERVICE,
)
