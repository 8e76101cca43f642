"""The requests the generate operators and the Generate panel build from what the artist chose.

The panel builds the text request while it draws, to look for it in the library ("Already
generated"); the operator builds it to send. Both build it here, so the offer is about exactly the
request Generate sends. The resolution choices live here too, with the one reading of "AUTO".
"""

from __future__ import annotations

from ..api.jobs import JobRequest

#: The resolution choice that lets the service decide (no resolution in the request).
AUTO = "AUTO"
TEXT_RESOLUTIONS = (
    (AUTO, "Service Default", "Let the service choose the mesh resolution"),
    ("1024", "1024", "Fast draft"),
    ("1536", "1536", "Ultra high resolution"),
)
IMAGE_RESOLUTIONS = (
    ("1024", "1024 · fast draft · 2 credits", "Fast draft mesh, 2 credits"),
    ("1536", "1536 · ultra · 4 credits", "Ultra high resolution mesh, 4 credits"),
)


def resolution(choice: str) -> int | None:
    """A resolution choice (an item of TEXT_RESOLUTIONS or IMAGE_RESOLUTIONS) as a request takes it."""
    return None if choice == AUTO else int(choice)


def text_request(prompt: str, resolution_choice: str, provider: str = "", quality: str = "") -> JobRequest:
    """The text job for these fields, spaces around each trimmed (the operator checks the prompt)."""
    return JobRequest(
        kind="text",
        prompt=prompt.strip(),
        resolution=resolution(resolution_choice),
        provider=provider.strip(),
        quality=quality.strip(),
    )
