"""Meshy (``openapi``): who it is, what it can do, every constant of its wire.

Filled from Meshy's public API reference (https://docs.meshy.ai/api): the text-to-3D page
(``/api/text-to-3d``), image-to-3D (``/api/image-to-3d``), multi-image-to-3D
(``/api/multi-image-to-3d``), errors (``/api/errors``), deprecations (``/api/deprecations``, the
model table, checked 2026-11-28), the changelog (``/api/changelog``) and the prices on
https://www.meshy.ai/api ("Pricing"). Meshy's own client, the npm package
``@meshy-ai/meshy-mcp-server`` 0.5.2 (pinned in ``requirements/node.txt``; ``dist/constants.js``,
``dist/services/meshy-client.js``, ``dist/tools/*.js``), is the witness of the wire where the pages
are silent, named where it is used; ``tests/python/services/test_meshy_vendor_contract.py`` runs it
against Kiln's stand-in. Its wire is ``client`` (:mod:`.client`); reading a task's answer is ``answers``.
"""

from __future__ import annotations

from ...words import catalogue as words
from ..capabilities import Capabilities, Tier
from ..info import ServiceInfo

# ---------------------------------------------------------------- paths (docs.meshy.ai/api/*)
#: text-to-3d: both paid steps, preview (geometry) then refine (textures), on one path.
TEXT_TO_3D_PATH = "/openapi/v2/text-to-3d"
IMAGE_TO_3D_PATH = "/openapi/v1/image-to-3d"
MULTI_IMAGE_TO_3D_PATH = "/openapi/v1/multi-image-to-3d"
#: Retexture (docs.meshy.ai/api/retexture): ``model_url`` (a public URL or a base64 data URI,
#: ``application/octet-stream``), ``text_style_prompt`` or ``image_style_url``, ``enable_pbr``.
RETEXTURE_PATH = "/openapi/v1/retexture"
#: GET ``{"balance": n}`` (MCP server ``src/tools/balance.ts``).
BALANCE_PATH = "/openapi/v1/balance"

#: ``Task.handle``: which endpoint made a task, so its poll and its cancel go to the same path
#: (a task is ``GET``/``DELETE`` on its endpoint's path + ``/{id}``, ``src/utils/endpoints.ts``).
HANDLE_TEXT = "text"
HANDLE_IMAGE = "image"
HANDLE_MULTI_IMAGE = "multi-image"
HANDLE_RETEXTURE = "retexture"
TASK_PATHS = {
    HANDLE_TEXT: TEXT_TO_3D_PATH,
    HANDLE_IMAGE: IMAGE_TO_3D_PATH,
    HANDLE_MULTI_IMAGE: MULTI_IMAGE_TO_3D_PATH,
    HANDLE_RETEXTURE: RETEXTURE_PATH,
}
#: The model as a data URI is at most 100 MB (Meshy's MCP server, ``meshy_retexture``'s ``model_url``:
#: "a GLB data URI (max 100 MB)"); base64 makes 3 bytes 4, so the GLB itself at most 75 MB.
RETEXTURE_MAX_URI_BYTES = 100 * 1024 * 1024
RETEXTURE_MAX_BYTES = RETEXTURE_MAX_URI_BYTES * 3 // 4 - 64
#: ``text_style_prompt``: "Maximum 600 characters" (retexture page).
MAX_STYLE_PROMPT_CHARS = 600

# ---------------------------------------------------------------- fields (text-to-3d page)
MODE_PREVIEW = "preview"
MODE_REFINE = "refine"
#: "Describe what kind of object the 3D model is. Maximum 600 characters."
MAX_PROMPT_CHARS = 600
#: ``topology``: ``quad`` or ``triangle`` (default triangle).
TOPOLOGY_QUAD = "quad"
TOPOLOGY_TRIANGLE = "triangle"
#: ``target_polycount``: "Premium users: 100 to 300,000 (inclusive)", default 30,000 (image-to-3d page).
POLYCOUNT_RANGE = (100, 300_000)
#: ``art_style`` is never sent: the changelog of 2026-01-22 deprecated it for Meshy-6 previews ("designed
#: for legacy models (Meshy-4 / Meshy-5) and will be removed"), and Meshy-5 is retired; so Meshy offers no
#: style in Kiln.
#: ``image_urls`` of multi-image-to-3d: "Provide 1 to 4 images".
MAX_VIEWS = 4

