"""``Report``: the typed reading of ``report.json`` (version 2), the model behind ``report.schema.json``.

Scoring writes report.json as plain data (``report_json.build_report``, whose bytes are pinned by the
golden files); this model is how a Python caller reads it (``schemarouter.load_run(dir).report``). It
follows the schema field by field, forbids what the schema forbids, and keeps the free-form parts (the
diagnostics' tables, the epochs block) as data. ``Report.model_validate(data).data() == data`` for
every report (``tests/test_library.py``).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field

from runtime.core.frozen_model import FrozenModel
from runtime.core.json_value import JSONObject


class Interval(FrozenModel):
    """A point estimate with its bootstrap interval (null when undefined)."""

    point: float | None = Field(description="The point estimate.")
    ci_low: float | None = Field(description="Lower percentile of the bootstrap distribution.")
    ci_high: float | None = Field(description="Upper percentile of the bootstrap distribution.")
    undefined_resamples: int = Field(ge=0, description="Resamples where the statistic was undefined.")


class Criterion(FrozenModel):
    """One gate criterion at one catalog size."""

    code: str = Field(description="Stable criterion code (G1...).")
    title: str = Field(description="What it tests.")
    metric: str = Field(description="The metric id it reads.")
    compare: Literal["difference", "treatment", "all_conditions"] = Field(description="What is compared.")
    statistic: Literal["point", "ci_low", "ci_high", "exact_count", "exact_ratio"] = Field(
        description="The statistic tested against the threshold."
    )
    operator: Literal[">=", ">", "<=", "<", "=="] = Field(description="The comparison.")
    threshold: float = Field(description="The preregistered threshold.")
    point: float | None = Field(description="The point estimate.")
    ci_low: float | None = Field(description="Interval low.")
    ci_high: float | None = Field(description="Interval high.")
    value: float | None = Field(description="The statistic's value (null: undefined).")
    passed: bool | None = Field(description="Whether the criterion holds (null: not evaluable).")
    note: str | None = Field(description="Why a value is undefined, or other remarks.")


class CatalogGate(FrozenModel):
    passed: bool = Field(description="Every criterion passed at this catalog size.")
    criteria: tuple[Criterion, ...] = Field(description="The criteria in spec order.")


class Gate(FrozenModel):
    verdict: Literal["PASS", "FAIL", "NOT_EVALUABLE"] = Field(description="The gate verdict.")
    rule: Literal["all_criteria_all_catalogs"] = Field(description="How criteria combine.")
    preregistered_scope: bool = Field(description="True when the run covers the preregistered scope.")
    treatment: str = Field(description="The treatment condition.")
    comparator: str = Field(description="The comparator condition.")
    by_catalog: dict[str, CatalogGate] = Field(description="By catalog size (a string key).")


class Differences(FrozenModel):
    treatment: str = Field(description="The treatment condition.")
    comparator: str = Field(description="The comparator condition.")
    by_catalog: dict[str, dict[str, Interval]] = Field(
        description="[catalog][metric]: paired treatment - comparator."
    )


class TasksPerCell(FrozenModel):
    min: int = Field(description="Fewest tasks in a stratum x language cell.")
    max: int = Field(description="Most tasks in a cell.")


class Scope(FrozenModel):
    conditions: tuple[str, ...] = Field(description="Condition IDs in spec order.")
    catalogs: tuple[int, ...] = Field(description="Catalog sizes, ascending.")
    tasks: int = Field(description="Number of tasks.")
    cells: int = Field(description="Non-empty stratum x language cells.")
    episodes: int = Field(description="tasks x conditions x catalogs.")
    preregistered: bool = Field(description="True for the whole preregistered experiment.")
    tasks_per_cell: TasksPerCell | None = Field(default=None, description="Smallest and largest cell.")


class Bootstrap(FrozenModel):
    """How every interval was computed (open: the schema allows more keys)."""

    model_config = ConfigDict(extra="allow")

    method: Literal["stratified_task_cluster"] = Field(description="The resampling scheme.")
    iterations: int = Field(description="Resamples.")
    seed: int = Field(description="The named seed.")
    rng: str = Field(description="The generator.")
    confidence: float = Field(description="Interval confidence.")
    percentiles: tuple[float, float] = Field(description="The two percentiles.")
    percentile_method: Literal["linear"] = Field(description="Percentile interpolation.")
    paired: Literal[True] = Field(description="Paired resamples across conditions.")
    significant_digits: int = Field(description="Digits every number is rounded to.")
    cells: str | None = Field(default=None, description="What the strata of the resampling are.")
    undefined_ratios: str | None = Field(default=None, description="How an undefined ratio is treated.")


class MetricDefinition(FrozenModel):
    id: str = Field(description="Metric id.")
    title: str = Field(description="Its title.")
    aggregate: Literal["mean", "ratio", "count"] = Field(description="How it aggregates.")
    numerator: str | None = Field(description="A ratio's numerator component.")
    denominator: str | None = Field(description="A ratio's denominator component.")
    better: str = Field(description="Which direction is better.")


class Pilot(FrozenModel):
    mark: Literal["PILOT"] = Field(description="The mark.")
    note: str = Field(description="What a pilot is.")
    surface: str = Field(description="The named surface, or file.")
    surface_sha256: str = Field(description="sha256 of the surface file.")
    draft: bool = Field(description="True when the experiment was a draft.")
    full_scope: bool | None = Field(default=None, description="The full scope on another surface.")


class Nondeterministic(FrozenModel):
    model_config = ConfigDict(extra="allow")

    excluded_metrics: tuple[str, ...] = Field(description="Metrics left out of report.json.")
    files: tuple[str, ...] = Field(description="The files that hold them.")


class Report(FrozenModel):
    """report.json, version 2."""

    report_version: Literal[2] = Field(description="Version of the file's schema.")
    pilot: Pilot | None = Field(default=None, description="Present only on a pilot's report.")
    agent_warnings: tuple[str, ...] | None = Field(default=None, description="What the model did not see.")
    epochs: dict[str, Any] | None = Field(default=None, description="Repeated trials only.")
    evaluation_outcomes_seen_before_freeze: tuple[str, ...] | None = Field(
        default=None, description="Run ids of a draft's evaluation runs."
    )
    pilots_before_freeze: dict[str, int] | None = Field(default=None, description="Draft runs per surface.")
    experiment_id: str = Field(description="The experiment.")
    freeze_root_hash: str | None = Field(description="The freeze root the episodes ran under.")
    source_commit: str | None = Field(description="Git commit of the run directories.")
    agent: str = Field(description="Agent name.")
    scope: Scope = Field(description="What was run.")
    bootstrap: Bootstrap = Field(description="How every interval was computed.")
    metrics: dict[str, dict[str, dict[str, Interval]]] = Field(description="[condition][catalog][metric].")
    differences: Differences = Field(description="Paired treatment - comparator.")
    gate: Gate = Field(description="The gate.")
    metric_definitions: tuple[MetricDefinition, ...] = Field(description="Every deterministic metric.")
    diagnostics: dict[str, Any] | None = Field(description="From the stored traces (runtime/diagnostics).")
    nondeterministic: Nondeterministic = Field(description="What report.json leaves out.")

    @property
    def verdict(self) -> str:
        return self.gate.verdict

    def data(self) -> JSONObject:
        """The report as report.json's data (optional fields absent when they were)."""
        return self.model_dump(mode="json", exclude_unset=True)
