"""The parts of the frozen spec that scoring reads: the compiled experiment's own models.

``ScoringSpec`` holds the compiled ``MetricSpec``, ``GateSpec`` and ``BootstrapSpec``
(runtime/spec_model/), the one reading of the files, plus the ids and codes scoring lays its tables
out by. ``applies_to`` is resolved and the gate's coherence checked by the compiler
(``compiler/checks_metrics_gates.py``), never again here. What this code does not implement (another
bootstrap method or gate rule) is refused here (``from_compiled``), before any number is computed.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from runtime.core.errors import SchemaRouterError
from runtime.core.frozen_model import FrozenModel
from runtime.spec_model.compiled import CompiledSpec
from runtime.spec_model.experiment import BootstrapSpec
from runtime.spec_model.gates import GateSpec
from runtime.spec_model.metrics import MetricSpec


class ScoringSpec(FrozenModel):
    """Everything scoring needs from the frozen spec."""

    experiment_id: str = Field(description="Experiment ID.")
    catalog_sizes: tuple[int, ...] = Field(description="Preregistered catalog sizes, ascending.")
    conditions: tuple[str, ...] = Field(description="Condition IDs in spec order.")
    condition_codes: tuple[str, ...] = Field(description="Condition codes (C1..) aligned with conditions.")
    strata: tuple[str, ...] = Field(description="Stratum IDs in spec order.")
    stratum_codes: tuple[str, ...] = Field(description="Stratum codes (S1..) aligned with strata.")
    languages: tuple[str, ...] = Field(description="Language codes in spec order.")
    tasks_per_cell: int = Field(description="Tasks per stratum x language cell in the frozen surface.")
    metrics: tuple[MetricSpec, ...] = Field(description="Metrics in spec order.")
    gate: GateSpec = Field(description="The gate.")
    bootstrap: BootstrapSpec = Field(description="The bootstrap.")
    peeks_before_freeze: tuple[str, ...] = Field(
        default=(),
        description="Run ids of the experiment's runs on the evaluation surface while it was a draft "
        "(spec/peeks.yaml): evaluation outcomes seen before freeze.",
    )
    pilots_before_freeze: tuple[tuple[str, int], ...] = Field(
        default=(),
        description="Runs per surface recorded in spec/pilots.yaml while the experiment was a draft.",
    )

    def metric(self, metric_id: str) -> MetricSpec:
        """The metric with this id; KeyError if there is none."""
        for metric in self.metrics:
            if metric.id == metric_id:
                return metric
        raise KeyError(metric_id)

    @classmethod
    def from_compiled(cls, compiled: CompiledSpec) -> ScoringSpec:
        """From a CompiledSpec: its typed experiment, conditions, strata, metrics and gate, the models
        the compiler built from the validated files (the same reading every other area uses)."""
        experiment, gate = compiled.experiment, compiled.gate
        _check_bootstrap(experiment.bootstrap, where=f"experiment {experiment.id}")
        if gate.rule != "all_criteria_all_catalogs":
            raise SchemaRouterError(f"gates.yaml rule {gate.rule!r} is not implemented")
        peeks = (compiled.raw.get("peeks") or {}).get("evaluation_outcomes_seen_before_freeze") or ()
        return ScoringSpec(
            peeks_before_freeze=tuple(str(p["run_id"]) for p in peeks),
            pilots_before_freeze=_pilot_counts(compiled.raw.get("pilots")),
            experiment_id=experiment.id,
            catalog_sizes=tuple(sorted(experiment.catalog_sizes)),
            conditions=tuple(c.id for c in compiled.conditions),
            condition_codes=tuple(c.code for c in compiled.conditions),
            strata=tuple(s.id for s in compiled.strata),
            stratum_codes=tuple(s.code for s in compiled.strata),
            languages=tuple(lang.code for lang in experiment.languages),
            tasks_per_cell=compiled.tasks_per_cell,
            metrics=compiled.metrics,
            gate=gate,
            bootstrap=experiment.bootstrap,
        )


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


def _check_bootstrap(boot: BootstrapSpec, *, where: str) -> None:
    for key, value in IMPLEMENTED_BOOTSTRAP.items():
        if getattr(boot, key) != value:
            raise SchemaRouterError(
                f"{where} bootstrap.{key} is {getattr(boot, key)!r}; implemented: {value!r}"
            )
    if boot.strata != IMPLEMENTED_STRATA:
        raise SchemaRouterError(f"{where} bootstrap.strata must be {list(IMPLEMENTED_STRATA)}")


def _pilot_counts(data: Any) -> tuple[tuple[str, int], ...]:
    """Runs per surface of a compiled spec/pilots.yaml (a run recorded twice counts once)."""
    entries = (data or {}).get("pilots") or () if isinstance(data, dict) else ()
    runs = {(str(e.get("surface")), str(e.get("run_id"))) for e in entries if isinstance(e, dict)}
    counts: dict[str, int] = {}
    for surface, _ in sorted(runs):
        counts[surface] = counts.get(surface, 0) + 1
    return tuple(sorted(counts.items()))
