"""What runs inside the helper Blender: a downloaded GLB imported, finished and saved as a .blend.

Every mesh from the network is opened by a helper Blender (``api.isolation`` starts and limits it),
never by the artist's own. This room is the code that runs there, with bpy, started through its one
entry point:

* ``main`` — the entry point: puts the add-on on the path and starts the request loop.
* ``request_loop`` — the request loop: GLB in, .blend out, one JSON line a request.
* ``review_picture`` — a result's picture for a batch's review sheet.

What is done to a fresh result (report, fix-ups, outputs, the library asset) is ``finishing``, which
the artist's Blender also runs where no helper can. No module of the artist's Blender imports this
room: ``api.isolation`` starts it by its entry point's path.
"""
