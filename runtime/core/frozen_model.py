"""The base of every frozen pydantic model: immutable once built, strict about unknown keys.

Every layer inherits it (runtime/core is the ground), so the config is spelled once; a model that
needs more (``strict=True``, ``extra="allow"``) adds only that, and pydantic merges it with this.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class FrozenModel(BaseModel):
    """Immutable once built; an unknown key is an error, never silently dropped."""

    model_config = ConfigDict(frozen=True, extra="forbid")
