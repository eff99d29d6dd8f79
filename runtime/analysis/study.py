"""The retrieval-strategy study on a pilot surface: every figure the study file and the bench print.

On a pilot surface only (``--surface dev``; the application refuses the evaluation surface), for
every registered strategy with its dev-chosen defaults (and the one-at-a-time ablations of the typed reading):

1. static top-5 recall of the original queries (``rank_query``);
2. full pilot episodes of the state-aware and the progressive-widening condition (found by their
   exposure policies) with the reference agent, each
   condition retrieving with that strategy: Recall@5 at decision points split by the transition that
   led to them (after ok / error / blocked), task pass and initial-miss recovery;
3. per-call retrieval latency on the same calls for every strategy (the 180 original queries; the
   state-aware inputs of text_concat's decision points), beside raw Tantivy with the query prebuilt;
4. ceilings: the bound the protocol sets on Recall@5 (the preflight's: the decision points whose state
   carries nothing beyond the query at the best Recall@5 any registered strategy reaches there, the
   others at 1; ``runtime/scoring/protocol_bounds.py``), the share of those points per strategy, and
   what three protocol choices cap (replace vs add, 5 vs 10 slots, what a blocked attempt makes
   observable), replayed on the same inputs.

The choice rule is fixed before any number is read: the strategy with the highest state-aware
Recall@5 at decision points, pooled over the three catalog sizes; within 0.01 of it, the one with
fewer dependencies, then the faster.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import tantivy

from runtime.analysis.pilot import (
    RESEARCH_POLICY,
    WIDENING_POLICY,
    DecisionPoint,
    PilotRun,
    StrategyCatalogs,
    StrategyChoice,
    condition_with_policy,
    engine_for,
    run_pilot,
)
from runtime.core.progress import Progress, announce, counted
from runtime.retrieval import (
    StateAwareRetriever,
    StaticRetriever,
    get_strategy,
    strategy_codes,
)
from runtime.scoring.protocol_bounds import (
    BarePoints,
    best_at_bare,
    fact_fields,
    nothing_beyond_query,
)
from runtime.spec_model import CompiledSpec
from runtime.state.model import ObservableState
from runtime.surface.model import Task
from runtime.surface.plan import required_routes

SIZES = (100, 250, 500)
TRANSITIONS = ("ok", "error", "blocked")
TIE = 0.01
# Strategies that need the optional `dense` extra (the choice rule prefers fewer dependencies).
NEEDS_EXTRA = frozenset({"dense", "hybrid"})
# The typed reading's parts, each turned off alone (typed_state ablations on dev).
ABLATIONS: tuple[tuple[str, dict[str, str]], ...] = (
    ("no demotion of completed routes", {"demote": "none"}),
    ("demote completed only (not twins)", {"demote": "completed"}),
    ("keep deprecated", {"deprecated": "keep"}),
    ("keep beta", {"beta": "keep"}),
    ("same page after blocked", {"after_blocked": "same"}),
    ("no error handlers", {"error_handlers": "off"}),
    (
        "typed routing only (no reordering)",
        {
            "demote": "none",
            "deprecated": "keep",
            "beta": "keep",
            "after_blocked": "same",
            "error_handlers": "off",
        },
    ),
)


@dataclass(frozen=True)
class Ratio:
    hits: int
    total: int

    @property
    def value(self) -> float | None:
        return self.hits / self.total if self.total else None


@dataclass(frozen=True)
class Timing:
    p50_us: float
    calls: int


@dataclass
class StrategyResult:
    choice: StrategyChoice
    static_recall: dict[int, tuple[Ratio, Ratio]]  # size -> (route recall, task coverage)
    run: PilotRun
    timing: dict[str, Timing] = field(default_factory=dict)  # original / state (warm) / state_cold
    research: str = ""  # the state-aware condition's id
    widening: str = ""  # the progressive-widening condition's id

    def points(self, size: int | None = None, transition: str | None = None) -> list[DecisionPoint]:
        return [
            p
            for p in self.run.points
            if p.condition == self.research
            and (size is None or p.catalog == size)
            and (transition is None or p.transition == transition)
        ]

    def recall(self, size: int | None = None, transition: str | None = None) -> Ratio:
        pts = self.points(size, transition)
        return Ratio(sum(p.hit for p in pts), len(pts))

    def outcome(self, condition: str, size: int | None = None) -> tuple[Ratio, Ratio]:
        """(task pass, initial-miss recovery) of ``condition``."""
        rows = [
            o for o in self.run.outcomes if o.condition == condition and (size is None or o.catalog == size)
        ]
        return (
            Ratio(sum(o.passed for o in rows), len(rows)),
            Ratio(sum(o.recovered for o in rows), sum(o.initial_miss for o in rows)),
        )


@dataclass
class Ceilings:
    protocol: dict[int, BarePoints]  # the protocol's Recall@5 bound per catalog size (all strategies' points)
    bare_share: dict[str, Ratio]  # per strategy: decision points whose state holds nothing beyond the query
    bare_recall: dict[str, Ratio]  # per strategy: Recall@5 there
    added: dict[str, Ratio]  # refresh adds to the exposure (top 5 + previous 5) instead of replacing it
    ten_slots: dict[str, Ratio]  # the same refresh with 10 slots
    blocked_share: dict[str, Ratio]  # decision points after a blocked attempt
    blocked_bare: dict[str, Ratio]  # of those, with nothing beyond the query


@dataclass
class Study:
    experiment: str
    surface: str
    surface_sha256: str
    tasks: int
    results: list[StrategyResult]
    ablations: list[StrategyResult]
    ceilings: Ceilings
    raw: dict[str, Timing]
    chosen: str
    command: str
    sizes: tuple[int, ...] = SIZES
    research: str = ""
    widening: str = ""

    def result(self, label: str) -> StrategyResult:
        return next(r for r in self.results if r.choice.label == label)


def default_choices(codes: Sequence[str] | None = None) -> list[StrategyChoice]:
    """Every registered strategy (or ``codes``) with its parameters' defaults (text_concat first)."""
    chosen = sorted(codes or strategy_codes(), key=lambda c: (c != "text_concat", c))
    return [StrategyChoice(code, {}, code) for code in chosen]


