"""What Kiln offers on top of the job engine, one module per feature.

``batch`` (prompt files in, a summary out), ``blockout`` (what a placeholder asks for, how a result
fits), ``library_folder`` (the library folder on disk, files written whole), ``library_index`` (which
request made which library .blend), ``credits`` and ``ledger``
(what a request costs, what was spent), ``quality/`` (game-ready output), ``cache`` (the download
cache on disk), ``concept_image`` (an image job's image checked and prepared before it is sent),
``connection_check`` (the preferences' test button), ``secrets`` (where the key lives) and
``key_stores`` (each system's secret store), ``service_access`` (where a service's key and address
come from), ``provenance`` (where a result came from, in every file Kiln writes) and ``disclosure``
(a project's AI disclosure report). Any room below may be imported here; nothing below imports a
feature.
"""
