"""report.json's data as the renderers read it: TypedDicts mirroring ``runtime/scoring/report_model.py``.

Scoring writes report.json as plain data (``runtime.scoring.report_json.build_report``) and hands that
dict on; the renderers here read it by key. These TypedDicts say which keys: one per model of
``report_model.py``, field for field (``tests/test_report_data.py`` keeps them in step: the same keys,
the same required ones). They cost nothing at run time (a TypedDict is a dict); pydantic's ``Report`` is
the checked reading for a library caller. (No ``from __future__ import annotations``: a TypedDict
``NotRequired`` must be evaluated to count.) The free-form parts the model keeps as data (``epochs``,
``diagnostics``) stay data here too.
"""

from collections.abc import Mapping
from typing import Any, Literal, NotRequired, TypedDict, cast


class IntervalData(TypedDict):
    point: float | None
    ci_low: float | None
    ci_high: float | None
    undefined_resamples: int


class CriterionData(TypedDict):
    code: str
    title: str
    metric: str
    compare: Literal["difference", "treatment", "all_conditions"]
    statistic: Literal["point", "ci_low", "ci_high", "exact_count", "exact_ratio"]
    operator: Literal[">=", ">", "<=", "<", "=="]
    threshold: float
    point: float | None
    ci_low: float | None
    ci_high: float | None
    value: float | None
    passed: bool | None
    note: str | None


class CatalogGateData(TypedDict):
    passed: bool
    criteria: list[CriterionData]


class GateData(TypedDict):
    verdict: Literal["PASS", "FAIL", "NOT_EVALUABLE"]
    rule: Literal["all_criteria_all_catalogs"]
    preregistered_scope: bool
    treatment: str
    comparator: str
    by_catalog: dict[str, CatalogGateData]


class DifferencesData(TypedDict):
    treatment: str
    comparator: str
    by_catalog: dict[str, dict[str, IntervalData]]


class TasksPerCellData(TypedDict):
    min: int
    max: int


class ScopeData(TypedDict):
    conditions: list[str]
    catalogs: list[int]
    tasks: int
    cells: int
    episodes: int
    preregistered: bool
    tasks_per_cell: NotRequired[TasksPerCellData | None]


class BootstrapData(TypedDict):
    method: Literal["stratified_task_cluster"]
    iterations: int
    seed: int
    rng: str
    confidence: float
    percentiles: list[float]
    percentile_method: Literal["linear"]
    paired: Literal[True]
    significant_digits: int
    cells: NotRequired[str | None]
    undefined_ratios: NotRequired[str | None]


class MetricDefinitionData(TypedDict):
    id: str
    title: str
    aggregate: Literal["mean", "ratio", "count"]
    numerator: str | None
    denominator: str | None
    better: str


class PilotData(TypedDict):
    mark: Literal["PILOT"]
    note: str
    surface: str
    surface_sha256: str
    draft: bool
    full_scope: NotRequired[bool | None]


class NondeterministicData(TypedDict):
    excluded_metrics: list[str]
    files: list[str]


class ReportData(TypedDict):
    """report.json, version 2 (the ``Report`` model's fields)."""

    report_version: Literal[2]
    pilot: NotRequired[PilotData | None]
    agent_warnings: NotRequired[list[str] | None]
    epochs: NotRequired[dict[str, Any] | None]  # free-form, as in the model
    evaluation_outcomes_seen_before_freeze: NotRequired[list[str] | None]
    pilots_before_freeze: NotRequired[dict[str, int] | None]
    experiment_id: str
    freeze_root_hash: str | None
    source_commit: str | None
    agent: str
    scope: ScopeData
    bootstrap: BootstrapData
    metrics: dict[str, dict[str, dict[str, IntervalData]]]  # [condition][catalog][metric]
    differences: DifferencesData
    gate: GateData
    metric_definitions: list[MetricDefinitionData]
    diagnostics: dict[str, Any] | None  # free-form, as in the model
    nondeterministic: NondeterministicData


def as_report_data(report: Mapping[str, Any]) -> ReportData:
    """``report`` (report.json's data as scoring wrote it, or read back from the file) as the renderers
    read it. Not checked here, as the renderers never checked it: scoring's ``build_report`` writes this
    shape (``tests/test_library.py``: ``Report.model_validate(data).data() == data`` for every report it
    makes; ``tests/test_report_data.py``: these TypedDicts are the model's fields)."""
    return cast(ReportData, report)
