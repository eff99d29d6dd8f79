"""Tests that register parts of their own do it in a scratch copy of the kind's registry, put back when
the test ends."""

from __future__ import annotations

from typing import Any

import pytest

from runtime.core.registry import Registry


def scratch(monkeypatch: pytest.MonkeyPatch, *registries: Registry[Any], empty: bool = False) -> None:
    """Until the test ends, registrations into ``registries`` are undone (``empty``: start with none).
    Each is discovered first, so its built-ins are in the copy."""
    for registry in registries:
        monkeypatch.setattr(registry, "_entries", {} if empty else registry.snapshot())
        if empty:
            registry.load()
