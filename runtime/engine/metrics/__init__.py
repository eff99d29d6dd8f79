"""Per-episode metric values, computed from the trace and the task alone (definitions: the experiment's
metrics.yaml). One registered function per metric (``registry.metric``); ``episode_metrics`` runs the
ones the experiment names.

Ratio metrics also carry their components, so the bootstrap can form ratios of sums:
``recall_hits`` / ``recall_decision_points``, ``recovered`` / ``initial_miss``,
``integrity_consistent_attempts`` / ``integrity_attempts``. Metrics that do not apply to a condition
(Recall@5 and recovery for FULL and ORACLE) are None.
"""

from __future__ import annotations

from runtime.engine.metrics.registry import (
    EpisodeView,
    MetricValues,
    RegisteredMetric,
    episode_metrics,
    executed_calls_from_turns,
    executed_calls_of,
    metric,
    metric_values,
    metrics_named,
    registered_metrics,
)

__all__ = [
    "EpisodeView",
    "MetricValues",
    "RegisteredMetric",
    "episode_metrics",
    "executed_calls_from_turns",
    "executed_calls_of",
    "metric",
    "metric_values",
    "metrics_named",
    "registered_metrics",
]
