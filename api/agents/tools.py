"""Kiln's tools for agents, by name, and how a call to one becomes a result.

No tool evaluates text or runs code an agent sent: each takes checked arguments
(:mod:`~api.agents.arguments`) and asks the host for one of a few fixed things. A refusal or a
problem an artist would be told about (:class:`~api.errors.KilnError`) becomes a tool error with its
sentence, which the model reads and can act on; anything else is logged and said in general words.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import KilnError
from . import generate, job_tools, results, words
from .arguments import Arguments
from .calls import Call
from .jsonrpc import INVALID_PARAMS, RpcError
from .logs import log
from .results import ToolResult, refused

Run = Callable[[Call, dict[str, Any]], ToolResult]


@dataclass(frozen=True)
class Tool:
    name: str
    title: str
    description: str
    arguments: Arguments
    output_schema: dict[str, Any]
    run: Run
    annotations: dict[str, bool] = field(default_factory=dict)

    def listing(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": self.arguments.schema(),
            "outputSchema": self.output_schema,
            "annotations": {"title": self.title, **self.annotations},
        }


_READS = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}
_SPENDS = {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False, "openWorldHint": True}
_CHANGES = {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}

TOOLS: dict[str, Tool] = {
    tool.name: tool
    for tool in (
        Tool(
            "estimate_cost",
            "Estimate the cost",
            "What generating from a prompt or an image would cost in credits, whether an identical "
            "result is already in the artist's library (free), and what this session's budget has left. "
            "Sends nothing.",
            generate.ESTIMATE_ARGUMENTS,
            results.ESTIMATE_SCHEMA,
            generate.estimate_cost,
            _READS,
        ),
        Tool(
            "generate_from_text",
            "Generate a mesh from text",
            "Start making a 3D mesh from a text prompt in the artist's open Blender scene. Answers at "
            "once with a job id (follow it with get_job). Costs credits from this session's budget; an "
            "identical request already in the library is offered for reuse first.",
            generate.TEXT_ARGUMENTS,
            results.GENERATE_SCHEMA,
            generate.generate_from_text,
            _SPENDS,
        ),
        Tool(
            "generate_from_image",
            "Generate a mesh from an image",
            "Start making a 3D mesh from one concept image (base64 data, an https address, or a file in "
            "a folder the artist allowed). Answers at once with a job id (follow it with get_job). "
            "Costs credits (each service's own price: ask estimate_cost) from this session's budget; an "
            "identical request already in the library is offered for reuse first.",
            generate.IMAGE_ARGUMENTS,
            results.GENERATE_SCHEMA,
            generate.generate_from_image,
            _SPENDS,
        ),
        Tool(
            "get_job",
            "Follow a job",
            "A job's state and progress; once it is in the scene, the objects' names, triangles and the "
            "quality verdict with its reasons. With wait_seconds (up to 25) it waits for the job to "
            "settle, sending progress notifications; call it again to keep waiting.",
            job_tools.GET_ARGUMENTS,
            results.JOB_RESULT_SCHEMA,
            job_tools.get_job,
            _READS,
        ),
        Tool(
            "list_jobs",
            "List jobs",
            "The jobs agents asked for, newest first (at most 50), optionally only those in one state.",
            job_tools.LIST_ARGUMENTS,
            results.LIST_SCHEMA,
            job_tools.list_jobs,
            _READS,
        ),
        Tool(
            "cancel_job",
            "Cancel a job",
            "Stop a job. Credits of a job the service already started are not given back.",
            job_tools.JOB_ARGUMENTS,
            results.JOB_RESULT_SCHEMA,
            job_tools.cancel_job,
            {**_CHANGES, "destructiveHint": True},
        ),
        Tool(
            "import_job",
            "Import a job's mesh",
            "Bring a ready job's mesh into the artist's open scene (when it did not arrive by itself); "
            "answers at once, get_job follows the import.",
            job_tools.JOB_ARGUMENTS,
            results.JOB_RESULT_SCHEMA,
            job_tools.import_job,
            _CHANGES,
        ),
        Tool(
            "get_preview",
            "Show a job's preview",
            "The picture of a job's result that the service made, as an image.",
            job_tools.JOB_ARGUMENTS,
            results.PREVIEW_SCHEMA,
            job_tools.get_preview,
            _READS,
        ),
    )
}


def listing() -> list[dict[str, Any]]:
    return [tool.listing() for tool in TOOLS.values()]


def call_tool(name: object, arguments: object, call: Call) -> dict[str, Any]:
    """The result of ``tools/call``; RpcError (invalid params) for a tool that does not exist."""
    tool = TOOLS.get(name) if isinstance(name, str) else None
    if tool is None:
        shown = ascii(name[:64]) if isinstance(name, str) else "?"
        raise RpcError(INVALID_PARAMS, words.UNKNOWN_TOOL.format(name=shown))
    try:
        result = tool.run(call, tool.arguments.check(tool.name, arguments))
    except KilnError as exc:
        log.info("Tool %s refused for %s: %s", tool.name, call.session.agent, exc.user_message)
        result = refused(exc.user_message)
    except Exception:
        log.exception("Tool %s failed for %s", tool.name, call.session.agent)
        result = refused(words.INTERNAL)
    return result.to_json()
