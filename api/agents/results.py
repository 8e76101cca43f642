"""What a tool answers: structured content that meets the tool's output schema, and its text.

Each result carries the structured content (``structuredContent``, checked by clients against the
tool's ``outputSchema``), a sentence an agent can pass on, and the same content as JSON text for
clients that show only text (the MCP specification asks for both). A tool error is a result too
(``isError``), with a sentence and nothing else, so the model can read it and try again.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Any

from ..jobs import JobKind, JobState
from . import words
from .budget import Spending
from .host import JobView


@dataclass(frozen=True)
class Picture:
    data: bytes
    mime_type: str


@dataclass(frozen=True)
class ToolResult:
    text: str
    structured: dict[str, Any] | None = None
    picture: Picture | None = None
    is_error: bool = False

    def to_json(self) -> dict[str, Any]:
        content: list[dict[str, Any]] = [{"type": "text", "text": self.text}]
        if self.picture is not None:
            data = base64.b64encode(self.picture.data).decode("ascii")
            content.append({"type": "image", "data": data, "mimeType": self.picture.mime_type})
        result: dict[str, Any] = {"content": content, "isError": self.is_error}
        if self.structured is not None:
            content.append({"type": "text", "text": json.dumps(self.structured, ensure_ascii=False)})
            result["structuredContent"] = self.structured
        return result


def refused(sentence: str) -> ToolResult:
    return ToolResult(sentence, is_error=True)


# --- output schemas ----------------------------------------------------------------------------
def _nullable(kind: str) -> dict[str, Any]:
    return {"type": [kind, "null"]}


JOB_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "job_id": {"type": "string"},
        "state": {"type": "string", "enum": [state.value for state in JobState]},
        "kind": {"type": "string", "enum": [kind.value for kind in JobKind]},
        "label": {"type": "string"},
        "progress": {"type": "number", "minimum": 0, "maximum": 100},
        "settled": {"type": "boolean", "description": "Nothing more happens to the job without a call."},
        "error": {"type": "string"},
        "cost": _nullable("integer"),
        "objects": {"type": "array", "items": {"type": "string"}},
        "triangles": _nullable("integer"),
        "quality": {
            "type": ["object", "null"],
            "properties": {
                "verdict": {"type": "string"},
                "reasons": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["verdict", "reasons"],
        },
        "has_preview": {"type": "boolean"},
        "provenance": {
            "type": ["object", "null"],
            "description": "Where the result came from, as Kiln writes it into every file it exports.",
            "properties": {
                "digital_source_type": {"type": "string", "description": "IPTC: trainedAlgorithmicMedia."},
                "service": {"type": "string"},
                "service_id": {"type": "string"},
                "request": {"type": "string", "description": "The prompt, or the image's name and SHA-256."},
                "task_id": {"type": "string"},
                "date": {"type": "string"},
                "kiln_version": {"type": "string"},
                "credit": {"type": "string"},
                "done_since": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["digital_source_type", "service", "service_id", "request", "task_id", "date"],
            "additionalProperties": False,
        },
        "image_check": {
            "type": ["object", "null"],
            "description": "An image job's check before sending: findings (codes), said (the sentences), "
            "the subject's box and fill, and whether the image was prepared (cropped, centred, square).",
        },
        "fidelity": {
            "type": ["number", "null"],
            "minimum": 0,
            "maximum": 1,
            "description": "How well the mesh's silhouette matches the image's subject from its best side "
            "(image jobs); null when not measured, never 0 for that.",
        },
    },
    "required": ["job_id", "state", "kind", "label", "progress", "settled", "objects", "has_preview"],
}

BUDGET_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        name: {"type": "integer", "minimum": 0}
        for name in ("credits_spent", "credits_limit", "jobs_spent", "jobs_limit", "unpriced_jobs")
    },
    "required": ["credits_spent", "credits_limit", "jobs_spent", "jobs_limit", "unpriced_jobs"],
}

GENERATE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "status": {
            "type": "string",
            "enum": ["started", "in_library", "reused"],
            "description": "started: a job was sent; in_library: nothing was sent, an identical result "
            "can be reused; reused: the library's copy was placed in the scene (free).",
        },
        "job": JOB_SCHEMA,
        "library": {
            "type": "object",
            "properties": {"label": {"type": "string"}, "date": {"type": "string"}},
            "required": ["label", "date"],
        },
        "objects": {"type": "array", "items": {"type": "string"}},
        "budget": BUDGET_SCHEMA,
    },
    "required": ["status", "budget"],
}

ESTIMATE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "jobs": {"type": "integer", "minimum": 1},
        "credits_per_job": _nullable("integer"),
        "credits_total": _nullable("integer"),
        "in_library": {"type": "boolean", "description": "An identical request is in the library (free)."},
        "fits_budget": {"type": "boolean"},
        "budget": BUDGET_SCHEMA,
    },
    "required": ["jobs", "credits_per_job", "credits_total", "in_library", "fits_budget", "budget"],
}

JOB_RESULT_SCHEMA: dict[str, Any] = {"type": "object", "properties": {"job": JOB_SCHEMA}, "required": ["job"]}

LIST_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "jobs": {"type": "array", "items": JOB_SCHEMA},
        "total": {"type": "integer", "minimum": 0},
    },
    "required": ["jobs", "total"],
}

PREVIEW_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "job_id": {"type": "string"},
        "mime_type": {"type": "string"},
        "bytes": {"type": "integer"},
    },
    "required": ["job_id", "mime_type", "bytes"],
}


# --- structured content ------------------------------------------------------------------------
def job_json(view: JobView) -> dict[str, Any]:
    quality = {"verdict": view.verdict, "reasons": list(view.reasons)} if view.verdict else None
    return {
        "job_id": view.id,
        "state": view.state.value,
        "kind": view.kind.value,
        "label": view.label,
        "progress": min(max(float(view.progress), 0.0), 100.0),
        "settled": view.settled,
        "error": view.error,
        "cost": view.cost,
        "objects": list(view.objects),
        "triangles": view.triangles,
        "quality": quality,
        "has_preview": view.has_preview,
        "provenance": view.provenance,
        "image_check": dict(view.image_check) if view.image_check is not None else None,
        "fidelity": view.fidelity,
    }


def job_sentence(view: JobView) -> str:
    line = words.job_line(
        view.label,
        view.state.value,
        view.progress,
        view.error,
        len(view.objects),
        view.triangles,
        view.verdict,
    )
    return f"Job {view.id}: {line}"


def job_result(view: JobView) -> ToolResult:
    return ToolResult(job_sentence(view), {"job": job_json(view)})


def with_budget(structured: dict[str, Any], spending: Spending) -> dict[str, Any]:
    return {**structured, "budget": spending.to_json()}
