"""The seam between runs and the episode engine.

A run needs three things from an engine: load the heavy resources once per worker process, look up a
task by ID, and run one episode. :class:`EpisodeEngine` names them; :class:`EngineAdapter` implements
them over ``runtime.engine`` (imported lazily, inside the worker). Tests substitute a
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
from typing import TYPE_CHECKING, Protocol, SupportsFloat, SupportsInt

from runtime.core.json_value import JSONValue
from runtime.run.trace_blob import pack_trace, unpack_trace

if TYPE_CHECKING:
    from runtime.engine.trace import EpisodeTrace
    from runtime.retrieval.key_free import KeyFreeMatches
    from runtime.run.store import EpisodeOutcome
    from runtime.spec_model import CompiledSpec

WALL_LATENCY_METRIC = "wall_latency_ms"


@dataclass(frozen=True)
class EngineSetup:
    """What a worker needs to build its engine resources. Paths come resolved by the application layer:
    the runtime knows no project layout."""

    project_root: Path
    compiled: CompiledSpec | None  # None only for test engines that compile nothing
    catalog_sizes: tuple[int, ...]
    agent: str
    agent_options: tuple[tuple[str, JSONValue], ...] = ()
    catalogs_dir: Path | None = None  # the experiment's catalogs (the real engine needs it)
    surface_file: str | None = None  # a pilot's surface file; None: the evaluation surface
    cache_dir: Path | None = None  # where retrieval strategies cache derived document data (build/)

    def text_option(self, name: str) -> str | None:
        """An agent option that names a file or a server (text); None when it is not given."""
        value = dict(self.agent_options).get(name)
        return None if value is None else str(value)

    def require(self) -> tuple[CompiledSpec, Path]:
        """The compiled spec and catalogs directory the real engine loads from."""
        if self.compiled is None or self.catalogs_dir is None:
            raise ValueError("EngineSetup for the real engine needs compiled and catalogs_dir")
        return self.compiled, self.catalogs_dir


class SurfaceTaskLike(Protocol):
    """A task as the run layer sees it (the engine's Task, or a test's stand-in)."""

    @property
    def task_id(self) -> str: ...


class EpisodeResult(Protocol):
    """What an engine returns for one episode: the versioned trace record and its metrics."""

    @property
    def metrics(self) -> Mapping[str, SupportsFloat | None]:
        """Each metric's value: a number (float, int, bool, a numpy scalar) or None."""
        ...

    def model_dump_json(self) -> str: ...


@dataclass(frozen=True)
class LoadedEngine:
    """A worker's engine resources and the surface's tasks by ID."""

    resources: object  # opaque to the run layer: only the engine that loaded it reads it
    tasks: Mapping[str, SurfaceTaskLike]


@dataclass(frozen=True)
class EpisodeRecord:
    """What the run directory stores for one finished episode."""

    metrics: dict[str, float | int | bool | None]
    wall_latency_ms: float | None
    trace_zlib: bytes  # the trace as the store keeps it (runtime/run/trace_blob.py), packed in the worker
    model_calls: dict[str, int] | None = None
    # What the diagnostics would otherwise recompute from the trace, recorded by the worker that ran the
    # episode (what each refresh's key-free text says of its slots: runtime/retrieval/key_free.py). Kept
    # in memory by the session for a scoring in the same process; never stored, never part of the trace.
    key_free: KeyFreeMatches | None = None

    @property
    def trace_json(self) -> str:
        return unpack_trace(self.trace_zlib)


class EpisodeEngine(Protocol):
    """What the executor calls; must be picklable (it travels to worker processes)."""

    def load(self, setup: EngineSetup) -> LoadedEngine: ...

    def run(
        self, loaded: LoadedEngine, task: SurfaceTaskLike, condition_id: str, catalog_size: int
    ) -> EpisodeResult:
        """One episode. A run with ``--epochs N`` > 1 also passes ``epoch=`` (2..N; never 1), which an
        engine that supports repeated trials accepts as a keyword."""
        ...

    def metrics_audit(self, setup: EngineSetup) -> Callable[[EpisodeOutcome], EpisodeTrace | None]:
        """What scoring calls with each stored outcome (trace included): recompute its metrics from the
        trace and raise SchemaRouterError on a mismatch; it may return the trace it read and checked
        (scoring hands it on to the diagnostics, which then do not read it again), or None."""
        ...


