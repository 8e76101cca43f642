"""Kiln sandbox: a local, dev-only stand-in of the 3D generation service (never shipped).

Run it with `python -m sandbox`, or in-process with `sandbox.server.Sandbox`; see README.md.
"""

from .pillow_wheel import on_path

on_path()  # the stand-ins draw and read pictures with the Pillow Kiln's zip carries
