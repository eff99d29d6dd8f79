"""Pilot episodes of one experiment under any registered retrieval strategy.

The engine is given the strategy directly (not through the experiment's retriever spec), so every
strategy runs the same conditions, tasks, agent and catalogs. The study that uses it
(``runtime.analysis.study``) runs on a pilot surface only: the application refuses the evaluation
surface before calling it.

From each trace it keeps what the study needs: the episode's outcomes (task pass, initial miss,
recovery) and every decision point (a model turn after a tool turn, task incomplete), with the kind
of transition that led to it (the previous attempt's status: ok, error, blocked), the required next
route (hidden; scoring only), whether the condition's top 5 held it, and the retriever's input at
that point (query and canonical state) so ceilings can be computed by replaying it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from runtime.catalog.io import load_catalog_with_digest
from runtime.core.errors import SchemaRouterError
from runtime.engine.episode import run_episode
from runtime.engine.resources import CatalogResources, EngineResources
from runtime.engine.trace import EpisodeTrace
from runtime.retrieval import (
    RetrievalIndex,
    RetrievalStrategy,
    RetrieverSpec,
    StateAwareRetriever,
    StaticRetriever,
    build_strategy,
)
from runtime.spec_model import CompiledSpec
from runtime.spec_model.agent import AgentSpec
from runtime.spec_model.engine import EngineSpec
from runtime.state.model import ObservableState
from runtime.surface.model import Task
from runtime.surface.plan import next_required_route

# The conditions the study compares, found by their exposure policy (the ids are the spec's data).
RESEARCH_POLICY = "state_refresh"
WIDENING_POLICY = "progressive_widening"


def condition_with_policy(compiled: CompiledSpec, policy: str) -> str:
    """The id of the one condition whose exposure policy is ``policy``."""
    ids = [c.id for c in compiled.conditions if c.policy == policy]
    if len(ids) != 1:
        raise SchemaRouterError(f"the study needs exactly one condition with policy {policy}, found {ids}")
    return ids[0]


@dataclass(frozen=True)
class StrategyChoice:
    """A strategy code with its parameters (``label`` names a variant in tables)."""

    code: str
    params: Mapping[str, Any]
    label: str


@dataclass(frozen=True)
class DecisionPoint:
    """One decision point of one episode."""

    strategy: str
    condition: str
    catalog: int
    task_id: str
    stratum: str
    transition: str  # status of the attempt before it: ok, error, blocked
    needed: str
    hit: bool
    query: str
    state_text: str
    previous_top5: tuple[str, ...]  # what the exposure held before this point's retrieval
    state_beyond_query: bool  # whether the state holds any typed fact (a route, field or identifier)


@dataclass(frozen=True)
class EpisodeOutcome:
    strategy: str
    condition: str
    catalog: int
    task_id: str
    passed: bool
    initial_miss: bool
    recovered: bool


@dataclass
class PilotRun:
    """Every outcome and decision point of one strategy's pilot."""

    choice: StrategyChoice
    outcomes: list[EpisodeOutcome]
    points: list[DecisionPoint]


class StrategyCatalogs:
    """The catalogs of an experiment with one lexical index each, shared by every strategy built."""

    def __init__(
        self, catalogs_dir: Path, cache_dir: Path, spec: RetrieverSpec, sizes: Sequence[int]
    ) -> None:
        """``catalogs_dir``: the experiment's catalogs; ``cache_dir``: where strategies cache vectors."""
        self.cache_dir = cache_dir
        self.spec = spec
        self.catalogs = {size: load_catalog_with_digest(catalogs_dir, size) for size in sizes}
        self.indexes = {size: RetrievalIndex.build(c, spec) for size, (c, _) in self.catalogs.items()}
        self._built: dict[tuple[str, int], RetrievalStrategy] = {}

    def strategy(self, choice: StrategyChoice, size: int) -> RetrievalStrategy:
        key = (choice.label, size)
        built = self._built.get(key)
        if built is None:
            catalog, _ = self.catalogs[size]
            built = self._built[key] = build_strategy(
                choice.code, catalog, index=self.indexes[size], params=choice.params, cache_dir=self.cache_dir
            )
        return built

    def fresh(self, choice: StrategyChoice, size: int) -> RetrievalStrategy:
        """A new instance with nothing memoized or cached: every text is encoded on first use."""
        from runtime.retrieval.strategies import _encoder

        _encoder.clear_text_memo()
        catalog, _ = self.catalogs[size]
        built = build_strategy(
            choice.code, catalog, index=self.indexes[size], params=choice.params, cache_dir=None
        )
        _encoder.clear_text_memo()  # the document vectors stay in the instance, not the memo
        return built


