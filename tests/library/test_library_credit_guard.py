"""The credit guard in real Blender against the sandbox: a batch over its limit sends nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from concepts import CONCEPTS


def _image_batch(tmp_path: Path, count: int) -> Path:
    csv = tmp_path / "images.csv"
    image = CONCEPTS / "chair.png"
    csv.write_text("image,resolution\n" + "".join(f"{image},1536\n" for _ in range(count)))
    return csv


def test_a_batch_over_max_credits_is_refused_with_a_sentence_and_nothing_is_sent(
    service: Any, blender: Any, tmp_path: Path
) -> None:
    with pytest.raises(RuntimeError, match=r"20 credits, more than the 10 credits allowed"):
        blender.ops.kiln.generate_batch(filepath=str(_image_batch(tmp_path, 5)), max_credits=10)
    assert service.requests == []
    assert not any("kiln_task_id" in o for o in blender.data.objects)


def test_a_batch_within_max_credits_is_sent(service: Any, blender: Any, tmp_path: Path) -> None:
    result = blender.ops.kiln.generate_batch(filepath=str(_image_batch(tmp_path, 2)), max_credits=8)
    assert result == {"FINISHED"}
    assert service.submit_count == 2
