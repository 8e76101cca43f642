"""Tripo (API v2, ``openapi``): who it is, what it can do, every constant of its wire.

Sources, cited below by their short names:

* "General": https://docs.tripo3d.ai (server URL ``https://api.tripo3d.ai/v2/openapi``, the
  ``{"code": 0, "data": …}`` envelope, errors as ``{"code", "message", "suggestion"}``).
* "Errors": https://docs.tripo3d.ai/get-started/errors-and-error-handling.html (the code table).
* "Generation": https://docs.tripo3d.ai/model-generation/ (text_to_model, image_to_model,
  multiview_to_model and their fields and error codes).
* "Task": the task page (``GET /task/{task_id}``, its seven states, ``output`` links that expire
  after five minutes).
* "Upload": the upload page (multipart ``file`` → ``data.image_token``).
* "Pricing": https://docs.tripo3d.ai/get-started/pricing.html (credits per task and option).
* "FAQ": https://docs.tripo3d.ai/other/support-faq.html (2000 = the concurrency limit of 10,
  2008 = content policy, 2010 = out of credits, failed tasks are not charged).
* "SDK": ``VAST-AI-Research/tripo-python-sdk``, ``tripo3d/client.py`` and ``tripo3d/models.py``
  (paths, the balance call, the style values, the ``tsk_`` key prefix).

The wire is ``client`` (:mod:`.client`), loaded on a worker when first used.
"""

from __future__ import annotations

from ...words import catalogue as words
from ..capabilities import Capabilities, Tier
from ..info import ServiceInfo

# ------------------------------------------------------------------ paths (General, SDK)
API_PREFIX = "/v2/openapi"
TASK_PATH = API_PREFIX + "/task"  # POST: create (Generation); GET TASK_PATH/{id}: poll (Task)
UPLOAD_PATH = API_PREFIX + "/upload"  # POST multipart "file" (Upload; SDK client_impl upload_file)
BALANCE_PATH = API_PREFIX + "/user/balance"  # GET: {"balance", "frozen"} (SDK get_balance)

# ------------------------------------------------------------------ task types (Generation)
TEXT_TO_MODEL = "text_to_model"
IMAGE_TO_MODEL = "image_to_model"
MULTIVIEW_TO_MODEL = "multiview_to_model"
#: multiview_to_model takes exactly four slots in this order; front is required, an empty slot is
#: ``{}``, and fewer than two images are refused (Generation, "Multiview to Model").
MULTIVIEW_ORDER = ("front", "left", "back", "right")
#: Kiln's ``Order.views`` after the front, by position (api/services/order.py).
KILN_VIEW_ORDER = ("back", "left", "right")

# ------------------------------------------------------------------ task states (Task)
STATE_QUEUED = "queued"
STATE_RUNNING = "running"
STATE_SUCCESS = "success"
STATE_FAILED = "failed"
STATE_BANNED = "banned"  # content policy
STATE_EXPIRED = "expired"
STATE_CANCELLED = "cancelled"
STATE_UNKNOWN = "unknown"  # "cannot be determined": not final, Kiln keeps polling (its own deadline ends it)
ONGOING_STATES = frozenset({STATE_QUEUED, STATE_RUNNING, STATE_UNKNOWN})
FAILED_STATES = frozenset({STATE_FAILED, STATE_BANNED, STATE_EXPIRED, STATE_CANCELLED})

