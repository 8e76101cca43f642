"""ComfyUI on the studio's own GPU machine: who it is, what it can do, every constant of its wire.

Sources, cited below by their short names (ComfyUI, ``Comfy-Org/ComfyUI``):

* "server": ``server.py``, ``PromptServer.__init__``'s routes: ``GET /object_info`` (every node class
  with its ``input`` spec, a loader's model files as the options of its combo input),
  ``POST /upload/image`` (multipart ``image``, ``type``, ``subfolder``, ``overwrite`` →
  ``{"name", "subfolder", "type"}``), ``POST /prompt`` (``{"prompt", "prompt_id", "client_id"}`` →
  ``{"prompt_id", "number", "node_errors"}``, or 400 ``{"error", "node_errors"}``),
  ``GET /history/{prompt_id}`` (``{}`` until the prompt has run), ``GET /queue``
  (``queue_running`` and ``queue_pending``: items ``[number, prompt_id, prompt, extra, outputs]``),
  ``GET /view`` (``filename``, ``subfolder``, ``type``), ``POST /interrupt`` (``{"prompt_id"}``:
  only that prompt, and only while it runs), ``POST /queue`` (``{"delete": [prompt_id]}``: a queued
  prompt), ``GET /system_stats``.
* "execution": ``execution.py``: ``validate_prompt`` (the 400's ``error`` ``{"type", "message",
  "details"}``), ``PromptQueue.task_done`` / ``get_history`` (an entry's ``outputs`` by node id and
  ``status`` ``{"status_str": "success"|"error", "completed", "messages": [[event, data], …]}``),
  ``PromptExecutor.handle_execution_error`` (``execution_error`` with ``exception_message``;
  ``execution_interrupted``).
* "hunyuan3d nodes": ``comfy_extras/nodes_hunyuan3d.py`` (EmptyLatentHunyuan3Dv2,
  Hunyuan3Dv2Conditioning, VAEDecodeHunyuan3D, VoxelToMesh, and SaveGLB, whose UI output is
  ``{"3d": [{"filename", "subfolder", "type": "output"}]}``): shape only, no texture.
* "trellis2 nodes": ``comfy_extras/nodes_trellis2.py`` (Trellis2Conditioning, EmptyTrellis2LatentStructure,
  VaeDecodeStructureTrellis2, Trellis2ShapeStage, Trellis2UpsampleStage, VaeDecodeShapeTrellis,
  Trellis2TextureStage, VaeDecodeTextureTrellis, merged in PR #12183) and
  ``comfy_extras/nodes_mesh_postprocess.py`` (PaintMesh: vertex colours from the voxel colours),
  ``comfy_extras/nodes_bg_removal.py`` (LoadBackgroundRemovalModel, RemoveBackground: a mask) and
  ``comfy_extras/nodes_images.py`` (ImageCropToMask: the object centred on black, ``pad_factor`` 1.0
  for TRELLIS.2 as Trellis2Conditioning's tooltip says). The TRELLIS.2 workflow's stages, steps and
  model files follow ComfyUI's TRELLIS.2 template as its users report it (issue #14188); a studio
  whose template differs exports its own (``KILN_COMFYUI_WORKFLOW``).

The workflows Kiln runs are API-format files in ``workflows/`` (the tiers); a studio's own is the
file ``KILN_COMFYUI_WORKFLOW`` names. The wire is ``client`` (:mod:`.client`).
"""

from __future__ import annotations

import os
from pathlib import PurePath

from ...words import catalogue as words
from ..capabilities import Capabilities, Tier
from ..info import ServiceInfo

# ------------------------------------------------------------------ paths (server)
OBJECT_INFO_PATH = "/object_info"
UPLOAD_IMAGE_PATH = "/upload/image"
PROMPT_PATH = "/prompt"
HISTORY_PATH = "/history"  # + /{prompt_id}
QUEUE_PATH = "/queue"  # GET: running and pending; POST {"delete": [id]}: drop a queued prompt
INTERRUPT_PATH = "/interrupt"
VIEW_PATH = "/view"
SYSTEM_STATS_PATH = "/system_stats"  # cheap: the connection check
#: ComfyUI's own default (``comfy/cli_args.py``: ``--listen 127.0.0.1``, ``--port 8188``).
DEFAULT_ADDRESS = "http://127.0.0.1:8188"
#: Who Kiln says it is in ``client_id`` (server: sent back on the websocket, which Kiln does not use).
CLIENT_ID = "kiln"

