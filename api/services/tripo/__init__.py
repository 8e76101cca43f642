"""Tripo (API v3, ``openapi.tripo3d.ai``): who it is, what it can do, every constant of its wire.

Sources, cited below by their short names (checked 2026-11-28):

* "SDK": the official Python client ``tripo3d`` 1.0.0 (PyPI, 2026-10-14), the authority on the v3
  wire: ``tripo3d/client.py`` (host, paths, request fields), ``tripo3d/_http.py`` (auth header,
  envelope, errors, uploads), ``tripo3d/models.py`` (task states, output fields, balance). Its
  METADATA: "The v2 API is shut down on 2026-10-31"; "Refine and stylize are no longer supported".
* "Errors": https://docs.tripo3d.ai/get-started/errors-and-error-handling.html (the code table;
  the SDK 1.0.0 reads the same ``{"code", "message", "suggestion"}`` envelope and names no codes).
* "Pricing": https://docs.tripo3d.ai/get-started/pricing.html (credits per task and option).
* "Generation": https://docs.tripo3d.ai/model-generation/ (model names, prompt and image limits).
* "FAQ": https://docs.tripo3d.ai/other/support-faq.html (failed tasks are not charged).

The wire is ``client`` (loaded on a worker when first used); error codes are ``errors``, the two
stages of a re-texture ``retexture``.
"""

from __future__ import annotations

from ...words import catalogue as words
from ..capabilities import Capabilities, Tier
from ..info import ServiceInfo

# ---------------------------------------------------------- host and paths (SDK)
#: client.py BASE_URL_GLOBAL (China mainland accounts: https://openapi.tripo3d.com, BASE_URL_CN).
API_ORIGIN = "https://openapi.tripo3d.ai"
TEXT_PATH = "/v3/generation/text-to-model"  # client.py TripoClient.text_to_model
IMAGE_PATH = "/v3/generation/image-to-model"  # client.py TripoClient.image_to_model
MULTIVIEW_PATH = "/v3/generation/multiview-to-model"  # client.py TripoClient.multiview_to_model
TASKS_PATH = "/v3/tasks"  # GET TASKS_PATH/{task_id}: client.py TripoClient.get_task
#: POST multipart "file" → data.file_token: client.py upload_file, _http.py upload_multipart.
UPLOAD_PATH = "/v3/files"
#: GET → data.balance, data.frozen: client.py get_balance, models.py Balance.
BALANCE_PATH = "/v3/account/balance"
#: client.py TripoClient.MULTIPART_MAX_BYTES: above 50 MB the SDK asks ``/v3/files/presign`` for a
#: presigned PUT. Kiln's images are at most 20 MB (api.checks.inputs.MAX_IMAGE_BYTES) and a mesh to
#: re-texture at most this (:mod:`.retexture`), so Kiln always uploads through UPLOAD_PATH.
MULTIPART_MAX_BYTES = 50 * 1024 * 1024
#: Multiview takes four slots in this order, ``null`` where a view is missing, the front required
#: (client.py multiview_to_model: "[front, left, back, right]; a missing view may be None").
MULTIVIEW_ORDER = ("front", "left", "back", "right")
#: Kiln's ``Order.views`` after the front, by position (api/services/order.py).
KILN_VIEW_ORDER = ("back", "left", "right")
#: What Kiln stores beside a task it made on API v3 (``Task.handle``): a job stored without it was
#: made by a Kiln that spoke API v2 (see :mod:`.client`, "Jobs made on API v2").
HANDLE_V3 = "v3"

# ---------------------------------------------------------- task states (SDK models.py TaskStatus)
STATE_QUEUED = "queued"
STATE_RUNNING = "running"
STATE_SUCCESS = "success"
STATE_FAILED = "failed"
STATE_BANNED = "banned"  # content policy
STATE_EXPIRED = "expired"
STATE_CANCELLED = "cancelled"
#: Not terminal (models.py _TERMINAL_STATUSES leaves it out): Kiln keeps polling, its deadline ends it.
STATE_UNKNOWN = "unknown"
FAILED_STATES = frozenset({STATE_FAILED, STATE_BANNED, STATE_EXPIRED, STATE_CANCELLED})

# ---------------------------------------------------------- output (SDK models.py TaskOutput.from_dict)
#: The mesh: ``model_url`` first, then ``pbr_model_url`` (the SDK's order); the preview image.
MESH_FIELDS = ("model_url", "pbr_model_url")
PREVIEW_FIELD = "rendered_image_url"

# ---------------------------------------------------------- error codes (Errors; envelope: SDK _http.py)
CODE_OK = 0  # _http.py HttpBackend.parse_envelope: any other code is an error
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
CODE_VERSION_DEPRECATED = 2015  # 400: "The version has been deprecated": gone, so update Kiln
CODE_VERSION_INVALID = 2017  # 400
CODE_TOO_COMPLEX = 2018  # 400
CODE_FILE_NOT_FOUND = 2019  # 404
#: The HTTP status the Errors table gives each code, used when an error code arrives inside a 2xx
#: (the SDK reads a non-zero code in a 2xx as an error too: _http.py parse_envelope).
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