# ------------------------------------------------------------------ error codes (Errors, Generation, FAQ)
CODE_OK = 0
CODE_SERVER_UNKNOWN = 1000  # 500
CODE_SERVER_FATAL = 1001  # 500
CODE_AUTH_FAILED = 1002  # 401
CODE_BODY_MALFORMED = 1003  # 400
CODE_PARAMETER_INVALID = 1004  # 400
CODE_FORBIDDEN = 1005  # 403
CODE_RATE_LIMITED = 2000  # 429: more than the concurrency limit (10 by default, FAQ)
CODE_TASK_NOT_FOUND = 2001  # 404
CODE_TYPE_UNSUPPORTED = 2002  # 400
CODE_FILE_EMPTY = 2003  # 400
CODE_FILE_TYPE_UNSUPPORTED = 2004  # 400
CODE_CONTENT_POLICY = 2008  # 400
CODE_NO_CREDITS = 2010  # 403 (not 402: the code decides, not the status)
CODE_AUDIT_ERROR = 2014  # 500: the moderation service itself failed
CODE_VERSION_DEPRECATED = 2015  # 400
CODE_VERSION_INVALID = 2017  # 400
CODE_TOO_COMPLEX = 2018  # 400
CODE_FILE_NOT_FOUND = 2019  # 404
#: The HTTP status the Errors table gives each code, used when an error code arrives inside a
#: 2xx (the documentation is silent on whether it can: Kiln does not assume it cannot).
CODE_STATUS = {
    CODE_SERVER_UNKNOWN: 500,
    CODE_SERVER_FATAL: 500,
    CODE_AUTH_FAILED: 401,
    CODE_BODY_MALFORMED: 400,
    CODE_PARAMETER_INVALID: 400,
    CODE_FORBIDDEN: 403,
    CODE_RATE_LIMITED: 429,
    CODE_TASK_NOT_FOUND: 404,
    CODE_TYPE_UNSUPPORTED: 400,
    CODE_FILE_EMPTY: 400,
    CODE_FILE_TYPE_UNSUPPORTED: 400,
    CODE_CONTENT_POLICY: 400,
    CODE_NO_CREDITS: 403,
    CODE_AUDIT_ERROR: 500,
    CODE_VERSION_DEPRECATED: 400,
    CODE_VERSION_INVALID: 400,
    CODE_TOO_COMPLEX: 400,
    CODE_FILE_NOT_FOUND: 404,
}

# ------------------------------------------------------------------ request fields (Generation)
MAX_PROMPT_CHARS = 1024  # "The maximum prompt length is 1024 characters"
#: Images: "webp, jpeg and png only", each side 20…6000 px (Upload, Generation).
IMAGE_MIN_SIDE = 20
IMAGE_MAX_SIDE = 6000
#: The ``file.type`` word of each image kind (the examples write "jpg"; "not validated", Generation).
FILE_TYPES = {"png": "png", "jpeg": "jpg", "webp": "webp"}
#: ``face_limit``: Generation documents a range only with smart_low_poly or quad, else "adaptively
#: determined". Silent otherwise: Kiln takes 48 (P1's floor) to 500,000 and lets Tripo refuse the rest.
FACE_LIMIT_RANGE = (48, 500_000)
TEXTURE_STANDARD = "standard"
TEXTURE_DETAILED = "detailed"

# ------------------------------------------------------------------ tiers (Generation, Pricing)
#: Kiln's tier id → (model_version, texture_quality or None). The model_version strings are the
#: ones Generation's pages are named after (v2.0-v2.5, v3.0-v3.1, P1-20260311).
TIER_V25 = "v2.5"
TIER_V31 = "v3.1"
TIER_V31_DETAILED = "v3.1-detailed"
TIER_P1 = "P1"
TIER_WIRE = {
    TIER_V25: ("v2.5-20250123", TEXTURE_STANDARD),
    TIER_V31: ("v3.1-20260211", TEXTURE_STANDARD),
    TIER_V31_DETAILED: ("v3.1-20260211", TEXTURE_DETAILED),
    TIER_P1: ("P1-20260311", None),  # P1 is priced all-inclusive; its texture quality is its own
}
DEFAULT_TIER = TIER_V31
#: Billing (API credits bought in advance, apart from the web subscription):
#: https://platform.tripo3d.ai/docs/billing.
#: Pricing: credits of a textured job (texture is on by default): H2/H3 text 20 (10 untextured),
#: image and multiview 30 (20); P1 text 40 (30), image and multiview 50 (40);
#: texture_quality=detailed +10 on H2/H3. A tier's price is the textured one; with texture off the
#: price on Generate drops by ``TEXTURE_CREDITS``.
TEXTURE_CREDITS = 10
TEXT_CREDITS = {TIER_V25: 20, TIER_V31: 20, TIER_V31_DETAILED: 30, TIER_P1: 40}
IMAGE_CREDITS = {TIER_V25: 30, TIER_V31: 30, TIER_V31_DETAILED: 40, TIER_P1: 50}
_TIER_LABELS = {
    TIER_V25: words.TRIPO_TIER_V25,
    TIER_V31: words.TRIPO_TIER_V31,
    TIER_V31_DETAILED: words.TRIPO_TIER_V31_DETAILED,
    TIER_P1: words.TRIPO_TIER_P1,
}

