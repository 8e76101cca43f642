"""What is checked before anyone trusts it: a downloaded GLB's structure (``glb``, with the glTF
document's rules in ``gltf_checks``), what the artist typed or picked (``inputs``), and prompt files
from any system (``text_files``). Imports only the bottom of ``api/``.
"""