# ---------------------------------------------------------- request fields (SDK client.py, Generation)
MAX_PROMPT_CHARS = 1024  # Generation: "The maximum prompt length is 1024 characters"
#: Images: "webp, jpeg and png only", each side 20…6000 px (Generation).
IMAGE_FORMATS = frozenset({"png", "jpeg", "webp"})
IMAGE_MIN_SIDE = 20
IMAGE_MAX_SIDE = 6000
#: ``face_limit``: Generation documents a range only with smart_low_poly or quad, else "adaptively
#: determined". Silent otherwise: Kiln takes 48 (P1's floor) to 500,000 and lets Tripo refuse the rest.
FACE_LIMIT_RANGE = (48, 500_000)
TEXTURE_STANDARD = "standard"  # client.py text_to_model: texture_quality default
TEXTURE_DETAILED = "detailed"

# ---------------------------------------------------------- tiers (Generation, Pricing; field "model": SDK)
#: Kiln's tier id → (``model``, ``texture_quality`` or None). v3 names the field ``model`` (client.py
#: text_to_model: ``payload = {"prompt": …, "model": model_version}``); the ids are Generation's.
#: No retirement date is published for any of them (checked 2026-11-28).
TIER_V25 = "v2.5"
TIER_V31 = "v3.1"
TIER_V31_DETAILED = "v3.1-detailed"
TIER_P1 = "P1"
TIER_WIRE = {
    TIER_V25: ("v2.5-20250123", TEXTURE_STANDARD),  # the SDK's default model_version
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
RETEXTURE_CREDITS = 10  # Pricing: texture_model
TEXT_CREDITS = {TIER_V25: 20, TIER_V31: 20, TIER_V31_DETAILED: 30, TIER_P1: 40}
IMAGE_CREDITS = {TIER_V25: 30, TIER_V31: 30, TIER_V31_DETAILED: 40, TIER_P1: 50}
_TIER_LABELS = {
    TIER_V25: words.TRIPO_TIER_V25,
    TIER_V31: words.TRIPO_TIER_V31,
    TIER_V31_DETAILED: words.TRIPO_TIER_V31_DETAILED,
    TIER_P1: words.TRIPO_TIER_P1,
}

INFO = ServiceInfo(
    id="TRIPO",
    name="Tripo",
    api_origin=API_ORIGIN,
    key_env="KILN_TRIPO_API_KEY",
    base_url_env="KILN_TRIPO_BASE_URL",
    keys_page="https://platform.tripo3d.ai/api-keys",
    docs_page="https://docs.tripo3d.ai",
    capabilities=Capabilities(
        text_tiers=tuple(Tier(tid, _TIER_LABELS[tid], TEXT_CREDITS[tid]) for tid in TIER_WIRE),
        image_tiers=tuple(Tier(tid, _TIER_LABELS[tid], IMAGE_CREDITS[tid]) for tid in TIER_WIRE),
        text_default=DEFAULT_TIER,
        image_default=DEFAULT_TIER,
        # inputs.py classify: an http(s) string in ``input`` is fetched by Tripo.
        image_url=True,
        max_views=len(MULTIVIEW_ORDER),
        # quad is left out on purpose: "Enabling this option will force the output to be an FBX
        # model" (Generation), and Kiln imports GLB only. pbr: no price of its own (Pricing).
        # No "style": stylize is retired on v3 (METADATA; client.py stylize_model raises).
        options=frozenset({"pbr", "polygons", "texture"}),
        polygons=FACE_LIMIT_RANGE,
        image_formats=IMAGE_FORMATS,
        image_min_side=IMAGE_MIN_SIDE,
        image_max_side=IMAGE_MAX_SIDE,
        # Silent on transparency; the service cuts the object out itself, so a PNG goes as it is.
        image_alpha=True,
        # _http.py HttpBackend.request: "task creation is never replayed (it would bill twice)"; no
        # idempotency header is read: a lost submit stays "outcome unknown".
        idempotency=False,
        cancel=False,  # "cancelled" is a state, but the SDK has no cancel call
        balance=True,
        refunds_failed=True,  # Tripo's FAQ: a job that fails costs nothing
        webhooks=False,
        # v3 re-textures an outside mesh: upload it, import it (POST /v3/models/import), texture the
        # import (POST /v3/models/texture): client.py import_model, texture_model; Kiln's two stages
        # are api.services.tripo.retexture. Texture: 10 credits (Pricing); Pricing names no price for
        # the import. The mesh goes by the multipart upload only, so at most its 50 MB.
        retexture=True,
        retexture_max_bytes=MULTIPART_MAX_BYTES,
        retexture_credits=RETEXTURE_CREDITS,
        retexture_options=frozenset({"pbr"}),
        texture_credits=TEXTURE_CREDITS,
    ),
    client_module="tripo.client",
    key_prefix="tsk_",  # client.py TripoClient.__init__: "API key must start with 'tsk_'"
)
