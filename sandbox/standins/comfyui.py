"""A stand-in of ComfyUI's server, written from its source (``Comfy-Org/ComfyUI``), not from Kiln.

What it follows:

* ``server.py`` routes: ``GET /object_info`` (each node class with its ``input`` spec; a loader's
  model files are its combo's options, ``LoadImage``'s the files in the input folder),
  ``POST /upload/image`` (multipart ``image``, ``type``, ``subfolder``, ``overwrite`` →
  ``{"name", "subfolder", "type"}``; without overwrite a taken name becomes ``name (1).png``),
  ``POST /prompt`` (``{"prompt", "prompt_id", "client_id"}`` → ``{"prompt_id", "number",
  "node_errors"}``), ``GET /queue``, ``POST /queue`` (``{"delete": [id]}`` drops a queued prompt),
  ``POST /interrupt`` (``{"prompt_id"}``: only that prompt, only while it runs), ``GET /history/{id}``
  (``{}`` until it has run), ``GET /view`` (``filename``, ``subfolder``, ``type``), ``GET /system_stats``.
* ``execution.py``: ``validate_prompt``'s 400 answers (``invalid_prompt`` for a node class the server
  lacks, ``prompt_no_outputs``, ``prompt_outputs_failed_validation`` with ``value_not_in_list`` for a
  model file or an image it does not have); a history entry's ``outputs`` and ``status``
  (``status_str``, ``completed``, ``messages`` with ``execution_error`` / ``execution_interrupted``).
* ``comfy_extras/nodes_hunyuan3d.py`` ``SaveGLB``: ``{"3d": [{"filename": "<prefix>_00001_.glb",
  "subfolder", "type": "output"}]}``, the prefix's folder as the subfolder.

No key: ComfyUI checks none (every request's headers are recorded, so a test sees none arrives).
Knob (the stand-in's own, not ComfyUI's): ``POST /sandbox/remove`` ``{"nodes": [...], "models":
[...]}`` takes node classes or model files off this server, as a machine without them would be.
"""

from __future__ import annotations

import uuid
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from starlette.datastructures import UploadFile

from sandbox import images
from sandbox.state import SandboxState, Task

#: Loader nodes and the model files this server has (the shipped workflows' models and a few more).
MODELS: dict[str, tuple[str, list[str]]] = {
    "ImageOnlyCheckpointLoader": ("ckpt_name", ["hunyuan_3d_v2.1.safetensors", "sv3d_u.safetensors"]),
    "UNETLoader": ("unet_name", ["trellis_2_int8_convrot.safetensors", "flux1-dev.safetensors"]),
    "VAELoader": (
        "vae_name",
        ["trellis_2_shape_vae_bf16.safetensors", "trellis_2_texture_vae_bf16.safetensors", "ae.safetensors"],
    ),
    "CLIPVisionLoader": ("clip_name", ["dino_v3_L_naf_fp32.safetensors", "clip_vision_h.safetensors"]),
    "LoadBackgroundRemovalModel": ("bg_removal_name", ["birefnet.safetensors"]),
}
#: Every other node class of a stock ComfyUI the shipped workflows use (nodes.py, comfy_extras).
PLAIN_NODES = (
    "CLIPVisionEncode",
    "Hunyuan3Dv2Conditioning",
    "EmptyLatentHunyuan3Dv2",
    "ModelSamplingAuraFlow",
    "ModelSamplingSD3",
    "KSampler",
    "VAEDecodeHunyuan3D",
    "VoxelToMesh",
    "VoxelToMeshBasic",
    "RemoveBackground",
    "ImageCropToMask",
    "Trellis2Conditioning",
    "CFGOverride",
    "RescaleCFG",
    "EmptyTrellis2LatentStructure",
    "VaeDecodeStructureTrellis2",
    "Trellis2ShapeStage",
    "Trellis2UpsampleStage",
    "VaeDecodeShapeTrellis",
    "Trellis2TextureStage",
    "VaeDecodeTextureTrellis",
    "PaintMesh",
)
OUTPUT_NODES = frozenset({"SaveGLB"})


