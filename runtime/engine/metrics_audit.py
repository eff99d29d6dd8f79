"""Recompute an episode's stored metrics from its stored trace and its task, for scoring.

A row of ``episodes.sqlite`` holds the metrics the engine computed and the trace it computed them from.
Scoring never trusts the metrics alone: ``MetricsAudit`` recomputes every episode's metrics with
``episode_metrics`` from the stored trace, the frozen task and the catalog, and refuses the first
episode whose stored metrics differ (``task_pass=1`` written into a failed episode's row, say), or
whose trace belongs to another episode. Only the wall latency is taken as stored: it is measured, not
derived.

It returns the trace it read and checked, so that scoring hands the very object on to the diagnostics
(``runtime.scoring.score.DiagnosisInput.traces``): each stored trace is parsed once per scoring.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from runtime.catalog.io import load_catalog
from runtime.catalog.model import Endpoint
from runtime.core.errors import SchemaRouterError
from runtime.engine.metrics import episode_metrics
from runtime.engine.trace import EpisodeTrace, read_trace
from runtime.run.engine_port import WALL_LATENCY_METRIC
from runtime.run.store import EpisodeOutcome
from runtime.spec_model import CompiledSpec
from runtime.state.guard import install_from_compiled
from runtime.surface import load_surface, load_surface_file
from runtime.surface.model import Task


@dataclass(frozen=True)
class _Routes:
    by_route: Mapping[str, Endpoint]


@dataclass(frozen=True)
class MetricsAudit:
    """Recomputes stored metrics from stored traces; call it with each outcome (trace included)."""

    tasks: Mapping[str, Task]
    routes: Mapping[int, _Routes]
    ranks: Mapping[str, bool]
    metric_ids: tuple[str, ...] = ()  # the experiment's metrics.yaml ids, in its order

    @classmethod
    def load(
        cls,
        *,
        catalogs_dir: Path,
        compiled: CompiledSpec,
        catalog_sizes: Iterable[int],
        surface_file: Path | None = None,
    ) -> MetricsAudit:
        install_from_compiled(compiled)  # the audit rebuilds states under this experiment's contract
        tasks = load_surface(catalogs_dir) if surface_file is None else load_surface_file(surface_file)
        return cls(
            tasks={t.task_id: t for t in tasks},
            routes={size: _Routes(load_catalog(catalogs_dir, size).by_route()) for size in catalog_sizes},
            ranks={c.id: c.retrieval_query != "none" for c in compiled.conditions},
            metric_ids=tuple(m.id for m in compiled.metrics),
        )

    def __call__(self, outcome: EpisodeOutcome) -> EpisodeTrace:
        """The outcome's stored trace, read and checked: it belongs to the outcome's episode, and the
        metrics recomputed from it are the stored ones (else SchemaRouterError naming the episode)."""
        key = outcome.key
        where = f"episode {key.label()}"
        if outcome.trace_json is None:
            raise SchemaRouterError(
                f"{where}: no stored trace to check its metrics against; refusing to score"
            )
        try:
            trace = read_trace(outcome.trace_json)
            owner = (trace.task_id, trace.condition, trace.catalog, trace.epoch or 1)
            if owner != (key.task_id, key.condition, key.catalog, key.epoch):
                shown = owner[:3] if owner[3] == 1 else owner  # one epoch: the key as 0.14 names it
                raise ValueError(f"the stored trace belongs to {shown}")
            if (
                key.task_id not in self.tasks
                or key.catalog not in self.routes
                or key.condition not in self.ranks
            ):
                raise ValueError("the task, condition or catalog is not part of the frozen surface")
            recomputed = episode_metrics(
                task=self.tasks[key.task_id],
                trace=trace,
                ranks=self.ranks[key.condition],
                catalog=self.routes[key.catalog],
                wall_ms=outcome.wall_latency_ms or 0.0,
                metric_ids=self.metric_ids,
            )
        except (SchemaRouterError, ValueError, TypeError, KeyError, AttributeError) as err:
            raise SchemaRouterError(
                f"{where}: the stored trace cannot be read ({_reason(err)}); refusing to score"
            ) from None
        recomputed.pop(WALL_LATENCY_METRIC, None)
        stored = dict(outcome.metrics)
        if recomputed != stored:
            differing = sorted(k for k in set(recomputed) | set(stored) if recomputed.get(k) != stored.get(k))
            first = differing[0]
            raise SchemaRouterError(
                f"{where}: stored metrics differ from those recomputed from its stored trace "
                f"({first}: stored {stored.get(first)!r}, recomputed {recomputed.get(first)!r}"
                f"{f'; {len(differing) - 1} more' if len(differing) > 1 else ''}); refusing to score"
            )
        return trace


def _reason(err: Exception) -> str:
    """One line saying why a stored trace cannot be read (a validation error: its first problem)."""
    if isinstance(err, ValidationError):
        first = err.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "the trace"
        more = f"; {err.error_count() - 1} more" if err.error_count() > 1 else ""
        return f"{where}: {first['msg']}{more}"
    return str(err)
