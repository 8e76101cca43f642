"""What the Sidebar draws: the generate panel and the job list, plus the properties they keep."""

from __future__ import annotations

from ..registration import classes_factory
from . import generate, jobs, props, thumbnails

classes = (*props.classes, *generate.classes, *jobs.classes)
_register_classes, _unregister_classes = classes_factory(classes)


def register() -> None:
    _register_classes()
    props.register()


def unregister() -> None:
    jobs.unregister()
    thumbnails.free_all()
    props.unregister()
    _unregister_classes()
