"""Resolve every intent of spec/intents.yaml (or of a surface's intents file) into a plan template
through the route graph."""

from __future__ import annotations

import functools
from collections.abc import Callable, Container, Mapping
from dataclasses import dataclass

import networkx as nx

from compiler.generate.graph import StepTemplate, build_graph, find_plan
from compiler.generate.load import GeneratorInputs, StratumInfo
from compiler.generate.phrasing import PhrasingError, parse_phrasing
from compiler.generate.spec_model import IntentDef, SlotDef
from runtime.catalog.model import Endpoint
from runtime.core.errors import SchemaRouterError


@dataclass(frozen=True)
class ResolvedIntent:
    intent: IntentDef
    slot_pools: dict[str, str]  # slot name -> pool
    slot_semantics: dict[str, str]  # slot name -> semantic ID
    plan: tuple[StepTemplate, ...]


def _slot(slot: str | SlotDef, inputs: GeneratorInputs, intent: IntentDef) -> tuple[str, str]:
    pool = slot if isinstance(slot, str) else slot.pool
    if pool not in inputs.pools:
        raise SchemaRouterError(f"{inputs.intents_file}: {intent.id}: unknown pool {pool!r}")
    semantic = inputs.pools[pool].semantic if isinstance(slot, str) or not slot.semantic else slot.semantic
    return pool, semantic


def _check_phrasings(intent: IntentDef, languages: tuple[str, ...], file: str) -> None:
    """Every phrasing parses with the restricted formatter (``phrasing.py``) and names each slot."""
    for lang in languages:
        for number, text in enumerate(intent.phrasings.get(lang, ()), start=1):
            try:
                named = set(parse_phrasing(text).slots)
            except PhrasingError as err:
                raise SchemaRouterError(f"{file}: {intent.id} ({lang}): phrasing {number}: {err}") from None
            if named - set(intent.slots):
                raise SchemaRouterError(
                    f"{file}: {intent.id} ({lang}): unknown slots {sorted(named - set(intent.slots))}"
                )
            if set(intent.slots) - named:
                raise SchemaRouterError(
                    f"{file}: {intent.id} ({lang}): phrasing omits {sorted(set(intent.slots) - named)}"
                )


def _bases(endpoints: list[Endpoint], routes: set[str]) -> dict[str, str]:
    """Route id without its version suffix -> route id, for the endpoints among ``routes``."""
    return {e.route_id.rsplit(".v", 1)[0]: e.route_id for e in endpoints if e.route_id in routes}


def _check_intent(
    intent: IntentDef,
    *,
    seen: set[str],
    strata: Mapping[str, StratumInfo],
    goals: Container[str],
    core_only: bool,
    file: str,
) -> None:
    """An intent's id is new (recorded in ``seen``), its stratum known, its goal a route it may plan to."""
    if intent.id in seen:
        raise SchemaRouterError(f"{file}: duplicate intent {intent.id}")
    seen.add(intent.id)
    if intent.stratum not in strata:
        raise SchemaRouterError(f"{file}: {intent.id}: unknown stratum {intent.stratum}")
    if intent.goal not in goals:
        where = "a core route" if core_only else "a route of the smallest catalog"
        raise SchemaRouterError(f"{file}: {intent.id}: goal {intent.goal} is not {where}")


def _slot_tables(
    intent: IntentDef, inputs: GeneratorInputs, file: str
) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """Slot -> pool, slot -> semantic ID, and semantic ID -> slot (two slots may not share one)."""
    pools, semantics = {}, {}
    for name, slot in intent.slots.items():
        pools[name], semantics[name] = _slot(slot, inputs, intent)
    by_semantic: dict[str, str] = {}
    for name, semantic in semantics.items():
        if semantic in by_semantic:
            raise SchemaRouterError(
                f"{file}: {intent.id}: slots {by_semantic[semantic]} and {name} share {semantic}"
            )
        by_semantic[semantic] = name
    return pools, semantics, by_semantic


def resolve_intents(
    inputs: GeneratorInputs,
    endpoints: list[Endpoint],
    core: set[str],
    wider: set[str] | None = None,
) -> tuple[nx.DiGraph, list[ResolvedIntent]]:
    """The graph over the core routes and each intent with its unique plan template.

    ``wider`` (surfaces of new capabilities, ``surface_only.py``): more routes to plan over when the
    core graph has no plan for an intent. The core graph is tried first, so every intent with a core
    plan keeps it (the committed surfaces stay byte-identical); a wider graph only adds chains, so an
    intent ambiguous among the core routes stays ambiguous."""
    graph = build_graph(e for e in endpoints if e.route_id in core)
    by_base = _bases(endpoints, core)
    wide_graph = None if wider is None else build_graph(e for e in endpoints if e.route_id in core | wider)
    wide_base = _bases(endpoints, core | (wider or set()))
    strata = {s.id: s for s in inputs.strata}
    goals = by_base.keys() | wide_base.keys()
    resolved = []
    seen: set[str] = set()
    file = inputs.intents_file
    for intent in inputs.intents:
        _check_intent(intent, seen=seen, strata=strata, goals=goals, core_only=wider is None, file=file)
        _check_phrasings(intent, inputs.languages, file)
        pools, semantics, by_semantic = _slot_tables(intent, inputs, file)
        failure = (intent.failure.error, intent.failure.stale_slot) if intent.failure else None
        plan_of = functools.partial(
            find_plan,
            intent_id=intent.id,
            stratum=strata[intent.stratum],
            slots=by_semantic,
            failure=failure,
            file=file,
        )
        if wide_graph is None:
            plan = plan_of(graph, goal=by_base[intent.goal])
        else:
            plan = _core_first(plan_of, graph, wide_graph, by_base.get(intent.goal), wide_base[intent.goal])
        resolved.append(ResolvedIntent(intent, pools, semantics, plan))
    return graph, resolved


def _core_first(
    plan_of: Callable[..., tuple[StepTemplate, ...]],
    graph: nx.DiGraph,
    wide_graph: nx.DiGraph,
    core_goal: str | None,
    goal: str,
) -> tuple[StepTemplate, ...]:
    """The core graph's plan when it has one, else the wider graph's (whose error is the one shown)."""
    if core_goal is not None:
        try:
            return plan_of(graph, goal=core_goal)
        except SchemaRouterError:
            pass
    return plan_of(wide_graph, goal=goal)
