"""Game-ready output without Blender: the quality report, its verdict, the fix-up and export options,
and each engine's names.

Plain Python and numpy. The helper Blender (``helper_blender/game_ready.py``) reads meshes into arrays,
asks these modules what to report and change, and does the Blender work itself.
"""
