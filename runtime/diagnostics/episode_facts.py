"""What one stored episode says about itself: its decision points, its primary failure cause, its refreshes.

Read from the stored trace (``runtime.engine.trace.read_trace``, every readable version), the frozen
task (for the gold plan's next required route) and the catalog's endpoints (side effects and semantic
signatures). Nothing is re-run: every fact is a function of what the trace recorded.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from runtime.catalog.model import Endpoint
from runtime.core.json_value import JSONObject
from runtime.diagnostics.causes import primary_cause
from runtime.engine.metrics import executed_calls_of
from runtime.engine.trace import EpisodeTrace
from runtime.retrieval.key_free import STATE_AWARE_QUERY, refresh_routes
from runtime.surface.model import Task
from runtime.surface.plan import next_required_route, required_routes

TRANSITIONS = ("ok", "error", "blocked")


@dataclass(frozen=True)
class DecisionPoint:
    """A Recall@5 decision point: the turn, the kind of the tool turn before it, and whether the
    condition's top 5 held the next required route."""

    turn: int
    after: str
    needed: str
    hit: bool


@dataclass(frozen=True)
class RefreshSlot:
    """One slot of a state-aware refresh's top k, and what took it."""

    turn: int
    route_id: str
    executed: bool  # a route already executed earlier in the episode
    twin: bool  # a version twin (same capability and semantic signature) of another slot or executed route
    needed: bool  # the next required route at that point


@dataclass(frozen=True)
class RefreshCall:
    """A state-aware retrieval call: the text it sent and its top-k slots."""

    turn: int
    text: str
    slots: tuple[RefreshSlot, ...]


@dataclass(frozen=True)
class EpisodeFacts:
    task_id: str
    condition: str
    catalog: int
    stratum: str
    language: str
    passed: bool
    ended_by: str
    points: tuple[DecisionPoint, ...]
    cause: str | None  # None for a passed episode
    refreshes: tuple[RefreshCall, ...]
    dropped_required: bool  # a later exposure dropped a required route shown earlier, before any call to it


def episode_facts(
    trace: EpisodeTrace, task: Task, endpoints: Mapping[str, Endpoint], *, ranks: bool
) -> EpisodeFacts:
    """``ranks``: whether Recall@5 applies to the trace's condition (it has a ranking)."""
    executed = executed_calls_of(trace)  # the audit's, when it read this very trace just before
    points: list[DecisionPoint] = []
    refreshes: list[RefreshCall] = []
    for i, turn in enumerate(trace.turns):
        so_far = [call for turn_no, call in executed if turn_no < turn.turn]
        needed = next_required_route(task, so_far)
        if ranks and turn.after_tool_turn_recall and needed is not None and i > 0:
            before = trace.turns[i - 1].result
            after = before.status if before is not None else "blocked"
            points.append(DecisionPoint(turn.turn, after, needed, needed in (turn.ranking_top5 or ())))
        executed_routes = {c.route_id for c in so_far if c.route_id}
        for call in turn.retrieval_calls:
            if call.get("query_kind") != STATE_AWARE_QUERY or i == 0:
                continue
            refreshes.append(_refresh(turn.turn, call, executed_routes, needed, endpoints))
    cause = None if trace.passed else primary_cause(trace, task, endpoints, executed)
    return EpisodeFacts(
        task_id=trace.task_id,
        condition=trace.condition,
        catalog=trace.catalog,
        stratum=trace.stratum,
        language=trace.language,
        passed=trace.passed,
        ended_by=trace.ended_by,
        points=tuple(points),
        cause=cause,
        refreshes=tuple(refreshes),
        dropped_required=_dropped_required(trace, required_routes(task)),
    )


def _dropped_required(trace: EpisodeTrace, required: frozenset[str]) -> bool:
    shown: set[str] = set()
    called: set[str] = set()
    for turn in trace.turns:
        exposed = set(trace.exposed_route_ids(turn))
        if (shown - exposed - called) & required:
            return True
        shown |= exposed & required
        if turn.result is not None and turn.result.route_id and turn.result.status != "blocked":
            called.add(turn.result.route_id)
    return False


def capability(route_id: str) -> str:
    """A route's capability: its ID without the trailing version (``a.b.get.v2`` -> ``a.b.get``)."""
    head, _, last = route_id.rpartition(".")
    return head if head and last[:1] == "v" and last[1:2].isdigit() else route_id


def semantic_signature(endpoint: Endpoint) -> tuple[object, ...]:
    """Capability, side effect and the sorted semantic IDs of inputs and outputs: two versions of one
    capability with the same signature are version twins."""
    return (
        capability(endpoint.route_id),
        endpoint.side_effect,
        tuple(sorted(f.semantic_id for f in endpoint.inputs)),
        tuple(sorted(f.semantic_id for f in endpoint.outputs)),
    )


def _refresh(
    turn: int,
    call: JSONObject,
    executed: set[str],
    needed: str | None,
    endpoints: Mapping[str, Endpoint],
) -> RefreshCall:
    route_ids = refresh_routes(call)
    signature = {r: semantic_signature(endpoints[r]) for r in {*route_ids, *executed} if r in endpoints}
    slots = []
    for route in route_ids:
        mine = signature.get(route)
        twin = mine is not None and any(
            other != route and signature.get(other) == mine for other in {*route_ids, *executed}
        )
        slots.append(RefreshSlot(turn, route, route in executed, twin, route == needed))
    return RefreshCall(turn=turn, text=str(call.get("text") or ""), slots=tuple(slots))
