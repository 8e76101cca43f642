"""Hyper3D Rodin (API v2): who it is, what it can do, every constant of its wire.

Filled from Rodin's public API reference (developer.hyper3d.ai, "API Specification"): Overview,
Rodin Generation (Gen-1 & 1.5 tiers), Gen-2 Generation, Gen-2.5 Generation
(``/api-specification/rodin-gen2.5``, checked 2026-11-28), Check Status, Download Results, Check
Balance, Generate Texture. Where a page is silent the choice is said beside the constant. Hyper3D
publishes no client of its own in a package registry (PyPI's ``rodin-gen2-mcp`` is a third party's),
so no vendor client is run against Kiln's stand-in. Its wire is ``client`` (:mod:`.client`), loaded
by a worker when first used.
"""

from __future__ import annotations

from ...words import catalogue as words
from ..capabilities import Capabilities, Tier
from ..info import ServiceInfo

# ------------------------------------------------------------------ where

#: The origin every example of the reference uses today ("curl https://api.hyper3d.com/api/v2/rodin",
#: Download Results and Check Balance pages); older examples name https://hyperhuman.deemos.com,
#: which serves the same paths. ``KILN_RODIN_BASE_URL`` replaces the origin only.
API_ORIGIN = "https://api.hyper3d.com"
#: Rodin Generation / Gen-2 Generation: "POST /api/v2/rodin", multipart/form-data only.
GENERATE_PATH = "/api/v2/rodin"
#: Check Status: "POST /api/v2/status" with JSON ``{"subscription_key": …}``.
STATUS_PATH = "/api/v2/status"
#: Download Results: "POST /api/v2/download" with JSON ``{"task_uuid": …}``.
DOWNLOAD_PATH = "/api/v2/download"
#: Check Balance: "GET /api/v2/check_balance" → ``{"balance": int}``.
BALANCE_PATH = "/api/v2/check_balance"

# ------------------------------------------------------------------ the generation's form fields
# Rodin Generation and Gen-2 Generation pages, "Body" table (multipart/form-data).

FIELD_IMAGES = "images"  # file/Binary, up to 5; "the first image will be the image for material generation"
FIELD_PROMPT = "prompt"  # required for Text-to-3D, optional with images
FIELD_TIER = "tier"  # "The default value is Regular"
FIELD_FORMAT = "geometry_file_format"  # glb (default), usdz, fbx, obj, stl
FIELD_MATERIAL = "material"  # PBR (default) or Shaded
FIELD_MESH_MODE = "mesh_mode"  # Quad or Raw (triangles); default Quad, Raw on the Gen-2.5 page
FIELD_POLYGONS = "quality_override"  # a face count that overrides ``quality``
#: Multi-image jobs of the Gen-1/1.5 and Gen-2 tiers: concat (one object, several views) or fuse. The
#: Gen-2.5 page has no such field (its images are always views of one object): not sent there.
FIELD_CONDITION_MODE = "condition_mode"
FIELD_ORIGINAL_ALPHA = "use_original_alpha"  # keep the image's own transparency (default false)

GEOMETRY_FORMAT = "glb"
MATERIAL_PBR = "PBR"
MATERIAL_SHADED = "Shaded"
MESH_QUAD = "Quad"
MESH_RAW = "Raw"
#: Rodin Generation, condition_mode ("Useful only for multi-images 3D generation", default concat):
#: concat reads the images as views of one object, which is what Kiln's views are.
CONDITION_CONCAT = "concat"
#: "up to 5 images" (Rodin Generation, images).
MAX_IMAGES = 5

# ------------------------------------------------------------------ tiers and prices
# Rodin Generation: "Base Cost: 0.5 credit per generation for either Sketch and Regular tier";
# Gen-2 Generation: "Base Cost: 0.5 credit per generation"; both: "HighPack: additional 1 credit".
# Detail and Smooth (Overview and the skill guide list them) have no price on any page.
# Each tier carries its published price as it is (0.5 credits); Detail and Smooth stay of unknown
# price (never taken as free).

