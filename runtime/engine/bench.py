"""What an episode costs, in CPU: per episode and per model turn, at any catalog size.

Used by ``sr bench scale`` (the curve over synthetic catalogs of 100 to 50k endpoints) and ``sr bench
anchor`` (our per-turn cost beside inspect_ai's in the same run). Nothing here is asserted: speed is
reported, not tested.

A measured episode is what a run pays for it in the worker: ``run_episode`` plus the trace's JSON (the
record the store keeps). CPU is ``time.process_time`` of this process, so time other processes take
on a shared machine does not count. Every measurement follows one untimed warm-up pass over the same
episodes, as in a long run, where each schema is rendered and counted once.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass

from runtime.catalog.model import Catalog, Endpoint
from runtime.engine.episode import run_episode
from runtime.engine.resources import CatalogResources, EngineResources
from runtime.retrieval.synthetic import scaled_endpoints
from runtime.spec_model.retriever import RetrieverSpec
from runtime.surface.model import Task


@dataclass(frozen=True)
class EpisodeCost:
    """CPU of a set of episodes, run once each after a warm-up pass."""

    episodes: int
    turns: int
    cpu_s: float
    episode_ms_p50: float  # median over episodes of one episode's CPU
    turn_ms_p50: float  # median over episodes of (episode CPU / its model turns)
    trace_kb_p50: float  # median size of one trace's JSON

    @property
    def turn_ms_mean(self) -> float:
        """All CPU over all model turns (the per-turn cost of the whole set)."""
        return 1000.0 * self.cpu_s / self.turns if self.turns else 0.0


@dataclass(frozen=True)
class ScaleRow:
    """One condition at one catalog size."""

    condition: str
    endpoints: int
    build_s: float | None  # wall time to build a synthetic catalog's resources; None: a real, loaded one
    cost: EpisodeCost


EpisodeSpec = tuple[Task, str, int]  # (task, condition, catalog size)


def measure_episodes(
    resources: EngineResources, episodes: Sequence[EpisodeSpec], *, warm_up: bool = True
) -> EpisodeCost:
    """Run ``episodes`` once untimed (unless ``warm_up`` is False), then once timed, one CPU
    measurement per episode."""
    if warm_up:
        for task, condition, size in episodes:
            run_episode(
                resources=resources, task=task, condition_id=condition, catalog_size=size
            ).model_dump_json()
    per_episode: list[float] = []
    per_turn: list[float] = []
    sizes: list[int] = []
    turns = 0
    for task, condition, size in episodes:
        started = time.process_time()
        trace = run_episode(resources=resources, task=task, condition_id=condition, catalog_size=size)
        text = trace.model_dump_json()
        cpu = time.process_time() - started
        per_episode.append(cpu)
        per_turn.append(cpu / max(1, len(trace.turns)))
        sizes.append(len(text))
        turns += len(trace.turns)
    if not per_episode:
        return EpisodeCost(0, 0, 0.0, 0.0, 0.0, 0.0)
    return EpisodeCost(
        episodes=len(per_episode),
        turns=turns,
        cpu_s=sum(per_episode),
        episode_ms_p50=1000.0 * statistics.median(per_episode),
        turn_ms_p50=1000.0 * statistics.median(per_turn),
        trace_kb_p50=statistics.median(sizes) / 1000.0,
    )


def synthetic_catalog(
    resources: EngineResources, real: Sequence[Endpoint], size: int, *, seed: int
) -> CatalogResources:
    """Resources for a synthetic catalog of ``size`` endpoints scaled from ``real`` (bench only)."""
    endpoints = tuple(sorted(scaled_endpoints(real, size, seed=seed), key=lambda e: e.route_id))
    return CatalogResources.build(
        Catalog(size=size, endpoints=endpoints),
        RetrieverSpec.from_compiled(resources.compiled),
        resources.compiled.state_contract,
    )


def scale_rows(
    resources: EngineResources,
    *,
    real: Sequence[Endpoint],
    sizes: Sequence[int],
    conditions: Sequence[str],
    tasks: Sequence[Task],
    seed: int,
) -> list[ScaleRow]:
    """The cost curve: every condition at every size.

    A size the engine already has loaded (a real catalog) is used as it is; any other size is a
    synthetic catalog scaled from ``real``, whose first ``len(real)`` endpoints are ``real`` itself, so
    every task's required routes are in it when ``real`` holds them and the same tasks run at every size.
    """
    rows: list[ScaleRow] = []
    for size in sizes:
        build_s: float | None = None
        if not resources.has_catalog(size):
            started = time.perf_counter()
            resources.add_catalog(size, synthetic_catalog(resources, real, size, seed=seed))
            build_s = time.perf_counter() - started
        for condition in conditions:
            cost = measure_episodes(resources, [(t, condition, size) for t in tasks])
            rows.append(ScaleRow(condition=condition, endpoints=size, build_s=build_s, cost=cost))
    return rows
