"""The base of every compiled spec model: frozen, strict about unknown keys."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class FrozenModel(BaseModel):
    """Immutable once built; an unknown key is an error, never silently dropped."""

    model_config = ConfigDict(frozen=True, extra="forbid")
