"""Discovery for the registries: import every module of a package once, so that the implementations
that register themselves where they are defined (``@metric``, ``@register_agent``, ``@statistic``) are
all known, with no central list of modules to edit.

Order is part of determinism: ``first`` modules are imported first, then the rest by name.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable

_DONE: set[str] = set()


def import_modules(package: str, *, first: Iterable[str] = (), skip: Iterable[str] = ()) -> None:
    """Import the modules of ``package`` (dotted name): ``first`` in the order given, then every other
    module by name; ``skip`` and private (``_``) modules are left out. Once per package and process."""
    if package in _DONE:
        return
    module = importlib.import_module(package)
    first, skipped = tuple(first), set(skip)
    for name in first:
        importlib.import_module(f"{package}.{name}")
    for info in sorted(pkgutil.iter_modules(module.__path__), key=lambda m: m.name):
        if info.name not in skipped and info.name not in first and not info.name.startswith("_"):
            importlib.import_module(f"{package}.{info.name}")
    _DONE.add(package)
