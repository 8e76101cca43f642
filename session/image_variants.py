"""Variants of one image, ranked by how well each matches it: the best shown, the others one click away.

Each landing variant (``JobRequest.variant_of`` names its image's variants) renumbers them all by
fidelity (``kiln_fidelity``), 1 the best match, and shows that one; the others are hidden in place
behind the blockout's variant buttons (``kiln.variant_next``, ``variant_previous``, ``variant_keep``),
which find them by the same keys (``session.variants``).
"""

from __future__ import annotations

import bpy

from ..api.checks import fidelity
from ..api.jobs import Job
from . import variants
from .scene_objects import FIDELITY_KEY, custom


def rank_variants(context: bpy.types.Context, job: Job, names: list[str]) -> None:
    """A variant landed: number its image's variants by fidelity (1: the best match) and show the best."""
    shared = job.request.variant_of
    if not shared:
        return
    for name in names:
        obj = bpy.data.objects.get(name)
        if obj is not None:
            obj[variants.PLACEHOLDER_KEY] = shared
            obj[variants.VARIANT_KEY] = 0
    by_job: dict[str, list[bpy.types.Object]] = {}
    for obj in bpy.data.objects:
        if custom(obj, variants.PLACEHOLDER_KEY) == shared:
            by_job.setdefault(str(custom(obj, "kiln_task_id") or obj.name), []).append(obj)
    ranked = sorted(by_job.values(), key=_fidelity_of, reverse=True)
    for number, objects in enumerate(ranked, 1):
        for obj in objects:
            obj[variants.VARIANT_KEY] = number
    variants.show_variant(context, shared, 1)
    best = [obj for obj in ranked[0] if obj.name in context.view_layer.objects] if ranked else []
    roots = [obj for obj in best if obj.parent is None] or best
    if roots:  # the variant buttons follow the active object: the best match is it
        for obj in context.view_layer.objects:
            obj.select_set(obj in best)
        context.view_layer.objects.active = roots[0]


def unlike_its_image(job: Job) -> int | None:
    """The percent alike of an image job's mesh that looks unlike its image (said as it lands); else None.
    Variants are not said one by one: the best of them is shown."""
    if job.fidelity is None or job.fidelity >= fidelity.FAIR or job.request.variant_of:
        return None
    return round(job.fidelity * 100)


def _fidelity_of(objects: list[bpy.types.Object]) -> float:
    found = [float(v) for v in (custom(obj, FIDELITY_KEY) for obj in objects) if isinstance(v, int | float)]
    return max(found) if found else -1.0  # not measured ranks last, never as a match of 0