def engine_for(
    compiled: CompiledSpec, catalogs: StrategyCatalogs, choice: StrategyChoice, tasks: Sequence[Task]
) -> EngineResources:
    """Engine resources whose every catalog ranks with ``choice`` (the reference agent)."""
    per_size: dict[int, CatalogResources] = {}
    for size, (catalog, digest) in catalogs.catalogs.items():
        strategy = catalogs.strategy(choice, size)
        per_size[size] = CatalogResources(
            catalog=catalog,
            static_retriever=StaticRetriever(strategy),
            state_aware_retriever=StateAwareRetriever(strategy, compiled.state_contract),
            digest=digest,
        )
    return EngineResources(
        compiled=compiled,
        catalogs=per_size,
        tasks=tasks,
        engine_spec=EngineSpec.from_compiled(compiled),
        agent_spec=AgentSpec.from_compiled(compiled),
        agent="reference",
    )


def run_pilot(
    resources: EngineResources,
    choice: StrategyChoice,
    tasks: Sequence[Task],
    *,
    conditions: Iterable[str],
    sizes: Iterable[int],
) -> PilotRun:
    """Every (condition, size, task) episode under ``choice``; outcomes and decision points."""
    run = PilotRun(choice=choice, outcomes=[], points=[])
    for condition in conditions:
        for size in sizes:
            for task in tasks:
                trace = run_episode(resources=resources, task=task, condition_id=condition, catalog_size=size)
                run.outcomes.append(_outcome(choice.label, condition, size, task, trace))
                run.points.extend(decision_points(choice.label, condition, size, task, trace))
    return run


def _outcome(strategy: str, condition: str, size: int, task: Task, trace: EpisodeTrace) -> EpisodeOutcome:
    m = trace.metrics
    return EpisodeOutcome(
        strategy=strategy,
        condition=condition,
        catalog=size,
        task_id=task.task_id,
        passed=bool(m["task_pass"]),
        initial_miss=bool(m["initial_miss"]),
        recovered=bool(m["recovered"]),
    )


def decision_points(
    strategy: str, condition: str, size: int, task: Task, trace: EpisodeTrace
) -> list[DecisionPoint]:
    """The decision points of one trace, as the metric ``next_tool_recall_at_5`` counts them."""
    from runtime.engine.metrics import executed_calls_from_turns

    executed = executed_calls_from_turns(list(trace.turns))
    out: list[DecisionPoint] = []
    previous = None
    query = task.visible().query
    for turn in trace.turns:
        if turn.after_tool_turn_recall and previous is not None and previous.result is not None:
            so_far = [c for n, c in executed if n < turn.turn]
            needed = next_required_route(task, so_far)
            if needed is not None and previous.state_after is not None:
                state = ObservableState.from_json(json.dumps(previous.state_after))
                out.append(
                    DecisionPoint(
                        strategy=strategy,
                        condition=condition,
                        catalog=size,
                        task_id=task.task_id,
                        stratum=task.visible().stratum,
                        transition=previous.result.status,
                        needed=needed,
                        hit=needed in (turn.ranking_top5 or ()),
                        query=query,
                        state_text=state.canonical_json(),
                        previous_top5=tuple(previous.ranking_top5 or ()),
                        state_beyond_query=any(
                            state.value_of(source)
                            for source in ("result.route_ids", "result.semantic_ids", "result.identifiers")
                        ),
                    )
                )
        previous = turn
    return out
