"""The compiled form of spec/metrics.yaml."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from runtime.core.frozen_model import FrozenModel
from runtime.spec_model.vocabulary import Aggregate


class MetricSpec(FrozenModel):
    """One metric, with ``applies_to`` resolved to condition ids."""

    id: str = Field(description="Metric id, e.g. next_tool_recall_at_5.")
    title: str = Field(description="The seed's wording.")
    level: Literal["decision_point", "episode", "task"] = Field(description="The unit of observation.")
    unit: str = Field(description="Unit of the value, e.g. proportion, tokens.")
    aggregate: Aggregate = Field(
        description="mean of per-task values; ratio of sums; count = sum over tasks."
    )
    numerator: str | None = Field(default=None, description="Ratio metrics: the summed numerator.")
    denominator: str | None = Field(default=None, description="Ratio metrics: the summed denominator.")
    better: Literal["higher", "lower"] = Field(description="Which direction is better.")
    applies_to: tuple[str, ...] = Field(
        description="Condition ids the metric is defined for ('all' resolved)."
    )
    deterministic: bool = Field(
        default=True, description="False for wall-clock metrics (kept out of golden)."
    )
    definition: str = Field(description="The exact definition.")

    def components(self) -> tuple[str, ...]:
        """The per-task columns the bootstrap sums: (numerator, denominator) or the metric itself."""
        if self.aggregate == "ratio":
            assert self.numerator is not None and self.denominator is not None
            return (self.numerator, self.denominator)
        return (self.id,)