@dataclass(frozen=True)
class StudyInput:
    """What the study runs on, resolved by the caller: the compiled spec, the catalogs, the pilot's tasks
    (already sorted and narrowed) and the pilot surface that names them."""

    compiled: CompiledSpec
    catalogs: StrategyCatalogs
    tasks: Sequence[Task]
    experiment: str
    surface: str
    surface_sha256: str
    command: str
    sizes: tuple[int, ...] = SIZES


def compute_study(
    given: StudyInput,
    *,
    repeats: int = 3,
    ablations: bool = True,
    progress: Progress | None = None,
    codes: Sequence[str] | None = None,
) -> Study:
    """Every figure of the study, in order: each strategy's static recall and pilot episodes, the
    typed_state ablations, the latencies, the ceilings, then the choice rule.

    text_concat is always included: latencies are measured on its decision points' inputs."""
    compiled, tasks, sizes = given.compiled, given.tasks, given.sizes
    roles = (
        condition_with_policy(compiled, RESEARCH_POLICY),
        condition_with_policy(compiled, WIDENING_POLICY),
    )
    choices = default_choices(sorted({"text_concat", *codes}) if codes else None)
    strategies = counted(progress, "strategies (static recall, pilot episodes)", choices, unit="strategies")
    results = [_evaluate(given, choice, roles) for choice in strategies]
    abl = _ablations(given, roles, progress) if ablations else []
    announce(progress, "timing every strategy", 0)
    raw = _time_all(compiled, given.catalogs, results, tasks, repeats, max(sizes))
    announce(progress, "ceilings", 0)
    return Study(
        experiment=given.experiment,
        surface=given.surface,
        surface_sha256=given.surface_sha256,
        tasks=len(tasks),
        results=results,
        ablations=abl,
        ceilings=_ceilings(compiled, given.catalogs, results, sizes),
        raw=raw,
        chosen=choose(results),
        command=given.command,
        sizes=sizes,
        research=roles[0],
        widening=roles[1],
    )


def _ablations(given: StudyInput, roles: tuple[str, str], progress: Progress | None) -> list[StrategyResult]:
    """typed_state with each part of its typed reading off in turn (``ABLATIONS``)."""
    return [
        _evaluate(given, StrategyChoice("typed_state", params, label), roles)
        for label, params in counted(progress, "typed_state ablations", ABLATIONS, unit="ablations")
    ]


def _evaluate(given: StudyInput, choice: StrategyChoice, roles: tuple[str, str]) -> StrategyResult:
    """One strategy: static recall at every size, then its pilot episodes of the two conditions."""
    get_strategy(choice.code)
    static = {size: _static_recall(given, choice, size) for size in given.sizes}
    resources = engine_for(given.compiled, given.catalogs, choice, given.tasks)
    run = run_pilot(resources, choice, given.tasks, conditions=roles, sizes=given.sizes)
    return StrategyResult(choice=choice, static_recall=static, run=run, research=roles[0], widening=roles[1])


def _static_recall(given: StudyInput, choice: StrategyChoice, size: int) -> tuple[Ratio, Ratio]:
    """(route recall, task coverage) of ``rank_query`` top 5 on the original queries at ``size``."""
    strategy = given.catalogs.strategy(choice, size)
    found = needed = covered = 0
    for task in given.tasks:
        required = required_routes(task)
        top = set(strategy.rank_query(task.visible().query, 5).route_ids)
        needed += len(required)
        found += len(required & top)
        covered += required <= top
    return Ratio(found, needed), Ratio(covered, len(given.tasks))


def choose(results: Sequence[StrategyResult]) -> str:
    """The fixed rule: highest pooled state-aware Recall@5; within TIE, fewer extras, then faster."""
    pooled = {r.choice.label: r.recall().value or 0.0 for r in results}
    best = max(pooled.values())
    near = [r for r in results if pooled[r.choice.label] >= best - TIE]
    near.sort(
        key=lambda r: (
            r.choice.code in NEEDS_EXTRA,
            r.timing["state"].p50_us if "state" in r.timing else 0.0,
            r.choice.label,
        )
    )
    return near[0].choice.label


