"""Third-party code shipped inside Kiln, unchanged, each package with its own LICENSE.

``truststore`` 0.10.5 (MIT, https://github.com/sethmlarson/truststore): HTTPS verified against the
operating system's trust store (used by :mod:`api.http.trust`). It lives here rather than as a
wheel in the manifest because Blender unpacks an extension's wheels into one shared folder
(``extensions/.local``) without guarding against another Blender doing the same at that moment:
two Blenders enabling Kiln for the first time together could fail with ``FileExistsError``.
Code inside the package is just imported, by every Blender at once. Update by replacing the
folder with the package from the new wheel and keeping its LICENSE.
"""
