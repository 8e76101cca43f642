"""The workflows Kiln runs on ComfyUI: read, checked against the server's node list, filled in.

A workflow is ComfyUI's API format (``{node_id: {"class_type", "inputs"}}``, what ``POST /prompt``
takes: server ``post_prompt``). Kiln needs exactly one image node (its ``image`` input becomes the
uploaded file's name) and one save node (whose UI output names the GLB). Before anything is sent,
:func:`missing` compares the workflow with ``GET /object_info``: node classes the server lacks, and
model files a loader names that are not among its input's options (server ``node_info``: a combo
input's spec is ``[[option, …], {…}]``, or ``["COMBO", {"options": […]}]`` for newer nodes).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from ...errors import InputError
from ...words import catalogue as words
from . import IMAGE_INPUT, IMAGE_NODE, MAX_WORKFLOW_BYTES, MODEL_SUFFIXES, SAVE_NODES, WORKFLOW_FILES

Graph = dict[str, dict[str, Any]]


@dataclass(frozen=True)
class Workflow:
    """One API-format workflow with its image node and save node found."""

    name: str
    graph: Graph
    image_node: str
    save_node: str

    def with_image(self, uploaded: str) -> Graph:
        """A copy whose image node reads ``uploaded`` (the name ``/upload/image`` answered)."""
        graph = copy.deepcopy(self.graph)
        graph[self.image_node]["inputs"][IMAGE_INPUT] = uploaded
        return graph


def shipped(tier: str) -> Workflow:
    """A workflow Kiln ships, by its tier."""
    name = WORKFLOW_FILES[tier]
    text = resources.files(__package__).joinpath("workflows", name).read_text(encoding="utf-8")
    return parse(name, text)


def from_file(path: str) -> Workflow:
    """A studio's own workflow file (``KILN_COMFYUI_WORKFLOW``), read on a worker."""
    name = Path(path).name
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_WORKFLOW_BYTES + 1)
    except (OSError, ValueError) as exc:
        raise _unusable(name, f"it could not be read ({type(exc).__name__})") from None
    if len(data) > MAX_WORKFLOW_BYTES:
        raise _unusable(name, "it is larger than 2 MB")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise _unusable(name, "it is not UTF-8 text") from None
    return parse(name, text)


def parse(name: str, text: str) -> Workflow:
    """A workflow from its JSON text, or InputError saying why Kiln cannot run it."""
    try:
        graph = json.loads(text)
    except (ValueError, RecursionError):
        raise _unusable(name, "it is not JSON") from None
    if not isinstance(graph, dict) or not graph:
        raise _unusable(name, "it is not an API-format workflow (a map of node ids)")
    for node_id, node in graph.items():
        if not (isinstance(node, dict) and isinstance(node.get("class_type"), str)):
            raise _unusable(name, f"node {node_id!r} has no class_type (export it with Save (API))")
        if not isinstance(node.setdefault("inputs", {}), dict):
            raise _unusable(name, f"node {node_id!r} has inputs that are not a map")
    images = [i for i, node in graph.items() if node["class_type"] == IMAGE_NODE]
    saves = [i for i, node in graph.items() if node["class_type"] in SAVE_NODES]
    if len(images) != 1:
        raise _unusable(name, f"it has {len(images)} {IMAGE_NODE} nodes, not one")
    if len(saves) != 1:
        raise _unusable(name, f"it has {len(saves)} save nodes ({', '.join(sorted(SAVE_NODES))}), not one")
    return Workflow(name, graph, images[0], saves[0])


def missing(workflow: Workflow, object_info: Mapping[str, Any]) -> list[str]:
    """What the server lacks for ``workflow``: node classes, then model files (by their names)."""
    nodes: list[str] = []
    models: list[str] = []
    for node in workflow.graph.values():
        class_type = node["class_type"]
        spec = object_info.get(class_type)
        if not isinstance(spec, Mapping):
            if class_type not in nodes:
                nodes.append(class_type)
            continue
        if class_type == IMAGE_NODE:
            continue  # its options are the server's input folder: the upload adds Kiln's image
        for input_name, value in node["inputs"].items():
            if not (isinstance(value, str) and value.lower().endswith(MODEL_SUFFIXES)):
                continue
            options = _options(spec, input_name)
            if options is not None and value not in options and value not in models:
                models.append(value)
    return [f"node {name}" for name in nodes] + [f"model {name}" for name in models]


def glb_output(outputs: object, save_node: str) -> Mapping[str, Any] | None:
    """The file the save node wrote, from a history entry's ``outputs`` (``{"3d": [{filename, …}]}``);
    any node's GLB where the save node's is not there (a studio's other save node)."""
    if not isinstance(outputs, Mapping):
        return None
    order = [save_node] + [key for key in outputs if key != save_node]
    for node_id in order:
        found = outputs.get(node_id)
        if not isinstance(found, Mapping):
            continue
        for files in found.values():
            for item in files if isinstance(files, list) else ():
                if isinstance(item, Mapping) and str(item.get("filename", "")).lower().endswith(".glb"):
                    return item
    return None


def _options(spec: Mapping[str, Any], input_name: str) -> list[str] | None:
    """The options of a combo input in a node's /object_info spec (None: not a combo, or unknown)."""
    inputs = spec.get("input")
    if not isinstance(inputs, Mapping):
        return None
    for group in ("required", "optional"):
        found = inputs.get(group)
        entry = found.get(input_name) if isinstance(found, Mapping) else None
        if not isinstance(entry, list) or not entry:
            continue
        if isinstance(entry[0], list):
            return [str(option) for option in entry[0]]
        if entry[0] == "COMBO" and len(entry) > 1 and isinstance(entry[1], Mapping):
            options = entry[1].get("options")
            return [str(option) for option in options] if isinstance(options, list) else None
    return None


def _unusable(name: str, problem: str) -> InputError:
    return InputError(words.COMFYUI_WORKFLOW_UNUSABLE, details=problem, name=name)
