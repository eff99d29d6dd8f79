"""The parts of the frozen spec that scoring reads, as small frozen models.

Built from the compiled experiment's typed models (``from_compiled``; ``from_raw`` builds the same from
parsed files, for tests and fakes).
Anything the scoring code does not implement (another bootstrap method, an unknown operator) is refused
here, before any number is computed.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from schemarouter.errors import SchemaRouterError
from schemarouter.runtime.spec_model.vocabulary import (
    EXACT_STATISTICS,
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
        _check_gate(spec)
        return spec

    @classmethod
    def from_raw(cls, raw: Mapping[str, Any]) -> ScoringSpec:
        """Build from the parsed YAML of experiment, conditions, strata, metrics and gates."""
        try:
            return _from_raw(raw)
        except (KeyError, TypeError, ValidationError) as err:
            raise SchemaRouterError(f"the spec cannot be scored: {err}") from None


def _from_raw(raw: Mapping[str, Any]) -> ScoringSpec:
    experiment, conditions_doc = raw["experiment"], raw["conditions"]
    strata_doc, metrics_doc, gates_doc = raw["strata"], raw["metrics"], raw["gates"]
    boot = experiment["bootstrap"]
    _check_bootstrap(boot, where="spec/experiment.yaml")
    condition_ids = tuple(c["id"] for c in conditions_doc["conditions"])
    if gates_doc.get("rule") != "all_criteria_all_catalogs":
        raise SchemaRouterError(f"spec/gates.yaml rule {gates_doc.get('rule')!r} is not implemented")
    metrics = []
    for m in metrics_doc["metrics"]:
        applies = m.get("applies_to", "all")
        metrics.append(
            MetricDef(
                id=m["id"],
                title=m["title"],
                unit=m["unit"],
                aggregate=m["aggregate"],
                numerator=m.get("numerator"),
                denominator=m.get("denominator"),
                applies_to=condition_ids if applies == "all" else tuple(applies),
                deterministic=m.get("deterministic", True),
                better=m["better"],
            )
        )
    criteria = tuple(
        CriterionDef(**{k: c[k] for k in CriterionDef.model_fields}) for c in gates_doc["criteria"]
    )
    spec = ScoringSpec(
        experiment_id=str(experiment["id"]),
        catalog_sizes=tuple(sorted(experiment["catalog_sizes"])),
        conditions=condition_ids,
        condition_codes=tuple(c["code"] for c in conditions_doc["conditions"]),
        strata=tuple(s["id"] for s in strata_doc["strata"]),
        stratum_codes=tuple(s["code"] for s in strata_doc["strata"]),
        languages=tuple(lang["code"] for lang in experiment["languages"]),
        tasks_per_cell=int(strata_doc["tasks_per_cell"]),
        metrics=tuple(metrics),
        gate=GateDef(treatment=gates_doc["treatment"], comparator=gates_doc["comparator"], criteria=criteria),
        bootstrap=BootstrapDef(
            iterations=boot["iterations"], seed=boot["seed"], confidence=Decimal(str(boot["confidence"]))
        ),
    )
    _check_gate(spec)
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


def _check_gate(spec: ScoringSpec) -> None:
    """Refuse a gate this code cannot evaluate as written."""
    gate = spec.gate
    for condition in (gate.treatment, gate.comparator):
        if condition not in spec.conditions:
            raise SchemaRouterError(f"spec/gates.yaml: unknown condition {condition!r}")
    for c in gate.criteria:
        metric = {m.id: m for m in spec.metrics}.get(c.metric)
        if metric is None:
            raise SchemaRouterError(f"spec/gates.yaml {c.code}: unknown metric {c.metric!r}")
        need = {
            "difference": (gate.treatment, gate.comparator),
            "treatment": (gate.treatment,),
            "all_conditions": (),
        }[c.compare]
        if any(cond not in metric.applies_to for cond in need):
            raise SchemaRouterError(f"spec/gates.yaml {c.code}: {c.metric} does not apply to {need}")
        exact = EXACT_STATISTICS
        if (c.compare == "all_conditions") != (c.statistic in exact):
            raise SchemaRouterError(
                f"spec/gates.yaml {c.code}: all_conditions goes with exact_count/exact_ratio only"
            )
        if c.statistic in exact and metric.aggregate != exact[c.statistic]:
            raise SchemaRouterError(
                f"spec/gates.yaml {c.code}: {c.statistic} needs a {exact[c.statistic]} metric, "
                f"{c.metric} is {metric.aggregate}"
            )
