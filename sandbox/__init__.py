"""Kiln sandbox: a local, dev-only stand-in of the 3D generation service (never shipped).

Run it with `python -m sandbox`, or in-process with `sandbox.server.Sandbox`; see README.md.
"""
