"""All of Kiln that needs no Blender, in rooms. Nothing in this package imports ``bpy``.

The order rule: a room imports only its own modules and the rooms listed above it here (bottom
first), never one below it, and no modules import one another in a circle, deferred imports
included (``tests/python/foundation/test_import_order.py`` holds the same list as data).

* bottom — ``words`` (every sentence an artist reads, and how one is said), ``errors`` (one
  exception family, a sentence each), ``paths`` (which .blend is which),
  ``fs`` (renames and deletes that hold up on Windows), ``version`` (Kiln's own, from its manifest),
  ``lazy`` (names a package offers but loads on first use), ``vendor/`` (third-party code,
  unchanged).
* ``checks/`` — what is checked before anyone trusts it: GLB structure, what the artist typed or
  picked, prompt files from any system.
* ``http/`` — the HTTP every service's client stands on, and what keeps the artist safe on it, written
  once: the plumbing (one exchange, the key only to the API origin, deadlines, capped reading, the
  one retry policy), the wire models, task ids, redaction, trust. It uses the checks because a
  client refuses bad input before anything is sent.
* ``services/`` — the 3D generation services Kiln speaks to, behind one interface: one package per
  service holding every constant of it (the interface document's service, Tripo, Meshy, Rodin), one
  capabilities value each, one registry. Below the job engine, which asks it for clients.
* ``isolation/`` — the helper Blender that opens every mesh from the network.
* ``jobs/`` — the job engine: every job from submit to a checked GLB on disk, off the UI thread.
* ``features/`` — what Kiln offers on top of the engine: batch files, blockout, the library index,
  credits and the ledger, game-ready quality, the cache, the connection check, the key's storage.
  One room rather than loose modules, so that every name directly in ``api/`` is a room or the
  bottom.
* ``agents/`` — the MCP protocol layer for agents: the server on loopback, its gate, the tools and
  each session's budget. The top room: the Blender side gives it a host and drains its calls on
  the main thread.
* ``client``, ``glb`` — contract names kept for outside checks (``api.client.Client``,
  ``api.glb.check_glb``): one-line re-exports; Kiln's own code imports the rooms.
"""
