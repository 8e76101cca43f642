"""What the Sidebar draws: the generate panel and the job list."""

from __future__ import annotations

from ..registration import classes_factory
from . import generate, jobs

classes = (*generate.classes, *jobs.classes)
_register_classes, _unregister_classes = classes_factory(classes)


def register() -> None:
    _register_classes()
    jobs.register()


def unregister() -> None:
    jobs.unregister()
    _unregister_classes()
