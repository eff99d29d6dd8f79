"""``per_task.jsonl``: one row per task x condition x catalog, the bootstrap's whole input.

Row keys: ``task_id``, ``condition``, ``catalog``, ``stratum``, ``language``; one key per deterministic
metric ID holding the task's value; and, for ratio metrics, their numerator and denominator components
(``recall_hits``, ``recall_decision_points``, ...). A metric that does not apply to the row's condition
is ``null`` (and so are its components). The per-task value of a ratio metric is numerator /
denominator, ``null`` when the denominator is 0; the bootstrap never averages these, it sums components.

Wall latency is not deterministic, so it lives in ``per_task_latency.jsonl`` (same keys plus
``wall_latency_ms``), which keeps this file byte-identical across runs.
Rows are ordered by catalog, condition (spec order), task_id. A run with ``--epochs N`` > 1 has one row
per trial, with an ``epoch`` key (1..N) after ``catalog``, ordered by epoch within a task; a one-epoch
run's rows have no such key.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from runtime.core.errors import SchemaRouterError
from runtime.run.scope import RunScope
from runtime.run.store import EpisodeOutcome
from runtime.scoring.spec import ScoringSpec
from runtime.spec_model.metrics import MetricSpec

PER_TASK_FILE = "per_task.jsonl"
LATENCY_FILE = "per_task_latency.jsonl"
KEY_FIELDS = ("task_id", "condition", "catalog", "stratum", "language")

Row = dict[str, Any]


def per_task_rows(outcomes: Sequence[EpisodeOutcome], scope: RunScope, spec: ScoringSpec) -> list[Row]:
    """Validated per-task rows in canonical order. Refuses an episode that lacks an applicable metric."""
    tasks = scope.task_index()
    metrics = [m for m in spec.metrics if m.deterministic]
    rows, problems = [], []
    for outcome in outcomes:
        key = outcome.key
        task = tasks[key.task_id]
        row: Row = {
            "task_id": key.task_id,
            "condition": key.condition,
            "catalog": key.catalog,
            **({"epoch": key.epoch} if scope.epochs > 1 else {}),
            "stratum": task.stratum,
            "language": task.language,
        }
        for metric in metrics:
            problem = _fill_metric(row, metric, outcome.metrics, key.condition)
            if problem:
                problems.append(f"{key.label()}: {problem}")
        rows.append(row)
    if problems:
        shown = "\n  ".join(problems[:20])
        more = f"\n  ... and {len(problems) - 20} more" if len(problems) > 20 else ""
        raise SchemaRouterError(f"{len(problems)} episode metric problems:\n  {shown}{more}")
    return rows


def latency_rows(outcomes: Sequence[EpisodeOutcome], scope: RunScope) -> list[Row]:
    tasks = scope.task_index()
    return [
        {
            "task_id": o.key.task_id,
            "condition": o.key.condition,
            "catalog": o.key.catalog,
            **({"epoch": o.key.epoch} if scope.epochs > 1 else {}),
            "stratum": tasks[o.key.task_id].stratum,
            "language": tasks[o.key.task_id].language,
            "wall_latency_ms": o.wall_latency_ms,
        }
        for o in outcomes
    ]


def _fill_metric(row: Row, metric: MetricSpec, values: dict[str, Any], condition: str) -> str | None:
    applies = condition in metric.applies_to
    if metric.aggregate != "ratio":
        if not applies:
            row[metric.id] = None
            return None
        value = _plain(values.get(metric.id))
        if not _is_number(value):
            return f"{metric.id} is {value!r}; it applies to {condition} and must be a finite number"
        row[metric.id] = value
        return None
    numerator, denominator = metric.components()
    if not applies:
        row[metric.id] = row[numerator] = row[denominator] = None
        return None
    num, den = _plain(values.get(numerator)), _plain(values.get(denominator))
    if not (_is_number(num) and _is_number(den)):
        return f"{metric.id} needs numeric {numerator} and {denominator}, got {num!r} and {den!r}"
    if den < 0 or num < 0 or num > den:
        return f"{metric.id}: {numerator}={num} and {denominator}={den} are not 0 <= numerator <= denominator"
    row[numerator], row[denominator] = num, den
    row[metric.id] = num / den if den else None
    return None


def _plain(value: Any) -> Any:
    """A boolean per-episode value (task_pass as True/False) counts as 1/0."""
    return int(value) if isinstance(value, bool) else value


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
