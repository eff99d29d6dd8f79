"""The built-in exposure policy kinds, one module each; each registers itself where it is defined.

``load_all`` imports 0.14's five first (in the order of its frozen conditions schema), then every other
public module by name (``schemarouter.discovery``): adding a kind is adding its module, no list to edit.
"""

from __future__ import annotations

from schemarouter.discovery import import_modules


def load_all() -> None:
    """Import every kind module of this package once (registration is the import's effect)."""
    import_modules(__name__)