# ------------------------------------------------------------------ styles (SDK tripo3d/models.py ModelStyle)
#: Kiln's style id is the wire value itself.
STYLES = {
    "person:person2cartoon": words.TRIPO_STYLE_CARTOON,
    "animal:venom": words.TRIPO_STYLE_VENOM,
    "object:clay": words.TRIPO_STYLE_CLAY,
    "object:steampunk": words.TRIPO_STYLE_STEAMPUNK,
    "object:christmas": words.TRIPO_STYLE_CHRISTMAS,
    "object:barbie": words.TRIPO_STYLE_BARBIE,
    "gold": words.TRIPO_STYLE_GOLD,
    "ancient_bronze": words.TRIPO_STYLE_BRONZE,
}

INFO = ServiceInfo(
    id="TRIPO",
    name="Tripo",
    api_origin="https://api.tripo3d.ai",
    key_env="KILN_TRIPO_API_KEY",
    base_url_env="KILN_TRIPO_BASE_URL",
    keys_page="https://platform.tripo3d.ai/api-keys",
    docs_page="https://docs.tripo3d.ai",
    capabilities=Capabilities(
        text_tiers=tuple(Tier(tid, _TIER_LABELS[tid], TEXT_CREDITS[tid]) for tid in TIER_WIRE),
        image_tiers=tuple(Tier(tid, _TIER_LABELS[tid], IMAGE_CREDITS[tid]) for tid in TIER_WIRE),
        text_default=DEFAULT_TIER,
        image_default=DEFAULT_TIER,
        # file.url: "A direct URL to the image. Supports JPEG and PNG" (Generation).
        image_url=True,
        max_views=len(MULTIVIEW_ORDER),
        # quad is left out on purpose: "Enabling this option will force the output to be an FBX
        # model" (Generation), and Kiln imports GLB only. pbr: no price of its own (Pricing).
        options=frozenset({"pbr", "polygons", "texture", "style"}),
        polygons=FACE_LIMIT_RANGE,
        styles=tuple(Tier(style, label) for style, label in STYLES.items()),
        image_formats=frozenset(FILE_TYPES),
        image_min_side=IMAGE_MIN_SIDE,
        image_max_side=IMAGE_MAX_SIDE,
        # Silent on transparency; the service cuts the object out itself, so a PNG goes as it is.
        image_alpha=True,
        idempotency=False,  # no Idempotency-Key documented: a lost submit stays "outcome unknown"
        cancel=False,  # "cancelled" is a state, but no cancel call is documented
        balance=True,
        refunds_failed=True,  # Tripo's FAQ: a job that fails costs nothing
        webhooks=False,
        # import_model then texture_model (10 credits, Pricing) would re-texture a mesh, but a model
        # reaches import_model only through Tripo's STS upload to object storage, which Kiln does
        # not speak yet: not offered until it does.
        retexture=False,
        texture_credits=TEXTURE_CREDITS,
    ),
    client_module="tripo.client",
    key_prefix="tsk_",
)
