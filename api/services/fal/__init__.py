"""fal.ai (its queue API): who it is, what it can do, every constant of its wire.

fal.ai hosts many models behind one key and one queue. Sources, cited below by their short names:

* "Client": the official ``fal-client`` 1.0.3 (PyPI), ``fal_client/client.py`` and
  ``fal_client/auth.py`` — the authority on the wire: the queue host, the paths of submit, status,
  result and cancel, the answer's fields, ``Authorization: Key …``, the error body ``{"detail"}``.
* "Queue": https://fal.ai/docs/model-apis/model-endpoints/queue (the same paths and states).
* "Trellis": https://fal.ai/models/fal-ai/trellis/api ($0.02 a mesh; ``image_url`` →
  ``model_mesh.url``).
* "Trellis 2": https://fal.ai/docs/model-api-reference/3d-api/trellis-2 (``image_url``,
  ``resolution`` 512/1024/1536, default 1024 → ``model_glb.url``; $0.25/$0.30/$0.35 by resolution).
* "Hunyuan3D 2": https://fal.ai/models/fal-ai/hunyuan3d/v2/api (``input_image_url``,
  ``textured_mesh`` → ``model_mesh.url``; $0.16 a white mesh, three times that textured).

Checked 2026-11-28. The wire is ``client`` (:mod:`.client`), loaded on a worker when first used.
"""

from __future__ import annotations

from typing import NamedTuple

from ...words import catalogue as words
from ..capabilities import Capabilities, Tier
from ..info import ServiceInfo

# ------------------------------------------------------------------ where (Client)

#: ``QUEUE_URL_FORMAT = f"https://{FAL_QUEUE_RUN_HOST}/"`` with the host ``queue.fal.run`` unless
#: ``FAL_QUEUE_RUN_HOST`` says otherwise (client.py, auth.py). ``KILN_FAL_BASE_URL`` replaces it.
API_ORIGIN = "https://queue.fal.run"
#: ``AuthCredentials("Key", key)``: the header is ``Authorization: Key <key>`` (auth.py).
AUTH_SCHEME = "Key"
#: ``SyncRequestHandle.from_request_id``: ``{owner}/{alias}/requests/{request_id}`` — the app's own
#: sub-path (``/v2`` of ``fal-ai/hunyuan3d/v2``) is not part of it (client.py ``AppId``).
REQUESTS_SEGMENT = "requests"
STATUS_SUFFIX = "/status"  # GET (``status``)
CANCEL_SUFFIX = "/cancel"  # PUT (``cancel``)
#: The submit's answer (``SyncClient.submit``): these four, each read as ``data[name]``.
SUBMIT_FIELDS = ("request_id", "response_url", "status_url", "cancel_url")

# ------------------------------------------------------------------ states (Client ``_parse_status``)
STATE_IN_QUEUE = "IN_QUEUE"  # with ``queue_position``
STATE_IN_PROGRESS = "IN_PROGRESS"  # with ``logs``
STATE_COMPLETED = "COMPLETED"  # with ``logs``, ``metrics``; ``error`` and ``error_type`` when it failed

# ------------------------------------------------------------------ images
#: Client ``encode``: a file input may be a ``data:<mime>;base64,…`` URL instead of an upload. Kiln
#: sends its image so, inside the submit to the queue: no second host ever sees the key (the
#: upload flow asks rest.fal.ai for a CDN token with the key, then posts to v3.fal.media).
DATA_URI_MAX_BYTES = 10 * 1024 * 1024


# ------------------------------------------------------------------ tiers (one model each)


class Model(NamedTuple):
    """One model fal hosts, as Kiln sends to it: its app id, the field its image goes in, the
    output field its mesh comes back in, and the fixed fields Kiln adds (a record of constants:
    Python makes it without compiling the methods a dataclass compiles while Kiln registers)."""

    app_id: str
    image_field: str
    mesh_field: str
    fixed: tuple[tuple[str, object], ...] = ()


TIER_TRELLIS = "trellis"
TIER_TRELLIS_2 = "trellis-2"
TIER_HUNYUAN3D_V2 = "hunyuan3d-v2"
TIER_HUNYUAN3D_V2_SHAPE = "hunyuan3d-v2-shape"
MODELS = {
    TIER_TRELLIS: Model("fal-ai/trellis", "image_url", "model_mesh"),
    # resolution left at its default (1024): the price named in the tier's label.
    TIER_TRELLIS_2: Model("fal-ai/trellis-2", "image_url", "model_glb"),
    TIER_HUNYUAN3D_V2: Model(
        "fal-ai/hunyuan3d/v2", "input_image_url", "model_mesh", (("textured_mesh", True),)
    ),
    TIER_HUNYUAN3D_V2_SHAPE: Model(
        "fal-ai/hunyuan3d/v2", "input_image_url", "model_mesh", (("textured_mesh", False),)
    ),
}
DEFAULT_TIER = TIER_TRELLIS
#: fal bills in US dollars, not credits: the price of each tier as its model page lists it (a 1024
#: TRELLIS.2; Hunyuan3D 2 textured is three times the white mesh). Kiln's ``Tier.credits`` counts a
#: service's own credits, so these are not credits: every tier is "price unknown" to Kiln's budget
#: (never taken as free) and the dollar figure is said in the tier's label and in docs/services/fal.md.
DOLLARS = {
    TIER_TRELLIS: "0.02",
    TIER_TRELLIS_2: "0.30",
    TIER_HUNYUAN3D_V2: "0.48",
    TIER_HUNYUAN3D_V2_SHAPE: "0.16",
}
_TIER_LABELS = {
    TIER_TRELLIS: words.FAL_TIER_TRELLIS,
    TIER_TRELLIS_2: words.FAL_TIER_TRELLIS_2,
    TIER_HUNYUAN3D_V2: words.FAL_TIER_HUNYUAN3D_V2,
    TIER_HUNYUAN3D_V2_SHAPE: words.FAL_TIER_HUNYUAN3D_V2_SHAPE,
}

INFO = ServiceInfo(
    id="FAL",
    name="fal.ai",
    api_origin=API_ORIGIN,
    key_env="KILN_FAL_API_KEY",
    base_url_env="KILN_FAL_BASE_URL",
    keys_page="https://fal.ai/dashboard/keys",
    docs_page="https://fal.ai/docs/model-apis/model-endpoints/queue",
    capabilities=Capabilities(
        # fal hosts text-to-3D models too (Hunyuan3D 3), but none of the three Kiln speaks takes a
        # prompt: a text job is refused in a sentence before anything is sent.
        text_tiers=(),
        image_tiers=tuple(Tier(tid, _TIER_LABELS[tid]) for tid in MODELS),
        image_default=DEFAULT_TIER,
        # The models take an image by its web address ("image_url") as well as a data URL.
        image_url=True,
        max_views=1,
        options=frozenset(),
        image_formats=frozenset({"png", "jpeg", "webp"}),
        image_alpha=True,
        idempotency=False,  # the queue documents no idempotency key: a lost submit stays "outcome unknown"
        cancel=True,  # Client ``cancel``: PUT {cancel_url}
        balance=False,  # no balance call in the client
        webhooks=False,
        refunds_failed=False,  # not documented
    ),
    client_module="fal.client",
    label=words.OPTION_SERVICE_FAL,
    paid_in_dollars=True,  # DOLLARS above: fal bills each model in US dollars
    # fal's keys are "<key id>:<key secret>" (auth.py joins FAL_KEY_ID and FAL_KEY_SECRET so): no prefix.
    key_prefix="",
)
