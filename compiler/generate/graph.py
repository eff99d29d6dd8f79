"""The producer -> consumer graph of the core routes and the gold plans found in it.

networkx lives only here (tests check that runtime/ never imports it). An edge u -> v exists when an
output of u satisfies a required input of v: same semantic ID and, when the input declares a unit, the
same unit ("produces"), or when u refreshes the auth realm v runs in ("recovers").

A plan for an intent is the unique chain of ``plan_steps`` core routes ending at the goal such that:
the first route needs only what the query states (slot semantics); every later route consumes a
typed output of the route before it that the query does not state; every required input is stated or
produced earlier; and every slot is used. Stratum rules add: identifier_provenance -> the goal
consumes a stable identifier created by the route before it; typed_unit_transition -> the middle
route is a unit or currency conversion of a listed dimension; recoverable_failure -> goal (fails),
recovery route, goal again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import networkx as nx

from compiler.generate.load import StratumInfo
from runtime.catalog.model import Endpoint, FieldSpec
from runtime.core.errors import SchemaRouterError


@dataclass(frozen=True)
class StepTemplate:
    route_id: str
    slot_inputs: tuple[tuple[str, str], ...]  # (input name, slot name)
    expect: str = "ok"


def _satisfies(output: FieldSpec, needed: FieldSpec) -> bool:
    return output.semantic_id == needed.semantic_id and (needed.unit is None or output.unit == needed.unit)


def build_graph(core: Iterable[Endpoint]) -> nx.DiGraph:
    graph = nx.DiGraph()
    nodes = sorted(core, key=lambda e: e.route_id)
    for e in nodes:
        graph.add_node(e.route_id, endpoint=e)
    for u in nodes:
        for v in nodes:
            if u.route_id == v.route_id:
                continue
            consumed = sorted(
                {f.name for f in v.inputs if f.required and any(_satisfies(o, f) for o in u.outputs)}
            )
            if consumed:
                graph.add_edge(u.route_id, v.route_id, kind="produces", inputs=tuple(consumed))
            realm = v.behavior.get("realm")
            if realm and u.behavior.get("op") == "refresh" and u.behavior.get("refreshes") == realm:
                graph.add_edge(u.route_id, v.route_id, kind="recovers", inputs=())
    return graph


def _endpoint(graph: nx.DiGraph, route_id: str) -> Endpoint:
    endpoint: Endpoint = graph.nodes[route_id]["endpoint"]
    return endpoint


def _chain_ok(graph: nx.DiGraph, chain: list[str], slots: Mapping[str, str]) -> bool:
    stated = set(slots)  # semantic IDs the query states
    produced: list[FieldSpec] = []
    used: set[str] = set()
    previous: Endpoint | None = None
    for route_id in chain:
        e = _endpoint(graph, route_id)
        consumes_previous = previous is None
        for f in e.inputs:
            if f.semantic_id in stated:
                used.add(f.semantic_id)
                continue
            if not f.required:
                continue
            if not any(_satisfies(o, f) for o in produced):
                return False
            if previous is not None and any(_satisfies(o, f) for o in previous.outputs):
                consumes_previous = True
        if not consumes_previous:
            return False
        produced.extend(e.outputs)
        previous = e
    return used == stated


def _chains(graph: nx.DiGraph, goal: str, length: int) -> list[list[str]]:
    found: list[list[str]] = []

    def back(path: list[str]) -> None:
        if len(path) == length:
            found.append(list(reversed(path)))
            return
        for p in sorted(graph.predecessors(path[-1])):
            if graph.edges[p, path[-1]]["kind"] == "produces" and p not in path:
                back([*path, p])

    back([goal])
    return found


def _slot_inputs(
    e: Endpoint, slots: Mapping[str, str], exclude: frozenset[str] = frozenset()
) -> tuple[tuple[str, str], ...]:
    return tuple(
        (f.name, slots[f.semantic_id])
        for f in e.inputs
        if f.semantic_id in slots and slots[f.semantic_id] not in exclude
    )


def find_plan(
    graph: nx.DiGraph,
    *,
    intent_id: str,
    goal: str,
    stratum: StratumInfo,
    slots: Mapping[str, str],
    failure: tuple[str, str | None] | None,
    file: str = "spec/intents.yaml",
) -> tuple[StepTemplate, ...]:
    """The gold plan template of an intent; ``slots`` maps semantic ID -> slot name; ``file`` names
    the intents file in messages."""
    where = f"{file}: {intent_id}"
    if goal not in graph:
        raise SchemaRouterError(f"{where}: goal {goal} is not a core route")
    goal_e = _endpoint(graph, goal)
    if stratum.id == "recoverable_failure":
        return _recovery_plan(graph, where, goal_e, slots, failure, stratum)
    chains = [c for c in _chains(graph, goal, stratum.plan_steps) if _chain_ok(graph, c, slots)]
    typed = chains
    if stratum.id == "identifier_provenance":
        chains = [c for c in chains if _creates_identifier_for(graph, c[-2], c[-1])]
    if stratum.id == "typed_unit_transition":
        chains = [c for c in chains if _is_conversion(graph, c[1], stratum.dimensions)]
    if typed and not chains:
        raise SchemaRouterError(
            f"{where}: stratum {stratum.id} needs {SHAPES[stratum.id]} ending at {goal}; the catalog has "
            f"no such route. Closest chains (typed, without that shape): "
            f"{' | '.join(' -> '.join(c) for c in typed[:5])}"
        )
    if len(chains) != 1:
        raise SchemaRouterError(
            f"{where}: expected exactly one {stratum.plan_steps}-step plan ending at {goal}, found "
            f"{len(chains)}: {' | '.join(' -> '.join(c) for c in chains) or 'none'}"
        )
    return tuple(StepTemplate(r, _slot_inputs(_endpoint(graph, r), slots)) for r in chains[0])


# The shape a stratum's rule asks of a chain, named in the error when the catalog lacks it.
SHAPES = {
    "identifier_provenance": "a create/upsert producer of a stable identifier that the goal consumes",
    "typed_unit_transition": "a unit or currency conversion (op convert) as the middle route",
}


def _creates_identifier_for(graph: nx.DiGraph, producer: str, consumer: str) -> bool:
    p, c = _endpoint(graph, producer), _endpoint(graph, consumer)
    if p.behavior.get("op") not in {"create", "upsert"}:
        return False
    return any(
        o.stable_identifier and any(_satisfies(o, f) for f in c.inputs if f.required) for o in p.outputs
    )


def _is_conversion(graph: nx.DiGraph, route_id: str, dimensions: tuple[str, ...]) -> bool:
    e = _endpoint(graph, route_id)
    if e.behavior.get("op") != "convert":
        return False
    return any(o.dimension in dimensions for o in e.outputs)


def _recovery_plan(
    graph: nx.DiGraph,
    where: str,
    goal_e: Endpoint,
    slots: Mapping[str, str],
    failure: tuple[str, str | None] | None,
    stratum: StratumInfo,
) -> tuple[StepTemplate, ...]:
    if failure is None or failure[0] not in stratum.error_classes:
        raise SchemaRouterError(
            f"{where}: recoverable_failure needs failure.error in {stratum.error_classes}"
        )
    error, stale_slot = failure
    if any(f.required and f.semantic_id not in slots for f in goal_e.inputs):
        raise SchemaRouterError(f"{where}: the goal's inputs must all be stated in the query")
    if error == "AUTH_EXPIRED":
        recovery = [
            p
            for p in sorted(graph.predecessors(goal_e.route_id))
            if graph.edges[p, goal_e.route_id]["kind"] == "recovers"
        ]
        retry_exclude: frozenset[str] = frozenset()
    else:
        if stale_slot is None:
            raise SchemaRouterError(f"{where}: NOT_FOUND needs failure.stale_slot")
        stale_semantic = next(s for s, name in slots.items() if name == stale_slot)
        recovery = [
            p
            for p in sorted(graph.predecessors(goal_e.route_id))
            if _endpoint(graph, p).behavior.get("op") == "resolve"
            and any(f.semantic_id == stale_semantic for f in _endpoint(graph, p).inputs)
        ]
        retry_exclude = frozenset({stale_slot})
    if len(recovery) != 1:
        raise SchemaRouterError(f"{where}: expected one recovery route for {error}, found {recovery}")
    r = _endpoint(graph, recovery[0])
    return (
        StepTemplate(goal_e.route_id, _slot_inputs(goal_e, slots), expect=error),
        StepTemplate(r.route_id, _slot_inputs(r, slots)),
        StepTemplate(goal_e.route_id, _slot_inputs(goal_e, slots, retry_exclude)),
    )
