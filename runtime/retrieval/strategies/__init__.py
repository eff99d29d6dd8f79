"""The built-in retrieval strategies, one module each; each registers itself where it is defined.

``load_all`` imports every public module of this package in name order (``schemarouter.discovery``),
so adding a strategy is adding its module (and its test and spec entry): no list to edit.
"""

from __future__ import annotations

from schemarouter.discovery import import_modules


def load_all() -> None:
    """Import every strategy module of this package once (registration is the import's effect)."""
    import_modules(__name__)
