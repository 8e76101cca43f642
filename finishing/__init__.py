"""What Blender does to a freshly imported result, in whichever Blender imported it.

The helper Blender (``helper_blender``) runs this on every mesh it opens; the artist's Blender runs
it itself only where no helper can (an in-place import, background mode, an export with no helper).
So it lives below both, and imports only ``api`` and Blender:

* ``game_ready`` — the quality report, fix-ups, triangle budget, LODs, collision, engine names,
  export.
* ``library_asset`` — a result as a Kiln library asset.
"""
