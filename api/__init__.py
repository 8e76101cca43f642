"""Kiln's door to the 3D generation service: HTTP client, models, errors and file checks.

Plain Python over ``requests`` so it runs (and is tested) without Blender: nothing in this
package may import ``bpy``.
"""
