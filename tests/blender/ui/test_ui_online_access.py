"""Every operator that reaches the service is greyed out while online access is off, through one check."""

from __future__ import annotations

from typing import Any

NETWORKED = {
    "generate_from_text",
    "generate_from_image",
    "generate_from_views",
    "retexture_selected",
    "generate_batch",
    "generate_from_selection",
    "test_connection",
    "retry_job",
    "resume_job",
    "resume_task",
    "wait_jobs",
}


def test_networked_operators_share_one_online_check(offline: Any, kiln_module: Any) -> None:
    online_operator = kiln_module("session.setup").OnlineOperator
    kiln_classes = [getattr(offline.types, n) for n in dir(offline.types) if n.startswith("KILN_OT_")]
    sharing = {c.bl_idname.removeprefix("kiln.") for c in kiln_classes if issubclass(c, online_operator)}
    assert sharing == NETWORKED
    for name in sorted(NETWORKED):
        assert not getattr(offline.ops.kiln, name).poll(), name
    assert offline.ops.kiln.cancel_job.poll(), "work that sends nothing stays available offline"
    offline.context.preferences.system.use_online_access = True
    for name in sorted(NETWORKED):
        assert getattr(offline.ops.kiln, name).poll(), name