# ---------------------------------------------------------------- tiers: ``ai_model`` ids
# The model table of docs.meshy.ai/api/deprecations (checked 2026-11-28): meshy-7.1 Active;
# meshy-7 Deprecated 2026-09-18 (replacement meshy-7.1, retirement "to be announced"); meshy-6 Active;
# meshy-6-lite Active; meshy-5 Retired 2026-10-10 ("Requests that use a retired model return an
# error"); meshy-4 Retired 2026-03-20. Its best practice: "set ai_model to a specific model, such as
# meshy-7.1": Kiln sends the id itself, never ``latest``, so the price shown is the price of what is made.
#: Meshy's current model, the one its deprecations page recommends: Kiln's default.
MODEL_7_1 = "meshy-7.1"
MODEL_6 = "meshy-6"
#: Retired 2026-10-10: kept as a known tier so a job stored or scripted with it is refused by name
#: before anything is sent (never offered).
MODEL_5 = "meshy-5"
MODEL_5_RETIRED = "2026-10-10"
# Not offered: meshy-7 (deprecated, its replacement is meshy-7.1; Kiln never offered it, so no stored
# job names it), meshy-6-lite (the pages read do not say which endpoints take it, nor its price) and
# the smart-topology models meshy-t2.5 / meshy-t2 (``model_type: "smart-topology"``, another job).

# ---------------------------------------------------------------- prices (www.meshy.ai/api, "Pricing")
#: Text to 3D preview: "Meshy 6 models: 20 credits, other models: 10 credits"; refine (textures): 10.
#: No price of meshy-7.1 is on a page read (the MCP server 0.5.2's ``dist/instructions.js`` tables
#: predate it): its tiers say None, "price not published", never free.
PREVIEW_CREDITS = {MODEL_6: 20, MODEL_5: 10}
REFINE_CREDITS = 10
#: Image to 3D and Multi Image to 3D: "Meshy 6 models: 20 credits (without texture), 30 credits (with
#: texture); other models: 5 credits (without texture), 15 credits (with texture)" (the MCP server's
#: ``dist/instructions.js`` "image-to-3d cost by model" table says the same for meshy-6 and meshy-5).
IMAGE_CREDITS = {MODEL_6: (20, 30), MODEL_5: (5, 15)}
#: Texture's share of each price: an image job 10 less untextured, a text job its refine (10) less
#: (the MCP server's ``TEXTURE_CREDITS = 10``, ``dist/constants.js``).
TEXTURE_CREDITS = 10
#: Retexture: 10 credits (Pricing; Meshy's MCP server's ``meshy_retexture``: "Cost: 10 credits").
RETEXTURE_CREDITS = 10

# ---------------------------------------------------------------- task states (task object; MCP constants.ts)
STATE_PENDING = "PENDING"
STATE_IN_PROGRESS = "IN_PROGRESS"
STATE_SUCCEEDED = "SUCCEEDED"
STATE_FAILED = "FAILED"
STATE_CANCELED = "CANCELED"
#: Not on Meshy's pages (its tasks are kept 3 days, help.meshy.ai "How long does Meshy keep
#: API-generated assets?"), but a word such a service may send: taken as failed, never as running.
STATE_EXPIRED = "EXPIRED"
QUEUED_STATES = frozenset({STATE_PENDING})
RUNNING_STATES = frozenset({STATE_IN_PROGRESS})
DONE_STATES = frozenset({STATE_SUCCEEDED})
FAILED_STATES = frozenset({STATE_FAILED, STATE_CANCELED, STATE_EXPIRED})

