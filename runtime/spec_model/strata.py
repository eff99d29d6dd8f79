"""The compiled form of spec/strata.yaml."""

from __future__ import annotations

from pydantic import Field

from runtime.core.frozen_model import FrozenModel


class StratumGeneration(FrozenModel):
    """Parameters the surface generator needs for a stratum."""

    plan_steps: int = Field(description="Routes in the task's gold plan.")
    error_classes: tuple[str, ...] | None = Field(
        default=None, description="Typed errors the task's world raises (recoverable failure)."
    )
    dimensions: tuple[str, ...] | None = Field(
        default=None, description="Unit dimensions a conversion may cross (typed unit transition)."
    )


class StratumSpec(FrozenModel):
    """One multi-step/state stratum."""

    id: str = Field(description="Stratum id, e.g. two_step_state.")
    code: str = Field(description="Stable code S1..S5; never reused.")
    title: str = Field(description="The seed's wording.")
    description: str = Field(description="What tasks of the stratum require.")
    generation: StratumGeneration = Field(description="Generation parameters.")
