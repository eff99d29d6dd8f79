"""The built-in retrieval strategies, one module each; each registers itself where it is defined.

``load_all`` imports every module of this package in name order, so adding a strategy is adding its
module (and its test and spec entry): no list to edit.
"""

from __future__ import annotations

import importlib
import pkgutil

_LOADED = False


def load_all() -> None:
    """Import every strategy module of this package once (registration is the import's effect)."""
    global _LOADED
    if _LOADED:
        return
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if not info.name.startswith("_"):
            importlib.import_module(f"{__name__}.{info.name}")
    _LOADED = True