# ---------------------------------------------------------------- error codes
#: The errors page documents ``{"message": "..."}`` with the HTTP status (400, 401, 402 "Insufficient
#: funds", 403, 404, 429, 5xx); Meshy's MCP server (``dist/constants.js`` ``ErrorCode``,
#: ``dist/services/error-handler.js``) also reads a code from ``error_code`` or ``code`` when one is
#: sent. Kiln reads both, status first.
CODE_INSUFFICIENT_CREDITS = "InsufficientCredits"
CODE_TOO_MANY_PENDING = "TooManyPendingTasks"
CODE_LIMIT_EXCEEDED = "LimitExceeded"
CODE_FORBIDDEN = "Forbidden"
CODE_NOT_FOUND = "NotFound"
#: Words in a refusal that say it is about content (the help centre's "Why did my generation
#: fail?": "Prompts or images that violate Meshy's content policy will be blocked"); no code is
#: documented for it, so the message is read.
CONTENT_WORDS = ("content policy", "moderation", "inappropriate", "nsfw", "violat", "unsafe content")
#: Words in a refusal that say the model or the path asked for is gone: the deprecations page says only
#: "Requests that use a retired model return an error" (no code is documented), so the message is read;
#: such an answer asks for a newer Kiln (ServiceMovedError), never blames the artist's key or address.
RETIRED_WORDS = ("retired", "deprecated", "no longer available", "no longer supported")

INFO = ServiceInfo(
    id="MESHY",
    name="Meshy",
    api_origin="https://api.meshy.ai",
    key_env="KILN_MESHY_API_KEY",
    base_url_env="KILN_MESHY_BASE_URL",
    # Quick start: "Create an API key in the API settings page" (https://www.meshy.ai/settings/api).
    keys_page="https://www.meshy.ai/settings/api",
    docs_page="https://docs.meshy.ai/api",
    capabilities=Capabilities(
        # A text job's price is its preview plus its refine (texture on, the default); with texture
        # off no refine is sent, and the price on Generate drops by ``texture_credits``.
        text_tiers=(
            Tier(MODEL_7_1, words.MESHY_TIER_7_1),
            Tier(MODEL_6, words.MESHY_TIER_6, PREVIEW_CREDITS[MODEL_6] + REFINE_CREDITS),
            Tier(MODEL_5, words.MESHY_TIER_5, PREVIEW_CREDITS[MODEL_5] + REFINE_CREDITS, MODEL_5_RETIRED),
        ),
        # An image job is textured by default (``should_texture`` true): its price with texture.
        image_tiers=(
            Tier(MODEL_7_1, words.MESHY_TIER_7_1),
            Tier(MODEL_6, words.MESHY_TIER_6, IMAGE_CREDITS[MODEL_6][1]),
            Tier(MODEL_5, words.MESHY_TIER_5, IMAGE_CREDITS[MODEL_5][1], MODEL_5_RETIRED),
        ),
        text_default=MODEL_7_1,
        image_default=MODEL_7_1,
        # ``image_url``: "Publicly accessible URL" or a base64 data URI.
        image_url=True,
        max_views=MAX_VIEWS,
        # No style: ``art_style`` is deprecated (see above) and never sent.
        options=frozenset({"pbr", "quad", "polygons", "texture"}),
        polygons=POLYCOUNT_RANGE,
        # "We currently support .jpg, .jpeg, and .png formats." No size limit is documented.
        image_formats=frozenset({"png", "jpeg"}),
        # Not documented either way; a PNG is sent as it is, alpha and all.
        image_alpha=True,
        # No Idempotency-Key is documented: a submit that may have left is "outcome unknown".
        idempotency=False,
        # DELETE on the task's path (what Meshy's MCP server's meshy_cancel_task sends).
        cancel=True,
        balance=True,
        refunds_failed=True,  # help.meshy.ai: "Why did my generation fail?"
        # Meshy's webhooks are set once in the account's API settings, not per job: Kiln polls.
        webhooks=False,
        # POST /openapi/v1/retexture (docs.meshy.ai/api/retexture) takes a model URL or a task id.
        retexture=True,
        retexture_max_bytes=RETEXTURE_MAX_BYTES,
        retexture_credits=RETEXTURE_CREDITS,
        retexture_options=frozenset({"pbr"}),
        texture_credits=TEXTURE_CREDITS,
    ),
    client_module="meshy.client",
    # llms-full.txt: "API keys ... have the format msy_" (the quick start's "msy-" is an old spelling).
    key_prefix="msy_",
)