# ------------------------------------------------------------------ nodes (hunyuan3d nodes, server)
#: The node a workflow's image goes into: its ``image`` input is the uploaded file's name.
IMAGE_NODE = "LoadImage"
IMAGE_INPUT = "image"
#: The node that writes the GLB Kiln downloads, and where its UI output lists the file.
SAVE_NODES = frozenset({"SaveGLB"})
SAVE_OUTPUT_KEY = "3d"
#: A loader's input whose value ends so names a model file (checked against the server's options).
MODEL_SUFFIXES = (".safetensors", ".ckpt", ".pt", ".pth", ".bin", ".gguf", ".onnx")

# ------------------------------------------------------------------ history (execution)
STATUS_SUCCESS = "success"
STATUS_ERROR = "error"
EVENT_ERROR = "execution_error"
EVENT_INTERRUPTED = "execution_interrupted"

# ------------------------------------------------------------------ tiers: the workflows Kiln ships
TIER_HUNYUAN3D_21 = "hunyuan3d-2.1"
TIER_TRELLIS_2 = "trellis-2"
TIER_STUDIO = "studio"
#: Each shipped tier's workflow file in ``workflows/``.
WORKFLOW_FILES = {TIER_HUNYUAN3D_21: "hunyuan3d_2_1.json", TIER_TRELLIS_2: "trellis_2.json"}
#: The environment variable naming a studio's own API-format workflow (one Load Image node, one
#: Save GLB node): offered as the tier "Studio Workflow". Read from the environment only (no disk
#: here: the Sidebar reads this module while it draws); the file is read on a worker when sent.
STUDIO_WORKFLOW_ENV = "KILN_COMFYUI_WORKFLOW"
MAX_WORKFLOW_BYTES = 2 * 1024 * 1024


def studio_workflow(environ: os._Environ[str] | dict[str, str] = os.environ) -> str:
    """The studio's workflow file named in the environment ("" : none)."""
    value = environ.get(STUDIO_WORKFLOW_ENV, "").strip()
    return value if value and PurePath(value).suffix.lower() == ".json" else ""


def _tiers() -> tuple[Tier, ...]:
    shipped = (
        Tier(TIER_HUNYUAN3D_21, words.COMFYUI_TIER_HUNYUAN3D_21, 0),
        Tier(TIER_TRELLIS_2, words.COMFYUI_TIER_TRELLIS_2, 0),
    )
    studio = (Tier(TIER_STUDIO, words.COMFYUI_TIER_STUDIO, 0),) if studio_workflow() else ()
    return shipped + studio


INFO = ServiceInfo(
    id="COMFYUI",
    name="ComfyUI",
    api_origin="",  # the studio's own machine: the artist gives its address
    key_env="KILN_COMFYUI_TOKEN",  # only where a proxy in front of ComfyUI wants a token
    base_url_env="KILN_COMFYUI_BASE_URL",
    keys_page="",
    docs_page="https://docs.comfy.org/development/comfyui-server/comms_routes",
    capabilities=Capabilities(
        image_tiers=_tiers(),
        image_default=TIER_HUNYUAN3D_21,
        max_views=1,
        options=frozenset(),
        # LoadImage reads PNG, JPEG and WebP through Pillow and keeps a PNG's alpha as its mask.
        image_alpha=True,
        cancel=True,  # POST /interrupt and POST /queue {"delete"} (server)
        balance=False,
    ),
    client_module="comfyui.client",
    label=words.OPTION_SERVICE_COMFYUI,
    needs_key=False,
    default_address=DEFAULT_ADDRESS,
    local=True,
)
