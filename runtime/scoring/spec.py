"""The parts of the frozen spec that scoring reads, as small frozen models.

Built from the compiled experiment's typed models (``from_compiled``), the one reading of the files:
``applies_to`` is resolved and the gate's coherence checked by the compiler
(``compiler/checks_metrics_gates.py``), never again here. What this code does not implement (another
bootstrap method or gate rule) is refused here, before any number is computed.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from runtime.core.errors import SchemaRouterError
from runtime.spec_model.vocabulary import (
    Aggregate,
    Compare,
    Operator,
    Statistic,
)


class MetricDef(BaseModel):
    """One metric of spec/metrics.yaml."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(description="Metric ID.")
    title: str = Field(description="Human title.")
    unit: str = Field(description="Unit of the metric.")
    aggregate: Aggregate = Field(description="mean of per-task values, ratio of sums, or count (sum).")
    numerator: str | None = Field(default=None, description="Ratio metrics: numerator component key.")
    denominator: str | None = Field(default=None, description="Ratio metrics: denominator component key.")
    applies_to: tuple[str, ...] = Field(
        description="Condition IDs the metric applies to (resolved from 'all')."
    )
    deterministic: bool = Field(default=True, description="False for wall latency: kept out of golden files.")
    better: str = Field(description="higher or lower.")

    def components(self) -> tuple[str, ...]:
        """The per-task columns the bootstrap sums: (numerator, denominator) or the metric itself."""
        if self.aggregate == "ratio":
            assert self.numerator is not None and self.denominator is not None
            return (self.numerator, self.denominator)
        return (self.id,)


class CriterionDef(BaseModel):
    """One gate criterion of spec/gates.yaml."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    code: str = Field(description="Stable criterion code (G1..G6).")
    title: str = Field(description="The seed's wording.")
    metric: str = Field(description="Metric ID.")
    compare: Compare = Field(description="difference (treatment - comparator), treatment, or all_conditions.")
    statistic: Statistic = Field(description="Which statistic is compared with the threshold.")
    operator: Operator = Field(description="Comparison operator.")
    threshold: float = Field(description="Threshold.")


class GateDef(BaseModel):
    """The preregistered gate."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    treatment: str = Field(description="Treatment condition ID.")
    comparator: str = Field(description="Comparator condition ID.")
    criteria: tuple[CriterionDef, ...] = Field(description="Criteria, in spec order.")


