"""What is checked before anyone trusts it: a downloaded GLB's structure (``glb``, with the glTF
document's rules in ``gltf_checks``), what the artist typed or picked (``inputs``), and prompt files
from any system (``text_files``); a concept image before it is sent (``image_preflight``, its subject
found by ``subject``, its pixels read by ``decoding``), and how well a mesh matches that image
(``fidelity``, from the silhouettes ``mesh_views`` draws). Imports only the bottom of ``api/``.
"""