class EngineAdapter:
    """The real episode engine (``runtime.engine``) and the frozen surface."""

    def load(self, setup: EngineSetup) -> LoadedEngine:
        from runtime.engine import EngineResources

        compiled, catalogs_dir = setup.require()
        resources = EngineResources.load(
            catalogs_dir=catalogs_dir,
            compiled=compiled,
            catalog_sizes=setup.catalog_sizes,
            agent=setup.agent,
            agent_options=dict(setup.agent_options),
            tokenizer_path=setup.text_option("tokenizer_json"),
            surface_file=Path(setup.surface_file) if setup.surface_file else None,
            cache_dir=setup.cache_dir,
        )
        return LoadedEngine(resources=resources, tasks=resources.tasks)

    def metrics_audit(self, setup: EngineSetup) -> Callable[[EpisodeOutcome], EpisodeTrace | None]:
        from runtime.engine.metrics_audit import MetricsAudit

        compiled, catalogs_dir = setup.require()
        return MetricsAudit.load(
            catalogs_dir=catalogs_dir,
            compiled=compiled,
            catalog_sizes=setup.catalog_sizes,
            surface_file=Path(setup.surface_file) if setup.surface_file else None,
        )

    def run(
        self,
        loaded: LoadedEngine,
        task: SurfaceTaskLike,
        condition_id: str,
        catalog_size: int,
        epoch: int = 1,
    ) -> EpisodeResult:
        from runtime.engine import EngineResources, run_episode
        from runtime.surface.model import Task

        assert isinstance(loaded.resources, EngineResources) and isinstance(task, Task)
        return run_episode(
            resources=loaded.resources,
            task=task,
            condition_id=condition_id,
            catalog_size=catalog_size,
            epoch=epoch,
        )

    def key_free(self, loaded: LoadedEngine, trace: EpisodeResult) -> KeyFreeMatches | None:
        """The key-free answers of the episode's refreshes, from this worker's own index (None: the
        experiment's strategy does not read key names, so the diagnostics ask for none)."""
        from runtime.engine import EngineResources
        from runtime.engine.key_free_notes import key_free_matches
        from runtime.engine.trace import EpisodeTrace

        assert isinstance(loaded.resources, EngineResources) and isinstance(trace, EpisodeTrace)
        return key_free_matches(loaded.resources, trace)


def episode_record(trace: EpisodeResult) -> EpisodeRecord:
    """Split a trace into stored metrics (deterministic), wall latency, and its JSON record."""
    metrics: dict[str, float | int | bool | None] = {}
    for name, value in dict(trace.metrics).items():
        metrics[str(name)] = _plain_number(name, value)
    latency = metrics.pop(WALL_LATENCY_METRIC, None)
    return EpisodeRecord(
        metrics=metrics,
        wall_latency_ms=float(latency) if latency is not None else None,
        trace_zlib=pack_trace(trace.model_dump_json()),
        model_calls=getattr(trace, "model_calls", None),
    )


def _plain_number(name: str, value: SupportsFloat | None) -> float | int | bool | None:
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float) or hasattr(value, "__float__"):
        number = float(value)
        if math.isnan(number) or math.isinf(number):
            raise ValueError(f"metric {name!r} is {number}; metrics must be finite or null")
        if _integer_dtype(value) and isinstance(value, SupportsInt):
            return int(value)  # a numpy integer: exact, not through float
        return number
    raise TypeError(f"metric {name!r} has non-numeric value {value!r}")


def _integer_dtype(value: SupportsFloat) -> bool:
    """A numpy scalar of an (unsigned) integer dtype."""
    return hasattr(value, "dtype") and getattr(value.dtype, "kind", "") in "iu"