class BootstrapDef(BaseModel):
    """The bootstrap of spec/experiment.yaml."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    iterations: int = Field(gt=0, description="Number of resamples.")
    seed: int = Field(description="Seed of numpy.random.Generator(PCG64(seed)).")
    confidence: Decimal = Field(description="Interval confidence, e.g. 0.95 (kept exact).")

    def percentiles(self) -> tuple[float, float]:
        """(2.5, 97.5) for 0.95, computed exactly so the interpolation points carry no float noise."""
        tail = (Decimal(1) - self.confidence) / 2 * 100
        return float(tail), float(Decimal(100) - tail)


class ScoringSpec(BaseModel):
    """Everything scoring needs from the frozen spec."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    experiment_id: str = Field(description="Experiment ID.")
    catalog_sizes: tuple[int, ...] = Field(description="Preregistered catalog sizes, ascending.")
    conditions: tuple[str, ...] = Field(description="Condition IDs in spec order.")
    condition_codes: tuple[str, ...] = Field(description="Condition codes (C1..) aligned with conditions.")
    strata: tuple[str, ...] = Field(description="Stratum IDs in spec order.")
    stratum_codes: tuple[str, ...] = Field(description="Stratum codes (S1..) aligned with strata.")
    languages: tuple[str, ...] = Field(description="Language codes in spec order.")
    tasks_per_cell: int = Field(description="Tasks per stratum x language cell in the frozen surface.")
    metrics: tuple[MetricDef, ...] = Field(description="Metrics in spec order.")
    gate: GateDef = Field(description="The gate.")
    bootstrap: BootstrapDef = Field(description="The bootstrap.")
    peeks_before_freeze: tuple[str, ...] = Field(
        default=(),
        description="Run ids of the experiment's runs on the evaluation surface while it was a draft "
        "(spec/peeks.yaml): evaluation outcomes seen before freeze.",
    )
    pilots_before_freeze: tuple[tuple[str, int], ...] = Field(
        default=(),
        description="Runs per surface recorded in spec/pilots.yaml while the experiment was a draft.",
    )

    def metric(self, metric_id: str) -> MetricDef:
        for metric in self.metrics:
            if metric.id == metric_id:
                return metric
        raise KeyError(metric_id)

    @classmethod
    def from_compiled(cls, compiled: Any) -> ScoringSpec:
        """From a CompiledSpec: its typed experiment, conditions, strata, metrics and gate, the models
        the compiler built from the validated files (the same reading every other area uses)."""
        experiment, gate = compiled.experiment, compiled.gate
        boot = experiment.bootstrap
        _check_bootstrap(boot.model_dump(), where=f"experiment {experiment.id}")
        if gate.rule != "all_criteria_all_catalogs":
            raise SchemaRouterError(f"gates.yaml rule {gate.rule!r} is not implemented")
        peeks = (compiled.raw.get("peeks") or {}).get("evaluation_outcomes_seen_before_freeze") or ()
        spec = ScoringSpec(
            peeks_before_freeze=tuple(str(p["run_id"]) for p in peeks),
            pilots_before_freeze=_pilot_counts(compiled.raw.get("pilots")),
            experiment_id=str(experiment.id),
            catalog_sizes=tuple(sorted(experiment.catalog_sizes)),
            conditions=tuple(c.id for c in compiled.conditions),
            condition_codes=tuple(c.code for c in compiled.conditions),
            strata=tuple(s.id for s in compiled.strata),
            stratum_codes=tuple(s.code for s in compiled.strata),
            languages=tuple(lang.code for lang in experiment.languages),
            tasks_per_cell=int(compiled.tasks_per_cell),
            metrics=tuple(
                MetricDef(**{k: getattr(m, k) for k in MetricDef.model_fields}) for m in compiled.metrics
            ),
            gate=GateDef(
                treatment=gate.treatment,
                comparator=gate.comparator,
                criteria=tuple(
                    CriterionDef(**{k: getattr(c, k) for k in CriterionDef.model_fields})
                    for c in gate.criteria
                ),
            ),
            bootstrap=BootstrapDef(
                iterations=boot.iterations, seed=boot.seed, confidence=Decimal(str(boot.confidence))
            ),
        )
        return spec


# What the bootstrap code implements (runtime/scoring/bootstrap.py): a spec asking for anything else is
# refused before any number is computed. These are capabilities of this code, not a protocol's values.
IMPLEMENTED_BOOTSTRAP = {
    "method": "stratified_task_cluster",
    "cluster": "task",
    "interval": "percentile",
    "rng": "numpy.random.Generator(PCG64)",
    "paired": True,
}
IMPLEMENTED_STRATA = ("stratum", "language")


def _check_bootstrap(boot: Mapping[str, Any], *, where: str) -> None:
    for key, value in IMPLEMENTED_BOOTSTRAP.items():
        if boot.get(key) != value:
            raise SchemaRouterError(f"{where} bootstrap.{key} is {boot.get(key)!r}; implemented: {value!r}")
    if tuple(boot["strata"]) != IMPLEMENTED_STRATA:
        raise SchemaRouterError(f"{where} bootstrap.strata must be {list(IMPLEMENTED_STRATA)}")


def _pilot_counts(data: Any) -> tuple[tuple[str, int], ...]:
    """Runs per surface of a compiled spec/pilots.yaml (a run recorded twice counts once)."""
    entries = (data or {}).get("pilots") or () if isinstance(data, dict) else ()
    runs = {(str(e.get("surface")), str(e.get("run_id"))) for e in entries if isinstance(e, dict)}
    counts: dict[str, int] = {}
    for surface, _ in sorted(runs):
        counts[surface] = counts.get(surface, 0) + 1
    return tuple(sorted(counts.items()))
