"""A result as a library asset: marked, described, its thumbnail set, written to a .blend of its own.

One way to make the asset, used in two places: the helper Blender (``helper_blender.request_loop``)
writes it while it has the mesh open, off the artist's main thread; ``session.library`` writes it
in the artist's Blender where no helper runs
(background mode, or a helper that cannot start). What describes the asset travels as plain values
(:func:`describe`'s ``about``), made by ``session.library.asset_about``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import bpy

#: The largest thumbnail kept (pixels a side).
PREVIEW_SIZE = 256


def write_asset(objects: Sequence[Any], about: dict[str, Any], path: Path) -> None:
    """The objects as one asset, described by ``about``, alone in a compressed .blend at ``path``;
    the objects are left as they were (a collection made for several is removed again)."""
    asset = asset_of(objects, about["name"])
    try:
        describe(asset, about)
        write(asset, path)
    finally:
        if isinstance(asset, bpy.types.Collection):
            bpy.data.collections.remove(asset)
        else:
            asset.asset_clear()


def asset_of(objects: Sequence[Any], collection_name: str) -> Any:
    """The one object, or a new collection of them all (the caller removes it after writing)."""
    if len(objects) == 1:
        return objects[0]
    collection = bpy.data.collections.new(collection_name)
    for obj in objects:
        collection.objects.link(obj)
    return collection


def describe(asset: Any, about: dict[str, Any]) -> None:
    """Mark ``asset`` and describe it: ``about`` has description, catalog_id, tags, properties, preview."""
    asset.asset_mark()
    data = asset.asset_data
    data.description = about["description"]
    data.catalog_id = about["catalog_id"]
    for tag in about["tags"]:
        data.tags.new(tag, skip_if_exists=True)
    for key, value in about["properties"].items():
        data[key] = value
    set_preview(asset, about["preview"])


def write(asset: Any, path: Path) -> None:
    """The asset alone (with what it uses) in a compressed .blend at ``path``."""
    bpy.data.libraries.write(str(path), {asset}, fake_user=True, compress=True)


def set_preview(asset: Any, preview_path: str) -> None:
    """The service's preview as the asset's thumbnail (pixels written directly: works in background mode).

    Scaled down to at most PREVIEW_SIZE (the Asset Browser shows no larger) and copied as one
    array, so a large preview costs no more than a small one.
    """
    import numpy  # here, not at the top: Kiln must load on a Blender without numpy (see dependencies)

    if not preview_path or not Path(preview_path).is_file():
        return
    image: Any = bpy.data.images.load(preview_path, check_existing=False)
    try:
        width, height = image.size
        if max(width, height) > PREVIEW_SIZE:
            factor = PREVIEW_SIZE / max(width, height)
            image.scale(max(1, round(width * factor)), max(1, round(height * factor)))
            width, height = image.size
        pixels = numpy.empty(width * height * 4, dtype=numpy.float32)
        image.pixels.foreach_get(pixels)
        preview = asset.preview_ensure()
        preview.image_size = (width, height)
        preview.image_pixels_float.foreach_set(pixels)
    finally:
        bpy.data.images.remove(image)
