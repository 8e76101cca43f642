"""What can go wrong in the helper Blender, each with a sentence for the job."""

from __future__ import annotations

from ..errors import KilnError

SCENE_SAFE = "Your scene is unharmed."


class IsolationError(KilnError):
    """The helper could not turn this mesh into a .blend; the job fails with ``user_message``.

    ``detail`` is what the helper said (its last output), for the log only.
    """

    def __init__(self, user_message: str, detail: str = "") -> None:
        super().__init__(user_message)
        self.detail = detail


class HelperUnavailable(IsolationError):
    """The helper did not start (no program, or it died before taking a mesh): import in place instead."""


class HelperCrashed(IsolationError):
    """The helper stopped while it read the mesh."""

    def __init__(self, detail: str) -> None:
        super().__init__(
            f"Blender's glTF importer crashed on this mesh (in Kiln's helper Blender). {SCENE_SAFE} "
            "The file may be damaged or hostile: press Retry to generate it again.",
            detail=detail,
        )


class HelperOutOfMemory(IsolationError):
    """The helper went over its memory ceiling."""

    def __init__(self, ceiling: int, detail: str = "") -> None:
        gigabytes = ceiling / 1024**3
        super().__init__(
            f"This mesh needed more than {gigabytes:.1f} GB of memory to import, the limit Kiln sets its "
            f"helper Blender, so Kiln stopped it. {SCENE_SAFE}",
            detail=detail,
        )


class HelperTimedOut(IsolationError):
    """The helper took longer than its time limit on one mesh."""

    def __init__(self, seconds: float) -> None:
        super().__init__(
            f"Importing this mesh took longer than {seconds:.0f} s in Kiln's helper Blender, so Kiln "
            f"stopped it. {SCENE_SAFE} The file may be damaged: press Retry to generate it again."
        )


class MeshRejected(IsolationError):
    """Blender's importer refused the file (a Python error, not a crash)."""

    def __init__(self, detail: str) -> None:
        super().__init__(
            "Blender could not read this mesh (the file is damaged). Press Retry.",
            detail=detail,
        )
