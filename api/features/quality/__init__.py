"""Game-ready output without Blender: the quality report, its verdict, the fix-up and export options,
and each engine's names.

Plain Python and numpy. ``finishing/game_ready.py`` (in the helper Blender, or the artist's) reads meshes into
arrays, asks these modules what to report and change, and does the Blender work itself.

* ``report`` — the report of a result: what was measured, built from the measures below.
* ``findings`` — the report as a result carries it: plain data, read back without numpy.
* ``topology`` — holes, flipped faces, loose parts: a mesh's connectivity.
* ``uv`` — UV coverage and overlap.
* ``budget`` — how long the report may take: a time that grows with the triangles, never the UVs.
* ``verdict`` — the report's one-word verdict and its reasons.
* ``options`` — the fix-ups and outputs a job asks for, as text that travels with its request.
* ``naming`` — each engine's names for LODs and collision.
* ``hull`` — a convex hull's size limits and its enclosing scale.
* ``sheet``, ``review`` — a batch's review sheet (a contact sheet PNG) and page (HTML).
"""

#: The custom property every object of a result carries its report in (JSON text): written by
#: whichever Blender finished the result, read by the artist's (here, so reading it loads no numpy).
QUALITY_KEY = "kiln_quality"
