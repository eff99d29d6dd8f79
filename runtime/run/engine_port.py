"""The seam between runs and the episode engine.

A run needs three things from an engine: load the heavy resources once per worker process, look up a
task by ID, and run one episode. :class:`EpisodeEngine` names them; :class:`EngineAdapter` implements
them over ``schemarouter.runtime.engine`` (imported lazily, inside the worker). Tests substitute a
deterministic fake with the same shape.

What an episode returns must have ``model_dump_json()`` (the versioned trace record) and ``metrics``
(per-episode values keyed by metric ID from spec/metrics.yaml, plus ratio components). Any exception
raised while loading or running is an infrastructure event, never a result.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from schemarouter.project import ProjectPaths

WALL_LATENCY_METRIC = "wall_latency_ms"


@dataclass(frozen=True)
class EngineSetup:
    """What a worker needs to build its engine resources."""

    project_root: Path
    compiled: Any
    catalog_sizes: tuple[int, ...]
    agent: str
    agent_options: tuple[tuple[str, Any], ...] = ()
    experiment: str | None = None  # None: a flat project (spec/, catalogs/ hold the one experiment)
    surface_file: str | None = None  # a pilot's surface file; None: the evaluation surface

    @property
    def paths(self) -> ProjectPaths:
        return ProjectPaths(self.project_root, self.experiment)


@dataclass(frozen=True)
class LoadedEngine:
    """A worker's engine resources and the surface's tasks by ID."""

    resources: Any
    tasks: Mapping[str, Any]


@dataclass(frozen=True)
class EpisodeRecord:
    """What the run directory stores for one finished episode."""

    metrics: dict[str, float | int | bool | None]
    wall_latency_ms: float | None
    trace_json: str
    model_calls: dict[str, int] | None = None


class EpisodeEngine(Protocol):
    """What the executor calls; must be picklable (it travels to worker processes)."""

    def load(self, setup: EngineSetup) -> LoadedEngine: ...

    def run(self, loaded: LoadedEngine, task: Any, condition_id: str, catalog_size: int) -> Any:
        """One episode. A run with ``--epochs N`` > 1 also passes ``epoch=`` (2..N; never 1), which an
        engine that supports repeated trials accepts as a keyword."""
        ...

    def metrics_audit(self, setup: EngineSetup) -> Callable[[Any], None]:
        """What scoring calls with each stored outcome (trace included): recompute its metrics from the
        trace and raise SchemaRouterError on a mismatch."""
        ...


class EngineAdapter:
    """The real episode engine (``schemarouter.runtime.engine``) and the frozen surface."""

    def load(self, setup: EngineSetup) -> LoadedEngine:
        from schemarouter.runtime.engine import EngineResources

        resources = EngineResources.load(
            paths=setup.paths,
            compiled=setup.compiled,
            catalog_sizes=setup.catalog_sizes,
            agent=setup.agent,
            agent_options=dict(setup.agent_options),
            tokenizer_path=dict(setup.agent_options).get("tokenizer_json"),
            surface_file=Path(setup.surface_file) if setup.surface_file else None,
        )
        return LoadedEngine(resources=resources, tasks=resources.tasks)

    def metrics_audit(self, setup: EngineSetup) -> Callable[[Any], None]:
        from schemarouter.runtime.engine.audit import MetricsAudit

        return MetricsAudit.load(
            catalogs_dir=setup.paths.catalogs_dir,
            compiled=setup.compiled,
            catalog_sizes=setup.catalog_sizes,
            surface_file=Path(setup.surface_file) if setup.surface_file else None,
        )

    def run(
        self, loaded: LoadedEngine, task: Any, condition_id: str, catalog_size: int, epoch: int = 1
    ) -> Any:
        from schemarouter.runtime.engine import run_episode

        return run_episode(
            resources=loaded.resources,
            task=task,
            condition_id=condition_id,
            catalog_size=catalog_size,
            epoch=epoch,
        )


def episode_record(trace: Any) -> EpisodeRecord:
    """Split a trace into stored metrics (deterministic), wall latency, and its JSON record."""
    metrics: dict[str, float | int | bool | None] = {}
    for name, value in dict(trace.metrics).items():
        metrics[str(name)] = _plain_number(name, value)
    latency = metrics.pop(WALL_LATENCY_METRIC, None)
    return EpisodeRecord(
        metrics=metrics,
        wall_latency_ms=float(latency) if latency is not None else None,
        trace_json=trace.model_dump_json(),
        model_calls=getattr(trace, "model_calls", None),
    )


def _plain_number(name: str, value: Any) -> float | int | bool | None:
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float) or hasattr(value, "__float__"):
        number = float(value)
        if math.isnan(number) or math.isinf(number):
            raise ValueError(f"metric {name!r} is {number}; metrics must be finite or null")
        if hasattr(value, "dtype") and getattr(value.dtype, "kind", "") in "iu":
            return int(value)
        return number
    raise TypeError(f"metric {name!r} has non-numeric value {value!r}")
