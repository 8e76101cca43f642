"""Hunyuan3D's own server (``api_server.py``) on the studio's GPU machine: every constant of its wire.

Sources, cited below by their short names:

* "2.0": ``Tencent-Hunyuan/Hunyuan3D-2``, ``api_server.py``: ``POST /send`` (JSON → ``{"uid"}``; the
  job runs in a thread), ``GET /status/{uid}`` (``{"status": "processing"}`` until ``{uid}.glb``
  exists, then ``{"status": "completed", "model_base64"}``), ``POST /generate`` (blocking, the file
  itself). ``ModelWorker.generate``: ``image`` (base64) is required (the text pipeline is commented
  out: a text job dies in its thread, issue #271); the background is always removed; ``mesh``
  (base64 GLB) skips the shape step, so with ``texture`` it textures the given mesh; ``seed``
  (1234), ``octree_resolution`` (128), ``num_inference_steps`` (5), ``face_count`` (40000, only
  with ``texture``); texture needs the server started with ``--enable_tex``. ``--port`` defaults
  to 8081 while the README runs it on 8080 (issue #61).
* "2.1": ``Tencent-Hunyuan/Hunyuan3D-2.1``, ``api_server.py``, ``api_models.py``
  (``GenerationRequest``: ``image`` required, ``remove_background`` true, ``texture`` false,
  ``seed`` 0…2³²−1, ``octree_resolution`` 64…512, ``num_inference_steps`` 1…20,
  ``guidance_scale``, ``num_chunks``, ``face_count`` 1000…100000; no ``mesh`` field, so a mesh sent
  is dropped), ``model_worker.py`` (``generate`` calls the pipeline with the image alone, so seed,
  octree and steps reach only the multi-view path). ``GET /status/{uid}`` says ``completed`` only
  once ``{uid}_textured.glb`` exists: a job without texture stays ``texturing`` for ever (and so
  does one whose texturing failed). ``GET /health`` exists (``{"status": "healthy"}``) and tells
  2.1 from 2.0. Port 8081.
* "README 2.1": 10 GB of GPU memory for shape, 21 GB for texture, 29 GB for both.
* Licence: ``LICENSE`` of both ("TENCENT HUNYUAN 3D 2.x COMMUNITY LICENSE AGREEMENT"): it does not
  apply in the European Union, the United Kingdom and South Korea.

Neither status ever says a job failed: Kiln's own time limit ends a job stuck in ``processing``.

The wire is ``client`` (:mod:`.client`); ``model_field`` decodes the model inside a status answer.
"""

from __future__ import annotations

from ...words import catalogue as words
from ..capabilities import Capabilities, Tier
from ..info import ServiceInfo

# ------------------------------------------------------------------ paths (2.0, 2.1)
SEND_PATH = "/send"
STATUS_PATH = "/status"  # + /{uid}
HEALTH_PATH = "/health"  # 2.1 only: a 404 here is a 2.0 server
#: ``--port`` default in both servers' code; the 2.0 README starts it on 8080 (issue #61), tried too.
DEFAULT_ADDRESS = "http://127.0.0.1:8081"
README_ADDRESS = "http://127.0.0.1:8080"

# ------------------------------------------------------------------ status words (2.0, 2.1)
STATUS_COMPLETED = "completed"
STATUS_PROCESSING = "processing"
STATUS_TEXTURING = "texturing"  # 2.1: the shape is done, the texture is being made
MODEL_FIELD = "model_base64"

# ------------------------------------------------------------------ request fields (2.1 api_models)
#: ``face_count``: the face budget of the mesh the texture step works on (2.1's range).
FACE_COUNT_RANGE = (1000, 100_000)
#: A mesh sent for re-texturing, as base64 inside JSON: kept well under what the server reads.
MAX_MESH_BYTES = 64 * 1024 * 1024
#: A status answer with the model inside can be large; Kiln reads its start for the status word.
STATUS_PREFIX_BYTES = 64 * 1024

TIER_SERVER = "server"

INFO = ServiceInfo(
    id="HUNYUAN3D",
    name="Hunyuan3D",
    api_origin="",  # the studio's own machine
    key_env="",  # api_server.py checks no key
    base_url_env="KILN_HUNYUAN3D_BASE_URL",
    keys_page="",
    docs_page="https://github.com/Tencent-Hunyuan/Hunyuan3D-2.1",
    capabilities=Capabilities(
        image_tiers=(Tier(TIER_SERVER, words.HUNYUAN3D_TIER_SERVER, 0),),
        image_default=TIER_SERVER,
        max_views=1,
        options=frozenset({"texture", "polygons"}),
        polygons=FACE_COUNT_RANGE,
        image_alpha=True,  # 2.1 removes the background only of an image without alpha
        cancel=False,  # neither server has a way to stop a job
        balance=False,
        retexture=True,  # 2.0's ``mesh`` input; refused in a sentence on a 2.1 server
        retexture_max_bytes=MAX_MESH_BYTES,
        retexture_credits=0,
        retexture_options=frozenset({"polygons"}),
    ),
    client_module="hunyuan3d.client",
    label=words.OPTION_SERVICE_HUNYUAN3D,
    use_words=words.USE_HUNYUAN3D_SERVER,
    needs_key=False,
    default_address=DEFAULT_ADDRESS,
    local=True,
    notice=words.HUNYUAN3D_LICENCE,
)
