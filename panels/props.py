"""What the Sidebar remembers: the Generate panel's inputs per scene, and the job list's rows.

The Generate inputs live on the scene (``Scene.kiln``) so a .blend reopens with its prompt; the
API key is never among them. The job rows live on the window manager, which is not saved:
they only mirror the engine's job ids so a UIList can draw them.
"""

from __future__ import annotations

import bpy
from bpy.props import CollectionProperty, EnumProperty, IntProperty, PointerProperty, StringProperty

from ..options import declare


class KilnGenerateSettings(bpy.types.PropertyGroup):
    """The Generate panel's inputs for this scene."""

    mode: EnumProperty(  # type: ignore[valid-type]
        name="Source",
        items=(
            ("TEXT", "Text", "Describe the object in words", "FONT_DATA", 0),
            ("IMAGE", "Image", "Start from one concept image", "IMAGE_DATA", 1),
        ),
        default="TEXT",
    )
    prompt: StringProperty(  # type: ignore[valid-type]
        name="Prompt", description="What to make, in plain words, e.g. 'a weathered oak chair'"
    )
    prompt_text: PointerProperty(  # type: ignore[valid-type]
        type=bpy.types.Text,
        name="Long Prompt",
        description="Use the whole text of this Text block as the prompt (write it in the Text Editor)",
    )
    text_resolution: declare("resolution")  # type: ignore[valid-type]
    provider: StringProperty(  # type: ignore[valid-type]
        name="Image Model Provider",
        description="Provider of the model that draws the reference views; empty lets the service choose "
        "(the service does not publish the allowed values)",
    )
    quality: StringProperty(  # type: ignore[valid-type]
        name="Image Model Quality",
        description="Quality of the reference views; empty lets the service choose "
        "(the service does not publish the allowed values)",
    )
    image_source: EnumProperty(  # type: ignore[valid-type]
        name="Image From",
        items=(
            ("FILE", "File", "An image file on this computer", "FILE_IMAGE", 0),
            ("BLENDER", "Blender", "Any image in this .blend, Render Result included", "IMAGE_DATA", 1),
            ("URL", "URL", "A public HTTPS address of an image", "URL", 2),
        ),
        default="FILE",
    )
    image_path: StringProperty(  # type: ignore[valid-type]
        name="Image File", description="PNG, JPEG or WebP file to send", subtype="FILE_PATH"
    )
    image: PointerProperty(  # type: ignore[valid-type]
        type=bpy.types.Image, name="Image", description="Image in this .blend to send (saved as PNG first)"
    )
    image_url: StringProperty(  # type: ignore[valid-type]
        name="Image URL", description="Public HTTPS address of the image; the service fetches it"
    )
    image_resolution: declare("image_resolution")  # type: ignore[valid-type]
    webhook_url: StringProperty(  # type: ignore[valid-type]
        name="Webhook URL",
        description="HTTPS address the service notifies when the mesh is done (optional)",
    )


class KilnJobItem(bpy.types.PropertyGroup):
    """One row of the job list: just the engine's job id (and its label as ``name`` for the search box)."""

    job_id: StringProperty()  # type: ignore[valid-type]


JOB_FILTERS = (
    ("ALL", "All", "Every job"),
    ("ACTIVE", "Active", "Jobs being sent, generated or downloaded"),
    ("DONE", "Done", "Jobs with a mesh: ready or in the scene"),
    ("FAILED", "Failed", "Failed, cancelled, timed out, or of unknown outcome"),
)

classes = (KilnGenerateSettings, KilnJobItem)


def effective_prompt(settings: KilnGenerateSettings) -> str:
    """The prompt that will be sent: the Text block's whole text when one is chosen, else the line."""
    if settings.prompt_text is not None:
        return str(settings.prompt_text.as_string()).strip()
    return str(settings.prompt).strip()


def scene_settings(context: bpy.types.Context) -> KilnGenerateSettings:
    """This scene's Generate inputs."""
    settings = context.scene.kiln
    assert isinstance(settings, KilnGenerateSettings)
    return settings


def register() -> None:
    """Attach the properties (classes are registered by the package first)."""
    bpy.types.Scene.kiln = PointerProperty(type=KilnGenerateSettings)  # type: ignore[attr-defined, func-returns-value]
    wm = bpy.types.WindowManager
    wm.kiln_jobs = CollectionProperty(type=KilnJobItem)  # type: ignore[attr-defined, func-returns-value]
    wm.kiln_job_index = IntProperty(name="Active Job", default=0)  # type: ignore[attr-defined, func-returns-value]
    wm.kiln_job_filter = EnumProperty(name="Show", items=JOB_FILTERS, default="ALL")  # type: ignore[attr-defined, func-returns-value]


def unregister() -> None:
    for owner, name in (
        (bpy.types.WindowManager, "kiln_job_filter"),
        (bpy.types.WindowManager, "kiln_job_index"),
        (bpy.types.WindowManager, "kiln_jobs"),
        (bpy.types.Scene, "kiln"),
    ):
        delattr(owner, name)
