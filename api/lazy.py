"""Names a package offers but loads on first use (a module ``__getattr__``, PEP 562): one way for
every room, so that registering Kiln loads only what registering needs."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_names(package: str, names: Mapping[str, str]) -> Callable[[str], Any]:
    """The ``__getattr__`` of ``package``: each of ``names`` is taken from its module (a name
    relative to the package) when first asked for, then kept on the package."""

    def __getattr__(name: str) -> Any:
        if name not in names:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(names[name], package), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