def _median_us(fn: Callable[[int], object], n: int, repeats: int, *, warm: bool = True) -> Timing:
    if warm:
        for i in range(n):
            fn(i)
    samples: list[float] = []
    for _ in range(repeats if warm else 1):
        for i in range(n):
            started = time.perf_counter_ns()
            fn(i)
            samples.append((time.perf_counter_ns() - started) / 1000)
    return Timing(statistics.median(samples) if samples else 0.0, len(samples))


def _time_all(
    compiled: CompiledSpec,
    catalogs: StrategyCatalogs,
    results: list[StrategyResult],
    tasks: Sequence[Task],
    repeats: int,
    size: int,
) -> dict[str, Timing]:
    """Per strategy: p50 of the same calls at catalog ``size``; raw Tantivy on the same texts."""
    base = next(r for r in results if r.choice.code == "text_concat")
    calls = [(p.query, ObservableState.from_json(p.state_text)) for p in base.points(size)]
    queries = [t.visible().query for t in tasks]
    for r in results:
        r.timing.update(_time_strategy(compiled, catalogs, r.choice, size, queries, calls, repeats))
    index = catalogs.indexes[size]
    pre_original = [index.query(q) for q in queries]
    pre_state = [index.query(q + "\n" + s.canonical_json()) for q, s in calls]

    def raw(query: tantivy.Query | None) -> object:
        return index.raw_search(query, 5) if query is not None else []

    return {
        "original": _median_us(lambda i: raw(pre_original[i]), len(queries), repeats),
        "state": _median_us(lambda i: raw(pre_state[i]), len(calls), repeats),
    }


def _time_strategy(
    compiled: CompiledSpec,
    catalogs: StrategyCatalogs,
    choice: StrategyChoice,
    size: int,
    queries: Sequence[str],
    calls: Sequence[tuple[str, ObservableState]],
    repeats: int,
) -> dict[str, Timing]:
    strategy = catalogs.strategy(choice, size)
    static, aware = StaticRetriever(strategy), StateAwareRetriever(strategy, compiled.state_contract)
    # Cold: the first pass on a fresh instance (each distinct text encoded once), no warm-up.
    fresh = StateAwareRetriever(catalogs.fresh(choice, size), compiled.state_contract)
    return {
        "state_cold": _median_us(
            lambda i: fresh.rank(calls[i][0], calls[i][1], 5), len(calls), 1, warm=False
        ),
        "original": _median_us(lambda i: static.rank(queries[i], 5), len(queries), repeats),
        "state": _median_us(lambda i: aware.rank(calls[i][0], calls[i][1], 5), len(calls), repeats),
    }


def _protocol_bound(
    compiled: CompiledSpec, catalogs: StrategyCatalogs, results: list[StrategyResult], size: int
) -> BarePoints:
    """The preflight's Recall@5 bound over every strategy's decision points at ``size``: the bare ones
    at the best hits any strategy (either entry point) reaches on all of them, the rest at 1."""
    facts = fact_fields(compiled.state_contract)
    points = [p for r in results for p in r.points(size)]
    bare = [p for p in points if nothing_beyond_query(json.loads(p.state_text), facts)]
    hits: dict[str, int] = {}
    for r in results:
        strategy = catalogs.strategy(r.choice, size)
        hits[f"{r.choice.label} (query)"] = sum(
            p.needed in strategy.rank_query(p.query, 5).route_ids for p in bare
        )
        hits[f"{r.choice.label} (query+state)"] = sum(
            p.needed in strategy.rank_with_state(p.query, p.state_text, 5).route_ids for p in bare
        )
    return best_at_bare(len(points), len(bare), hits)


def _ceilings(
    compiled: CompiledSpec, catalogs: StrategyCatalogs, results: list[StrategyResult], sizes: tuple[int, ...]
) -> Ceilings:
    protocol = {size: _protocol_bound(compiled, catalogs, results, size) for size in sizes}
    bare_share, bare_recall, added, ten, blocked_share, blocked_bare = {}, {}, {}, {}, {}, {}
    for r in results:
        label = r.choice.label
        pts = r.points()
        bare = [p for p in pts if not p.state_beyond_query]
        blocked = [p for p in pts if p.transition == "blocked"]
        bare_share[label] = Ratio(len(bare), len(pts))
        bare_recall[label] = Ratio(sum(p.hit for p in bare), len(bare))
        blocked_share[label] = Ratio(len(blocked), len(pts))
        blocked_bare[label] = Ratio(sum(not p.state_beyond_query for p in blocked), len(blocked))
        added[label] = Ratio(sum(p.hit or p.needed in p.previous_top5 for p in pts), len(pts))
        hits = 0
        for p in pts:
            strategy = catalogs.strategy(r.choice, p.catalog)
            hits += p.needed in strategy.rank_with_state(p.query, p.state_text, 10).route_ids
        ten[label] = Ratio(hits, len(pts))
    return Ceilings(protocol, bare_share, bare_recall, added, ten, blocked_share, blocked_bare)
