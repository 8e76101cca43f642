"""What runs inside the helper Blender: a downloaded GLB imported, finished and saved as a .blend.

Every mesh from the network is opened by a helper Blender (``api.isolation`` starts and limits it),
never by the artist's own. This room is the code that runs there, with bpy, started through its one
entry point:

* ``main`` — the entry point: puts the add-on on the path and starts the request loop.
* ``service`` — the request loop: GLB in, .blend out, one JSON line a request.
* ``game_ready`` — what is done to a fresh result: the quality report, fix-ups, triangle budget,
  LODs, collision, engine names, export.
* ``review_picture`` — a result's picture for a batch's review sheet.
* ``library_asset`` — a result as a Kiln library asset.

The artist's Blender runs ``game_ready`` and ``library_asset`` itself only where no helper can
(an in-place import, background mode), so this room imports only ``api`` and Blender.
"""
