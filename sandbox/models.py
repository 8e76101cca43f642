"""Pydantic models mirroring the tables of the service interface (and so the OpenAPI at /docs)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, Field, field_validator

RESOLUTIONS = (1024, 1536)
TEXT_DEFAULT_RESOLUTION = 1024
IMAGE_DEFAULT_RESOLUTION = 1536


def _check_resolution(value: int) -> int:
    if value not in RESOLUTIONS:
        raise ValueError(f"resolution must be one of {', '.join(map(str, RESOLUTIONS))}")
    return value


Resolution = Annotated[int, AfterValidator(_check_resolution)]


class ImageModel(BaseModel):
    """Reference-view image model option of text-to-3d; the sandbox accepts any strings."""

    provider: str
    quality: str


class TextTo3DRequest(BaseModel):
    prompt: str = Field(description="Text description of the object.")
    image_model: ImageModel | None = None
    resolution: Resolution = Field(
        TEXT_DEFAULT_RESOLUTION, description="1024 or 1536 in the sandbox (default 1024)."
    )

    @field_validator("prompt")
    @classmethod
    def _prompt_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("prompt must not be empty")
        return value


class ImageTo3DFields(BaseModel):
    """The non-file fields of image-to-3d, from a JSON body or from multipart form fields."""

    image_url: str | None = None
    resolution: Resolution = Field(IMAGE_DEFAULT_RESOLUTION, description="1024 or 1536 (default 1536).")
    webhook_url: str | None = None


class Links(BaseModel):
    poll: str = Field(description="Absolute URL of the poll endpoint for this task.")


class SubmitResponse(BaseModel):
    id: str
    status: Literal["queued"] = "queued"
    resolution: int
    links: Links


class ImageSubmitResponse(SubmitResponse):
    created_at: str = Field(description="ISO 8601 UTC timestamp, e.g. 2026-11-22T06:40:00Z.")
    eta_seconds: int


class Result(BaseModel):
    mesh_url: str
    preview_image_url: str
    format: Literal["glb"] = "glb"
    triangles: int


class TaskResponse(BaseModel):
    id: str
    status: Literal["queued", "running", "completed", "failed"]
    progress: int
    result: Result | None = None
    error: Any = None


class ErrorDetail(BaseModel):
    code: str
    message: str


class ErrorBody(BaseModel):
    error: ErrorDetail
