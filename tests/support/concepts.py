"""The concept images tests upload: drawn once per run by ``fixtures.concept_images`` into a temp folder.

Every test reads its pictures from here, so a bare clone of the repository is all a run needs.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

from fixtures.concept_images import write_all, write_concept

CONCEPTS = Path(tempfile.mkdtemp(prefix="kiln-concepts-"))
write_all(CONCEPTS)
for _suffix in ("jpg", "webp"):
    write_concept(CONCEPTS, "chair", _suffix)
atexit.register(shutil.rmtree, CONCEPTS, ignore_errors=True)