def create_app(state: SandboxState) -> FastAPI:
    app = FastAPI(title="Kiln sandbox: ComfyUI stand-in", description=__doc__)
    uploads: dict[str, bytes] = {}  # "subfolder/name" or "name" → the file
    prompts: dict[str, dict[str, Any]] = {}  # prompt id → {"task", "number", "save", "prefix"}
    deleted: set[str] = set()
    interrupted: set[str] = set()
    removed_nodes: set[str] = set()
    removed_models: set[str] = set()
    files: dict[tuple[str, str], str] = {}  # (subfolder, filename) → prompt id
    counter = {"number": 0, "file": 0}

    def nodes() -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for name, (input_name, options) in MODELS.items():
            kept = [o for o in options if o not in removed_models]
            out[name] = _node(name, {input_name: [kept, {}]})
        for name in PLAIN_NODES:
            out[name] = _node(name, {})
        out["LoadImage"] = _node("LoadImage", {"image": [sorted(uploads), {"image_upload": True}]})
        out["SaveGLB"] = _node("SaveGLB", {"mesh": ["MESH"], "filename_prefix": ["STRING", {}]}, output=True)
        return {name: node for name, node in out.items() if name not in removed_nodes}

    def owner_key() -> str:
        return sorted(state.keys)[0]

    def where(prompt_id: str) -> str:
        """queued, running or done (the task's own clock), gone when deleted from the queue."""
        if prompt_id in deleted:
            return "gone"
        task: Task = prompts[prompt_id]["task"]
        status = task.status
        if prompt_id in interrupted and status != "queued":
            return "done"
        return {"queued": "queued", "running": "running"}.get(status, "done")

    @app.post("/sandbox/remove")
    async def remove(request: Request) -> dict[str, Any]:
        body = await request.json()
        removed_nodes.update(body.get("nodes", []))
        removed_models.update(body.get("models", []))
        return {"nodes": sorted(removed_nodes), "models": sorted(removed_models)}

    @app.get("/system_stats")
    async def system_stats() -> dict[str, Any]:
        return {
            "system": {"os": "posix", "comfyui_version": "0.3.64", "python_version": "3.12"},
            "devices": [{"name": "cuda:0 NVIDIA L40S", "type": "cuda", "vram_total": 48 * 1024**3}],
        }

    @app.get("/object_info")
    async def object_info() -> dict[str, Any]:
        return nodes()

    @app.post("/upload/image")
    async def upload_image(request: Request) -> Response:
        form = await request.form()
        image = form.get("image")
        if not isinstance(image, UploadFile) or not image.filename:
            return Response(status_code=400)
        data = await image.read()
        subfolder = str(form.get("subfolder") or "")
        name = image.filename
        if "/" in name or "\\" in name or ".." in name or ".." in subfolder:
            return Response(status_code=400)
        overwrite = str(form.get("overwrite") or "") in ("true", "1")
        key = f"{subfolder}/{name}" if subfolder else name
        stem, dot, suffix = name.rpartition(".")
        i = 1
        while key in uploads and not overwrite and uploads[key] != data:
            name = f"{stem} ({i}){dot}{suffix}"
            key = f"{subfolder}/{name}" if subfolder else name
            i += 1
        uploads[key] = data
        return JSONResponse({"name": name, "subfolder": subfolder, "type": str(form.get("type") or "input")})

    @app.post("/prompt")
    async def post_prompt(request: Request) -> JSONResponse:
        with state.lock:
            state.submit_attempts += 1
        body = await request.json()
        graph = body.get("prompt") if isinstance(body, dict) else None
        if not isinstance(graph, dict):
            return _refused("no_prompt", "No prompt provided", "No prompt provided")
        known = nodes()
        for node_id, node in graph.items():
            class_type = node.get("class_type") if isinstance(node, dict) else None
            if class_type is None:
                return _refused(
                    "invalid_prompt", "Cannot execute because a node is missing the class_type property.", ""
                )
            if class_type not in known:
                return _refused(
                    "invalid_prompt",
                    f"Cannot execute because node {class_type} does not exist.",
                    f"Node ID '#{node_id}'",
                )
        saves = [i for i, node in graph.items() if node["class_type"] in OUTPUT_NODES]
        if not saves:
            return _refused("prompt_no_outputs", "Prompt has no outputs", "")
        errors: list[str] = []
        image: bytes | None = None
        for node in graph.values():
            spec = known[node["class_type"]]["input"]["required"]
            for input_name, value in (node.get("inputs") or {}).items():
                combo = spec.get(input_name)
                if isinstance(value, str) and combo and isinstance(combo[0], list) and value not in combo[0]:
                    errors.append(f"Value not in list: {input_name}: '{value}' not in {combo[0]}")
            if node["class_type"] == "LoadImage":
                image = uploads.get(str((node.get("inputs") or {}).get("image")))
        if errors or image is None:
            details = "\n".join(errors) or "Required input is missing: image"
            return _refused("prompt_outputs_failed_validation", "Prompt outputs failed validation", details)
        prompt_id = str(body.get("prompt_id") or uuid.uuid4())
        task = state.create_task(
            key=owner_key(),
            kind="image",
            resolution=1024,
            image=images.decode(image),
            base_url=str(request.base_url).rstrip("/"),
            endpoint="comfyui-prompt",
            cost=0,
        )
        if task is None:  # the stand-in charges nothing; a full state cannot happen
            return JSONResponse({"error": "no capacity"}, status_code=500)
        task.submit_body = body
        counter["number"] += 1
        prefix = str(graph[saves[0]].get("inputs", {}).get("filename_prefix", "mesh/ComfyUI"))
        prompts[prompt_id] = {"task": task, "number": counter["number"], "save": saves[0], "prefix": prefix}
        return JSONResponse({"prompt_id": prompt_id, "number": counter["number"], "node_errors": {}})

    @app.get("/queue")
    async def get_queue() -> dict[str, Any]:
        running, pending = [], []
        for prompt_id, spec in prompts.items():
            item = [spec["number"], prompt_id, {}, {"client_id": "kiln"}, [spec["save"]]]
            place = where(prompt_id)
            if place == "running":
                running.append(item)
            elif place == "queued":
                pending.append(item)
        return {"queue_running": running, "queue_pending": pending}

    @app.post("/queue")
    async def post_queue(request: Request) -> Response:
        body = await request.json()
        for prompt_id in body.get("delete", []) if isinstance(body, dict) else []:
            if prompt_id in prompts and where(prompt_id) == "queued":
                deleted.add(prompt_id)
        return Response(status_code=200)

    @app.post("/interrupt")
    async def post_interrupt(request: Request) -> Response:
        try:
            body = await request.json()
        except ValueError:
            body = {}
        targets = [body["prompt_id"]] if isinstance(body, dict) and body.get("prompt_id") else list(prompts)
        for prompt_id in targets:
            if prompt_id in prompts and where(prompt_id) == "running":
                interrupted.add(prompt_id)
        return Response(status_code=200)

    @app.get("/history/{prompt_id}")
    async def history(prompt_id: str) -> dict[str, Any]:
        state.count_poll()
        if prompt_id not in prompts or where(prompt_id) != "done":
            return {}
        spec = prompts[prompt_id]
        task: Task = spec["task"]
        base = {"prompt": [spec["number"], prompt_id, {}, {}, [spec["save"]]], "meta": {}}
        if prompt_id in interrupted:
            event = [
                "execution_interrupted",
                {"prompt_id": prompt_id, "node_id": spec["save"], "executed": []},
            ]
            return {prompt_id: {**base, "outputs": {}, "status": _status("error", [event])}}
        if task.status == "failed":
            event = [
                "execution_error",
                {"prompt_id": prompt_id, "node_type": "KSampler", "exception_message": "CUDA out of memory."},
            ]
            return {prompt_id: {**base, "outputs": {}, "status": _status("error", [event])}}
        folder, _, stem = spec["prefix"].rpartition("/")
        if "file" not in spec:
            counter["file"] += 1
            spec["file"] = f"{stem}_{counter['file']:05}_.glb"
            files[(folder, spec["file"])] = prompt_id
        saved = {"3d": [{"filename": spec["file"], "subfolder": folder, "type": "output"}]}
        done = ["execution_success", {"prompt_id": prompt_id}]
        return {prompt_id: {**base, "outputs": {spec["save"]: saved}, "status": _status("success", [done])}}

    @app.get("/view")
    async def view(request: Request) -> Response:
        query = request.query_params
        filename = query.get("filename", "")
        if not filename or filename[0] == "/" or ".." in filename or query.get("type", "output") != "output":
            return Response(status_code=400 if ".." in filename else 404)
        prompt_id = files.get((query.get("subfolder", ""), filename))
        if prompt_id is None:
            return Response(status_code=404)
        glb = prompts[prompt_id]["task"].artifacts.result().glb
        return Response(
            glb, media_type="model/gltf-binary", headers={"Content-Disposition": f'filename="{filename}"'}
        )

    return app


def _node(name: str, required: dict[str, Any], *, output: bool = False) -> dict[str, Any]:
    """A node as ``server.py`` ``node_info`` describes it."""
    return {
        "input": {"required": required},
        "input_order": {"required": list(required)},
        "output": [],
        "output_is_list": [],
        "output_name": [],
        "name": name,
        "display_name": name,
        "description": "",
        "python_module": "nodes",
        "category": "3d",
        "output_node": output,
    }


def _refused(kind: str, message: str, details: str) -> JSONResponse:
    error = {"type": kind, "message": message, "details": details, "extra_info": {}}
    return JSONResponse({"error": error, "node_errors": {}}, status_code=400)


def _status(word: str, messages: list[Any]) -> dict[str, Any]:
    return {"status_str": word, "completed": word == "success", "messages": messages}