TIER_GEN2 = "Gen-2"
TIER_REGULAR = "Regular"
TIER_DETAIL = "Detail"
TIER_SMOOTH = "Smooth"
TIER_SKETCH = "Sketch"
#: Gen-2.5 Generation (same path, ``tier``): "Use Gen-2.5 Generation with following Gen-2.5 tiers", each
#: with its credits cost: Extreme-Low, Low, Medium and High 0.5 credit, Extreme-High 1.0 credit. No
#: retirement is published for any Rodin tier (checked 2026-11-28).
TIER_25_EXTREME_LOW = "Gen-2.5-Extreme-Low"
TIER_25_LOW = "Gen-2.5-Low"
TIER_25_MEDIUM = "Gen-2.5-Medium"
TIER_25_HIGH = "Gen-2.5-High"
TIER_25_EXTREME_HIGH = "Gen-2.5-Extreme-High"
TIERS_25 = (TIER_25_EXTREME_LOW, TIER_25_LOW, TIER_25_MEDIUM, TIER_25_HIGH, TIER_25_EXTREME_HIGH)
TIERS = (*TIERS_25, TIER_GEN2, TIER_REGULAR, TIER_DETAIL, TIER_SMOOTH, TIER_SKETCH)
#: Kiln's default tier: Gen-2.5-Medium ("balanced structure and detail"), Rodin's current generation.
#: Kiln always sends a tier (Rodin's own default when none is sent is Regular: "The default value is
#: Regular").
DEFAULT_TIER = TIER_25_MEDIUM
#: Published prices in Rodin credits (fractional), where a page states one.
PUBLISHED_CREDITS = {
    TIER_25_EXTREME_LOW: 0.5,
    TIER_25_LOW: 0.5,
    TIER_25_MEDIUM: 0.5,
    TIER_25_HIGH: 0.5,
    TIER_25_EXTREME_HIGH: 1.0,
    TIER_GEN2: 0.5,
    TIER_REGULAR: 0.5,
    TIER_SKETCH: 0.5,
}

#: quality_override's range. The reference gives no bounds; these are the face counts Rodin's own
#: ComfyUI nodes offer (comfy_api_nodes/nodes_rodin.py: 2K Raw … 500K Raw, 4K … 50K Quad).
POLYGONS = (2_000, 500_000)

# ------------------------------------------------------------------ states
# Check Status: "Waiting", "Generating", "Done", "Failed", one per job of the task. "Canceled" is
# not in the table; the Rodin integration of blender-mcp names it as a final state, so it is read as
# failed. Any other word is taken as still running.

STATE_WAITING = "Waiting"
STATE_GENERATING = "Generating"
STATE_DONE = "Done"
STATE_FAILED = "Failed"
STATE_CANCELED = "Canceled"

# ------------------------------------------------------------------ errors
# Every answer may carry ``error`` (string, "Optional. Error message, if any") and ``message``;
# Check Status and Download Results show ``"error": "OK"`` on success, and answers come as 201.
# The reference lists no error codes, so Kiln reads the service's own words: the codes below are
# the ones the stand-in uses (sandbox/standins/rodin.py), and the word lists catch other spellings.

ERROR_NONE = ("", "OK")
ERROR_INSUFFICIENT_FUND = "INSUFFICIENT_FUND"
ERROR_INVALID_KEY = "INVALID_API_KEY"
ERROR_NOT_AUTHENTICATED = "NOT_AUTHENTICATED"
ERROR_RATE_LIMITED = "TOO_MANY_REQUESTS"
ERROR_CONTENT_REJECTED = "CONTENT_REJECTED"
ERROR_TASK_NOT_FOUND = "TASK_NOT_FOUND"
ERROR_INVALID_REQUEST = "INVALID_REQUEST"
#: Words that say what kind of trouble an error is (matched in the code and the message, any case).
CREDITS_WORDS = ("insufficient", "balance", "credit", "fund", "quota", "payment")
AUTH_WORDS = ("authenticat", "api key", "api_key", "token", "unauthori", "forbidden", "permission")
RATE_WORDS = ("too many", "too_many", "rate limit", "rate_limit", "ratelimit", "throttl", "frequent")
CONTENT_WORDS = (
    "content_",
    "content polic",
    "content rule",
    "moderation",
    "flagged",
    "nsfw",
    "sensitive",
    "inappropriate",
    "prohibited",
)
NOT_FOUND_WORDS = ("not found", "not_found", "no such", "no_such", "unknown task", "does not exist")
#: Words that say a tier, field or version is gone (no code is documented for it): such an answer asks
#: for a newer Kiln (ServiceMovedError), never blames the artist's key or address.
RETIRED_WORDS = ("retired", "deprecated", "no longer available", "no longer supported", "discontinued")

