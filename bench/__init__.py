"""`make bench`: Kiln measured against the naive way (everything on the main thread), side by side."""

from sandbox.pillow_wheel import on_path

on_path()  # the bench draws its pictures with the Pillow Kiln's zip carries
