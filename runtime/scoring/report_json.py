"""``report.json`` (deterministic) and ``latency.json`` (wall latency, not deterministic).

The schema is ``report.schema.json`` beside this module; README.md documents every field. Changing the
shape of either file means bumping ``REPORT_VERSION`` and the schema's ``const``.
report.json holds nothing that varies between two runs of the same frozen spec and code: no run ID, no
time, no latency. Catalog sizes are JSON object keys, so they are strings ("100").
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from runtime.core.json_value import JSONObject
from runtime.run.scope import RunScope
from runtime.scoring.bootstrap import Interval, TaskLayout
from runtime.scoring.estimates import SIGNIFICANT_DIGITS, Estimates
from runtime.scoring.spec import ScoringSpec
from runtime.scoring.success_gate import GateResult
from runtime.spec_model.metrics import MetricSpec

REPORT_VERSION = 2
REPORT_FILE = "report.json"
LATENCY_REPORT_FILE = "latency.json"


def build_report(
    *,
    spec: ScoringSpec,
    scope: RunScope,
    agent: str,
    freeze_root_hash: str | None,
    source_commit: str | None,
    estimates: Estimates,
    gate: GateResult,
    pilot: JSONObject | None = None,
    layout: TaskLayout | None = None,
    diagnostics: JSONObject | None = None,
    epochs: JSONObject | None = None,
    warnings: list[str] | None = None,
) -> JSONObject:
    optional = _optional_fields(spec, pilot=pilot, warnings=warnings, epochs=epochs)
    return optional | {
        "report_version": REPORT_VERSION,
        "experiment_id": spec.experiment_id,
        "freeze_root_hash": freeze_root_hash,
        "source_commit": source_commit,
        "agent": agent,
        "scope": _scope_block(scope, layout),
        "bootstrap": _bootstrap_block(spec),
        "metrics": {
            condition: {str(catalog): _metric_block(block) for catalog, block in by_catalog.items()}
            for condition, by_catalog in estimates.metrics.items()
        },
        "differences": {
            "treatment": gate.treatment,
            "comparator": gate.comparator,
            "by_catalog": {str(k): _metric_block(block) for k, block in estimates.differences.items()},
        },
        "gate": gate_json(gate, preregistered=scope.preregistered),
        "metric_definitions": [_metric_definition(m) for m in spec.metrics if m.deterministic],
        "diagnostics": diagnostics,
        "nondeterministic": {
            "excluded_metrics": [m.id for m in spec.metrics if not m.deterministic],
            "files": [LATENCY_REPORT_FILE, "per_task_latency.jsonl"],
        },
    }


def _optional_fields(
    spec: ScoringSpec,
    *,
    pilot: JSONObject | None,
    warnings: list[str] | None,
    epochs: JSONObject | None,
) -> JSONObject:
    """The fields present only when they have something to say, in report order."""
    # ``pilot`` is an optional field, present only on a pilot's report.
    optional: JSONObject = {} if pilot is None else {"pilot": pilot}
    if warnings:  # what the model did not see (server template); absent when there is nothing to say
        optional["agent_warnings"] = list(warnings)
    if epochs is not None:  # repeated trials only: a one-epoch report keeps its exact shape
        optional["epochs"] = epochs
    if spec.peeks_before_freeze:
        optional["evaluation_outcomes_seen_before_freeze"] = list(spec.peeks_before_freeze)
    if spec.pilots_before_freeze:
        optional["pilots_before_freeze"] = dict(spec.pilots_before_freeze)
    return optional


def _scope_block(scope: RunScope, layout: TaskLayout | None) -> dict[str, Any]:
    return {
        "conditions": list(scope.conditions),
        "catalogs": list(scope.catalogs),
        "tasks": len(scope.tasks),
        "cells": len({(t.stratum, t.language) for t in scope.tasks}),
        "episodes": len(scope.tasks) * len(scope.conditions) * len(scope.catalogs) * scope.epochs,
        "preregistered": scope.preregistered,
        "tasks_per_cell": _tasks_per_cell(layout, scope),
    }


def _bootstrap_block(spec: ScoringSpec) -> dict[str, Any]:
    low, high = spec.bootstrap.percentiles()
    return {
        "method": "stratified_task_cluster",
        "cells": "stratum x language",
        "iterations": spec.bootstrap.iterations,
        "seed": spec.bootstrap.seed,
        "rng": "numpy.random.Generator(PCG64)",
        "confidence": float(spec.bootstrap.confidence),
        "percentiles": [low, high],
        "percentile_method": "linear",
        "paired": True,
        "significant_digits": SIGNIFICANT_DIGITS,
        "undefined_ratios": "resamples with a zero denominator are left out of the percentiles and "
        "counted in undefined_resamples; an undefined point or interval is null",
    }


def _metric_definition(metric: MetricSpec) -> dict[str, Any]:
    return {
        "id": metric.id,
        "title": metric.title,
        "aggregate": metric.aggregate,
        "numerator": metric.numerator,
        "denominator": metric.denominator,
        "better": metric.better,
    }


def _tasks_per_cell(layout: TaskLayout | None, scope: RunScope) -> dict[str, int]:
    """Smallest and largest number of tasks in a stratum x language cell (one task per cell: every
    resample repeats the sample, so an interval has zero width by construction)."""
    if layout is not None:
        sizes = [end - start for start, end in layout.cell_ranges]
    else:
        per_cell: dict[tuple[str, str], int] = {}
        for t in scope.tasks:
            per_cell[(t.stratum, t.language)] = per_cell.get((t.stratum, t.language), 0) + 1
        sizes = list(per_cell.values())
    return {"min": min(sizes, default=0), "max": max(sizes, default=0)}


def gate_json(gate: GateResult, *, preregistered: bool) -> JSONObject:
    return {
        "verdict": gate.verdict,
        "rule": "all_criteria_all_catalogs",
        "preregistered_scope": preregistered,
        "treatment": gate.treatment,
        "comparator": gate.comparator,
        "by_catalog": {
            str(catalog): {
                "passed": all(r.passed for r in results),
                "criteria": [asdict(r) for r in results],
            }
            for catalog, results in gate.by_catalog.items()
        },
    }


def build_latency_report(estimates: Estimates | None, metric_id: str) -> JSONObject:
    return {
        "report_version": REPORT_VERSION,
        "metric": metric_id,
        "deterministic": False,
        "metrics": None
        if estimates is None
        else {
            condition: {str(k): _interval(block[metric_id]) for k, block in by_catalog.items()}
            for condition, by_catalog in estimates.metrics.items()
        },
    }


def _metric_block(block: dict[str, Interval]) -> dict[str, Any]:
    return {metric: _interval(interval) for metric, interval in block.items()}


def _interval(interval: Interval) -> dict[str, Any]:
    return {
        "point": interval.point,
        "ci_low": interval.ci_low,
        "ci_high": interval.ci_high,
        "undefined_resamples": interval.undefined_resamples,
    }