#: Every tier takes text and images alike (Overview; the Gen-2.5 page: "For Text-to-3D generation:
#: null" images, prompt required). Gen-2.5 first, the current generation.
_TIERS = (
    Tier(TIER_25_EXTREME_LOW, words.RODIN_TIER_25_EXTREME_LOW, PUBLISHED_CREDITS[TIER_25_EXTREME_LOW]),
    Tier(TIER_25_LOW, words.RODIN_TIER_25_LOW, PUBLISHED_CREDITS[TIER_25_LOW]),
    Tier(TIER_25_MEDIUM, words.RODIN_TIER_25_MEDIUM, PUBLISHED_CREDITS[TIER_25_MEDIUM]),
    Tier(TIER_25_HIGH, words.RODIN_TIER_25_HIGH, PUBLISHED_CREDITS[TIER_25_HIGH]),
    Tier(TIER_25_EXTREME_HIGH, words.RODIN_TIER_25_EXTREME_HIGH, PUBLISHED_CREDITS[TIER_25_EXTREME_HIGH]),
    Tier(TIER_GEN2, words.RODIN_TIER_GEN2, PUBLISHED_CREDITS[TIER_GEN2]),
    Tier(TIER_REGULAR, words.RODIN_TIER_REGULAR, PUBLISHED_CREDITS[TIER_REGULAR]),
    Tier(TIER_DETAIL, words.RODIN_TIER_DETAIL),
    Tier(TIER_SMOOTH, words.RODIN_TIER_SMOOTH),
    Tier(TIER_SKETCH, words.RODIN_TIER_SKETCH, PUBLISHED_CREDITS[TIER_SKETCH]),
)

INFO = ServiceInfo(
    id="RODIN",
    name="Hyper3D Rodin",
    api_origin=API_ORIGIN,
    key_env="KILN_RODIN_API_KEY",
    base_url_env="KILN_RODIN_BASE_URL",
    # Get started with Rodin: keys are made in the API Dashboard of hyper3d.ai.
    keys_page="https://hyper3d.ai/api-dashboard",
    docs_page="https://developer.hyper3d.ai/api-specification/overview",
    capabilities=Capabilities(
        # Overview: "When you upload image files, Rodin selects the Image-to-3D mode … when you don't
        # upload any image, you have to upload a text prompt": every tier takes both.
        text_tiers=_TIERS,
        image_tiers=_TIERS,
        text_default=DEFAULT_TIER,
        image_default=DEFAULT_TIER,
        # Images go only as uploaded files (multipart); no field takes an address.
        image_url=False,
        max_views=MAX_IMAGES,
        # pbr → material, quad → mesh_mode, polygons → quality_override. There is no switch for a
        # mesh without texture on the generation pages, and no style.
        options=frozenset({"pbr", "quad", "polygons"}),
        polygons=POLYGONS,
        # The reference names no image formats or sizes; Kiln sends what it reads itself.
        image_formats=frozenset({"png", "jpeg", "webp"}),
        image_alpha=True,  # use_original_alpha keeps a PNG's own transparency
        idempotency=False,  # no idempotency header is documented
        cancel=False,  # no cancel call is documented
        # Check Status asks by the subscription key only its submit answered; a task id alone is
        # asked of Download Results (it takes the uuid): a GLB in its list is done, none yet running.
        follows_by_id=True,
        balance=True,  # Check Balance
        webhooks=False,  # none documented
        # Generate Texture ("/api/v2/rodin_texture_only") would re-texture a mesh; Kiln does not send
        # it yet, so it is not offered.
        retexture=False,
    ),
    client_module="rodin.client",
)
