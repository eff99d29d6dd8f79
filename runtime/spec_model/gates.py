"""The compiled form of spec/gates.yaml: the preregistered success gate."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from runtime.core.frozen_model import FrozenModel
from runtime.spec_model.vocabulary import Compare, Operator, Statistic


class GateCriterionSpec(FrozenModel):
    """One coded criterion (G1..G6)."""

    code: str = Field(description="Stable code; never reused.")
    title: str = Field(description="The seed's wording.")
    metric: str = Field(description="Metric id.")
    compare: Compare = Field(
        description="difference: paired treatment - comparator; treatment: the treatment alone; "
        "all_conditions: over every episode of every condition."
    )
    statistic: Statistic = Field(description="What the decision compares with the threshold.")
    operator: Operator = Field(description="statistic OPERATOR threshold passes.")
    threshold: float = Field(description="The margin or threshold, e.g. -0.02 for -2 pp.")
    rationale: str = Field(description="Why this is the rigorous reading of the seed.")


class GateSpec(FrozenModel):
    """The gate: every criterion must pass at every catalog size."""

    treatment: str = Field(description="The treatment condition (SR-5-STATE-AWARE).")
    comparator: str = Field(description="The comparator condition (SR-PROGRESSIVE-STATIC).")
    rule: Literal["all_criteria_all_catalogs"] = Field(description="Pass rule.")
    interval: str = Field(description="The interval the estimates use.")
    criteria: tuple[GateCriterionSpec, ...] = Field(description="The coded criteria.")
